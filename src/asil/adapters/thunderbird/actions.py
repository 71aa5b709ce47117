"""The Thunderbird action vocabulary: parameter models, the function table (each function with the
asil_mail.js operation it runs) and the vocabulary (examples and tips).

Messages are named by ``"<folder path>#<IMAP UID>"`` ("INBOX#12"), folders by their path
("INBOX", "Projects/2026"), contacts by ``"contact:<uid>"``, filters by ``"filter:<name>"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from asil.adapters.functions import AppFunction, FunctionTable, Vocabulary
from asil.adapters.params import Params
from asil.adapters.params import parse_params as parse_params  # re-exported for the adapter

MAX_BATCH = 50
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
MessageId = Annotated[str, Field(min_length=3, max_length=300, pattern=r"^[^#\x00-\x1f]+#[1-9][0-9]{0,9}$",
                                 description="A message id such as 'INBOX#12'.")]
MessageIds = Annotated[list[MessageId], Field(min_length=1, max_length=500)]
FolderPath = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^#.\\%*:\x00-\x1f]+$",
                                  description="A folder path such as 'INBOX' or 'Projects/2026'.")]
# ASCII only, and no '&': IMAP stores other names in modified UTF-7 ('Ωmega' becomes '&A6k-mega'), so the
# folder an agent asked for would never appear under its name (found by tests/fuzz).
FolderName = Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[ !\"$'()+,0-9;<=>?@A-Z\[\]^_`a-z{|}~-]+$",
                                  description="ASCII letters, digits, spaces and punctuation except / # . \\ % * : &.")]
Address = Annotated[str, Field(min_length=3, max_length=200, pattern=r"^[^@\s,<>]+@[^@\s,<>]+$")]
Text = Annotated[str, Field(max_length=200, pattern=r"^[^\x00-\x1f]*$")]
ContactRef = Annotated[str, Field(max_length=200, pattern=r"^(contact:[0-9a-fA-F-]{8,64}|[^@\s,<>]+@[^@\s,<>]+)$",
                                  description="A contact id ('contact:<uid>') or the contact's primary email.")]
TAG_WORD = r"[^\x00-\x1f ()\[\]{}\\\"%*]+"  # IMAP keyword-safe characters; words joined by single spaces
TagName = Annotated[str, Field(min_length=1, max_length=40, pattern=rf"^{TAG_WORD}( {TAG_WORD})*$")]


class _Params(Params):
    """Strict parameters: unknown fields and coercion are refused."""


class MoveMessages(_Params):
    messages: MessageIds
    folder: FolderPath = Field(description="The destination folder.")


class DeleteMessages(_Params):
    messages: MessageIds
    permanent: bool = Field(False, description="Expunge for good instead of moving to Trash.")


class SetFlags(_Params):
    messages: MessageIds
    read: bool | None = None
    flagged: bool | None = Field(None, description="Thunderbird's star.")

    @model_validator(mode="after")
    def _something(self) -> SetFlags:
        if self.read is None and self.flagged is None:
            raise ValueError("give read and/or flagged")
        return self


class TagMessages(_Params):
    messages: MessageIds
    add: list[TagName] = Field(default_factory=list, description="Tag names to add (new names create a tag).")
    remove: list[TagName] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> TagMessages:
        if not self.add and not self.remove:
            raise ValueError("give tags to add and/or remove")
        return self


class CreateFolder(_Params):
    name: FolderName
    parent: FolderPath | None = Field(None, description="Parent folder; the account's top level when omitted.")


WorkspacePath = Annotated[str, Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$",
                                     description="A path relative to the workspace, such as 'reports/q3.pdf'.")]
AttachmentName = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^\x00-\x1f]+$",
                                      description="An attachment's file name as the observation lists it.")]


class Compose(_Params):
    to: Annotated[list[Address], Field(min_length=1, max_length=20)]
    cc: Annotated[list[Address], Field(max_length=20)] = Field(default_factory=list)
    subject: Text
    body: Annotated[str, Field(max_length=20_000)] = ""
    attachments: Annotated[list[WorkspacePath], Field(max_length=MAX_ATTACHMENTS)] = Field(
        default_factory=list, description="Workspace files to attach (each at most 10 MB).")


class SaveAttachment(_Params):
    message: MessageId
    name: AttachmentName
    path: WorkspacePath = Field(description="Where to write it in the workspace (a file path, not a folder).")
    overwrite: bool = Field(False, description="Replace a file that is already there.")


class ContactFields(_Params):
    first_name: Text | None = None
    last_name: Text | None = None
    display_name: Text | None = None
    email: Address | None = None
    nickname: Text | None = None
    phone: Annotated[str, Field(max_length=40, pattern=r"^[0-9+() ./-]*$")] | None = None
    company: Text | None = None
    notes: Annotated[str, Field(max_length=2000)] | None = None


class AddContact(ContactFields):
    @model_validator(mode="after")
    def _named(self) -> AddContact:
        if not (self.email or self.display_name or self.first_name or self.last_name):
            raise ValueError("a contact needs an email or a name")
        return self


class EditContact(ContactFields):
    contact: ContactRef

    @model_validator(mode="after")
    def _changes(self) -> EditContact:
        if not self.model_fields_set - {"contact"}:
            raise ValueError("give at least one field to change")
        return self


class ContactOnly(_Params):
    contact: ContactRef


class Condition(_Params):
    field: Literal["subject", "from", "to", "cc", "to_or_cc", "body"]
    op: Literal["contains", "does_not_contain", "is", "is_not", "begins_with", "ends_with"] = "contains"
    value: Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]


class FilterAction(_Params):
    type: Literal["move_to_folder", "copy_to_folder", "mark_read", "mark_flagged", "add_tag", "delete", "stop"]
    folder: FolderPath | None = None
    tag: TagName | None = None

    @model_validator(mode="after")
    def _arguments(self) -> FilterAction:
        if (self.folder is not None) != (self.type in ("move_to_folder", "copy_to_folder")):
            raise ValueError("move_to_folder/copy_to_folder need 'folder' and the other actions take none")
        if (self.tag is not None) != (self.type == "add_tag"):
            raise ValueError("add_tag needs 'tag' and the other actions take none")
        return self


class CreateFilter(_Params):
    name: Annotated[str, Field(min_length=1, max_length=80, pattern=r'^[^\x00-\x1f"]+$')]
    conditions: Annotated[list[Condition], Field(min_length=1, max_length=10)]
    actions: Annotated[list[FilterAction], Field(min_length=1, max_length=10)]
    match: Literal["all", "any"] = "all"
    enabled: bool = True


class SetValue(_Params):
    value: bool


class Navigate(_Params):  # the common page params (navigate_page) plus a search
    offset: Annotated[int, Field(ge=0)] | None = None
    limit: Annotated[int, Field(ge=1, le=100)] | None = None
    search: Annotated[str, Field(max_length=100)] | None = Field(None, description="Show only messages whose "
                                                                 "subject or sender contains this text ('' clears).")


# ---------------------------------------------------------------- what each function asks asil_mail.js to do
MailCall = tuple[str, dict[str, Any]]  # (asil_mail.js operation, its params)
MailOperation = Callable[[Any], MailCall]


def _mail_params(params: Params) -> dict[str, Any]:
    """The checked params as asil_mail.js names them (message lists are ``ids``)."""
    data = params.model_dump()
    if "messages" in data:
        data["ids"] = data.pop("messages")
    return data


def operation(op: str, **extra: Any) -> MailOperation:
    """A function that is the operation ``op`` on its params as they are (plus ``extra``)."""
    return lambda params: (op, {**_mail_params(params), **extra})


def _contact_fields(params: ContactFields) -> dict[str, Any]:
    return {"fields": {k: v for k, v in params.model_dump(exclude={"contact"}).items() if v is not None}}


def _add_contact(params: AddContact) -> MailCall:
    return "add_contact", _contact_fields(params)


def _edit_contact(params: EditContact) -> MailCall:
    return "edit_contact", {**_contact_fields(params), "id": params.contact.removeprefix("contact:")}


def _delete_contact(params: ContactOnly) -> MailCall:
    return "delete_contact", {"id": params.contact.removeprefix("contact:")}


def _save_attachment(params: SaveAttachment) -> MailCall:
    data = _mail_params(params)
    data["id"] = data.pop("message")
    return "save_attachment", data


def mail_call(function: AppFunction[MailOperation], params: Any) -> MailCall:
    """What the function ``function`` asks of asil_mail.js, for its checked params."""
    return function.require_handler()(params)


COMPOSE = "Compose a plain-text message (optionally with workspace files attached) and"
FUNCTIONS: FunctionTable[MailOperation] = FunctionTable("thunderbird", [
    AppFunction("move_messages", MoveMessages, "Move messages to another folder (their ids change: new UIDs there).",
                acts_on="messages", handler=operation("move", move=True)),
    AppFunction("copy_messages", MoveMessages, "Copy messages to another folder.", acts_on="messages",
                handler=operation("move", move=False)),
    AppFunction("delete_messages", DeleteMessages, "Delete messages: to Trash, or for good with permanent=true.",
                destructive=True, acts_on="messages", handler=operation("delete")),
    AppFunction("set_flags", SetFlags, "Mark messages read/unread and/or flagged (starred)/unflagged.",
                acts_on="messages", handler=operation("flags")),
    AppFunction("tag_messages", TagMessages,
                "Add and/or remove tags (Important, Work, Personal, To Do, Later, or new ones).", acts_on="messages",
                handler=operation("tag")),
    AppFunction("create_folder", CreateFolder, "Create a folder on the IMAP server.", acts_on="folders",
                handler=operation("create_folder")),
    AppFunction("save_draft", Compose, f"{COMPOSE} save it in Drafts.", acts_on="messages",
                handler=operation("draft")),
    AppFunction("send_message", Compose, f"{COMPOSE} send it (a copy goes to Sent).", acts_on="messages",
                handler=operation("send")),
    AppFunction("save_attachment", SaveAttachment, "Save a message's attachment as a file in the workspace.",
                acts_on="file", handler=_save_attachment),
    AppFunction("add_contact", AddContact, "Add a contact to the Personal Address Book.", acts_on="contacts",
                handler=_add_contact),
    AppFunction("edit_contact", EditContact, "Change fields of a contact.", acts_on="contacts",
                handler=_edit_contact),
    AppFunction("delete_contact", ContactOnly, "Delete a contact from the address book.", destructive=True,
                acts_on="contacts", handler=_delete_contact),
    AppFunction("create_filter", CreateFilter,
                "Create a message filter on the account (runs on new mail and manually).", acts_on="filters",
                handler=operation("create_filter")),
])

VOCABULARY = Vocabulary(
    app="thunderbird",
    finish="with these actions",
    target_format="invoke_function: a function name (messages, folders, contacts go in params); "
    "set_value: '<message id>.read|flagged'; navigate: a folder path",
    set_value_params=SetValue,
    navigate_params=Navigate,
    batch_hint="Batch invoke_function and set_value actions.",
    max_batch=MAX_BATCH,
    examples=[
        {"action_type": "navigate", "target": "INBOX", "params": {"offset": 0, "limit": 20}},
        {"action_type": "invoke_function", "target": "set_flags", "params": {"messages": ["INBOX#1"], "flagged": True}},
        {"action_type": "set_value", "target": "INBOX#2.read", "params": {"value": True}},
        {"action_type": "invoke_function", "target": "tag_messages",
         "params": {"messages": ["INBOX#1"], "add": ["Important"]}},
        {"action_type": "invoke_function", "target": "create_folder", "params": {"name": "Receipts"}},
        {"action_type": "invoke_function", "target": "copy_messages",
         "params": {"messages": ["INBOX#1"], "folder": "Receipts"}},
        {"action_type": "invoke_function", "target": "save_draft",
         "params": {"to": ["carol@example.com"], "subject": "Agenda", "body": "Hi Carol,\nhere is the agenda.\n"}},
        {"action_type": "invoke_function", "target": "send_message",
         "params": {"to": ["dave@example.com"], "subject": "Report", "body": "The report is attached.\n",
                    "attachments": ["report.txt"]}},
        {"action_type": "invoke_function", "target": "save_attachment",
         "params": {"message": "INBOX#1", "name": "invoice-1042.pdf", "path": "invoices/invoice-1042.pdf"}},
        {"action_type": "invoke_function", "target": "add_contact",
         "params": {"first_name": "Carol", "last_name": "Smith", "email": "carol@example.com"}},
        {"action_type": "invoke_function", "target": "create_filter",
         "params": {"name": "Invoices", "conditions": [{"field": "subject", "op": "contains", "value": "invoice"}],
                    "actions": [{"type": "move_to_folder", "folder": "Receipts"}]}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "create_folder", "params": {"name": "Later Reading"}},
            {"action_type": "invoke_function", "target": "move_messages",
             "params": {"messages": ["INBOX#2"], "folder": "Later Reading"}}]}},
    ],
    tips=[
        "Elements: '@account', one per folder (id = its path, e.g. 'INBOX', 'Projects/2026'), a page of the "
        "current folder's messages (id 'INBOX#12' = folder + '#' + IMAP UID), contacts ('contact:<uid>') and "
        "filters ('filter:<name>'). navigate with target = a folder path to show that folder; params offset/limit "
        "page through it and search narrows it by subject or sender.",
        "A moved message gets a new id in its new folder (a new UID); observe the destination to find it.",
        "Drafts are messages in the 'Drafts' folder, sent mail is in 'Sent'; navigate there to read them.",
        "set_value works on '<message id>.read' and '<message id>.flagged' with a boolean value.",
        "delete_messages moves to Trash; permanent=true removes the messages for good (destructive).",
        "A batch is atomic: it is checked first, and if one step fails, the mailbox, address book and filters "
        "are restored to their state before the batch (Thunderbird and Dovecot restart from a snapshot).",
        "A message's attachments (name, content type, size in bytes) are listed in its meta; save_attachment "
        "writes one into the workspace (it refuses to replace a file unless overwrite=true). To send or draft "
        "files, list their workspace paths in 'attachments'.",
        "Sending delivers to a local test SMTP server, never to the internet.",
    ],
)
