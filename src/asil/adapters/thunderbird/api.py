"""The mail operations ``api_call`` may ask of Thunderbird: asil_mail.js's own operations (run in
Thunderbird over Marionette, on its IMAP account and address book), with their data as that script
names it (message lists are ``ids``).

Only operations on the account's messages, folders and contacts are on the list; composing and
sending (which attach workspace files) and saving attachments (which writes workspace files) stay
functions, where those paths are checked.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from asil.adapters.api import ApiAllowlist, ApiRequest
from asil.adapters.params import Params
from asil.adapters.thunderbird.actions import FolderName, FolderPath, MessageIds, TagName


class State(Params):
    folder: FolderPath = "INBOX"
    offset: Annotated[int, Field(ge=0)] = 0
    limit: Annotated[int, Field(ge=1, le=100)] = 25
    search: Annotated[str, Field(max_length=200)] = ""


class Move(Params):
    ids: MessageIds
    folder: FolderPath
    move: bool = Field(True, description="false copies instead.")


class Flags(Params):
    ids: MessageIds
    read: bool | None = None
    flagged: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> Flags:
        if self.read is None and self.flagged is None:
            raise ValueError("give read and/or flagged")
        return self


class Tag(Params):
    ids: MessageIds
    add: list[TagName] = Field(default_factory=list)
    remove: list[TagName] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> Tag:
        if not self.add and not self.remove:
            raise ValueError("give tags to add and/or remove")
        return self


class NewFolder(Params):
    name: FolderName
    parent: FolderPath | None = None


class Delete(Params):
    ids: MessageIds
    permanent: bool = False


class Contact(Params):
    id: Annotated[str, Field(max_length=200, pattern=r"^([0-9a-fA-F-]{8,64}|[^@\s,<>]+@[^@\s,<>]+)$",
                             description="The contact's UID (its element id without 'contact:') or primary email.")]


MAIL_API: ApiAllowlist[None] = ApiAllowlist("Thunderbird", "mail operations")
MAIL_API.extend([
    ApiRequest("state", "A folder's page of messages (search filters it), the folders, contacts, filters and tags.",
               State, reads=True),
    ApiRequest("move", "Move (or with move=false copy) messages to a folder.", Move),
    ApiRequest("flags", "Mark messages read/unread and/or flagged/unflagged.", Flags),
    ApiRequest("tag", "Add and/or remove tags on messages.", Tag),
    ApiRequest("create_folder", "Create an IMAP folder (under parent, or at the top).", NewFolder),
    ApiRequest("delete", "Delete messages: to Trash, or for good with permanent=true.", Delete, destructive=True),
    ApiRequest("delete_contact", "Delete a contact from the address book.", Contact, destructive=True),
])
