"""Compose windows: Thunderbird's own message compose windows, opened, edited, saved as drafts, sent
and closed through asil_compose.js (gMsgCompose in the msgcompose window).

A compose window is visible state, like an open dialog a person sees: ``compose:N`` elements with
their To, Cc, subject, plain-text body and attachments. They live in the running Thunderbird only;
a restart closes them (their drafts, once saved, stay in the Drafts folder). None of these functions
may be batched: a batch's rollback restarts Thunderbird, and sending cannot be taken back.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, model_validator

from asil.adapters.functions import AppFunction
from asil.adapters.params import parse_params
from asil.adapters.thunderbird.actions import (
    MAX_ATTACHMENTS,
    Address,
    AttachmentName,
    MailCall,
    MessageId,
    Text,
    WorkspacePath,
    _Params,
)
from asil.protocol import DocumentError, InvalidAction
from asil.workspace import Workspace

SEED_FILE = "compose-windows.json"  # set-up file kind "compose_windows": the windows a task starts with

ComposeWindow = Annotated[str, Field(pattern=r"^compose:[1-9][0-9]{0,5}$",
                                     description="An open compose window's id, such as 'compose:1'.")]
Recipients = Annotated[list[Address], Field(max_length=20)]
Body = Annotated[str, Field(max_length=20_000)]
Attachments = Annotated[list[WorkspacePath], Field(max_length=MAX_ATTACHMENTS)]
FILE_OPS = ("compose_open", "compose_attach")  # operations whose 'attachments' are workspace files


class OpenCompose(_Params):
    to: Recipients = Field(default_factory=list)
    cc: Recipients = Field(default_factory=list)
    subject: Text = ""
    body: Body = ""
    attachments: Attachments = Field(default_factory=list, description="Workspace files to attach (each at most 10 MB).")


class EditCompose(_Params):
    window: ComposeWindow
    to: Recipients | None = Field(None, description="Replaces the To recipients.")
    cc: Recipients | None = Field(None, description="Replaces the Cc recipients.")
    subject: Text | None = None
    body: Body | None = Field(None, description="Replaces the whole plain-text body.")

    @model_validator(mode="after")
    def _changes(self) -> EditCompose:
        if not self.model_fields_set - {"window"}:
            raise ValueError("give at least one of to, cc, subject, body")
        return self


class AttachToCompose(_Params):
    window: ComposeWindow
    attachments: Annotated[list[WorkspacePath], Field(min_length=1, max_length=MAX_ATTACHMENTS)]


class RemoveComposeAttachment(_Params):
    window: ComposeWindow
    name: AttachmentName


class ComposeOnly(_Params):
    window: ComposeWindow


class CloseCompose(_Params):
    window: ComposeWindow
    discard: bool = Field(False, description="Close even with unsaved changes, losing them.")


class OpenReply(_Params):
    message: MessageId = Field(description="The message to reply to, such as 'INBOX#3'.")
    reply_all: bool = Field(False, description="Reply to the sender and every other recipient (Reply All).")


class OpenForward(_Params):
    message: MessageId = Field(description="The message to forward, such as 'INBOX#3'.")
    as_attachment: bool = Field(False, description="Attach the whole message (.eml) instead of quoting it inline.")


class OpenDraft(_Params):
    draft: MessageId = Field(description="A message in the Drafts folder, such as 'Drafts#3'.")


def _call(op: str) -> Any:
    return lambda params: (op, params.model_dump(exclude_unset=op == "compose_edit"))


def _open_draft(params: OpenDraft) -> MailCall:
    return "draft_open", {"id": params.draft}


def _open_reply(params: OpenReply) -> MailCall:
    return "compose_related", {"id": params.message, "kind": "reply_all" if params.reply_all else "reply"}


def _open_forward(params: OpenForward) -> MailCall:
    return "compose_related", {"id": params.message,
                               "kind": "forward_attachment" if params.as_attachment else "forward_inline"}


# What each operation checks first (in Thunderbird, without changing anything); its params are the
# operation's own.
PRECHECKS = {"compose_edit": "check_compose", "compose_attach": "check_compose", "compose_detach": "check_compose",
             "compose_save": "check_compose", "compose_send": "check_send", "compose_close": "check_close",
             "draft_open": "check_draft", "compose_related": "check_related"}

WINDOW_TIP = ("Compose windows ('compose:N' elements: to, cc, subject, body, attachments, the draft they edit, "
              "unsaved) are Thunderbird's own message windows: open_compose or open_draft opens one, edit_compose "
              "changes its fields, save_compose_draft stores it in Drafts (again: it replaces its draft), "
              "send_compose sends and closes it, close_compose closes it (refused with unsaved changes unless "
              "discard=true). open_reply and open_forward open a reply (to the sender, or to all) or a forward (quoted "
              "inline, or the message as an attachment) that Thunderbird fills in itself; meta.kind and meta.original "
              "say what a window answers. They are not batched, and a restart of Thunderbird closes them (saved "
              "drafts stay).")
COMPOSE_FUNCTIONS: list[AppFunction[Any]] = [
    AppFunction("open_compose", OpenCompose, "Open a new compose window (optionally filled in and with workspace "
                "files attached); its id is in the result's changed list.", acts_on="compose", batch=False,
                handler=_call("compose_open"), tips=(WINDOW_TIP,),
                examples=({"action_type": "invoke_function", "target": "open_compose",
                           "params": {"to": ["carol@example.com"], "subject": "Agenda"}},)),
    AppFunction("edit_compose", EditCompose, "Change fields of an open compose window (given fields replace "
                "the old ones).", acts_on="compose", batch=False, handler=_call("compose_edit"),
                examples=({"action_type": "invoke_function", "target": "edit_compose",
                           "params": {"window": "compose:1", "body": "Hi Carol,\nhere is the agenda.\n"}},)),
    AppFunction("attach_to_compose", AttachToCompose, "Attach workspace files to an open compose window.",
                acts_on="compose", batch=False, handler=_call("compose_attach")),
    AppFunction("remove_compose_attachment", RemoveComposeAttachment,
                "Remove an attachment (by its name) from an open compose window.", acts_on="compose", batch=False,
                handler=_call("compose_detach")),
    AppFunction("save_compose_draft", ComposeOnly, "Save an open compose window as a draft in Drafts (it stays "
                "open; saving again replaces that draft).", acts_on="compose", batch=False,
                handler=_call("compose_save")),
    AppFunction("send_compose", ComposeOnly, "Send an open compose window's message (a copy goes to Sent, its "
                "draft is removed, the window closes).", acts_on="compose", batch=False,
                handler=_call("compose_send")),
    AppFunction("close_compose", CloseCompose, "Close an open compose window.", acts_on="compose", batch=False,
                handler=_call("compose_close")),
    AppFunction("open_draft", OpenDraft, "Open a draft from the Drafts folder in a compose window to edit or "
                "send it.", acts_on="compose", batch=False, handler=_open_draft,
                examples=({"action_type": "invoke_function", "target": "open_draft", "params": {"draft": "Drafts#1"}},)),
    AppFunction("open_reply", OpenReply, "Open Thunderbird's reply to a message in a compose window (To, 'Re:' "
                "subject, quoted text and References filled in; reply_all adds the other recipients).",
                acts_on="compose", batch=False, handler=_open_reply,
                examples=({"action_type": "invoke_function", "target": "open_reply",
                           "params": {"message": "INBOX#1", "reply_all": True}},)),
    AppFunction("open_forward", OpenForward, "Open Thunderbird's forward of a message in a compose window ('Fwd:' "
                "subject and the message quoted inline, or attached when as_attachment=true; add recipients with "
                "edit_compose).", acts_on="compose", batch=False, handler=_open_forward,
                examples=({"action_type": "invoke_function", "target": "open_forward",
                           "params": {"message": "INBOX#1", "as_attachment": True}},)),
]


def lost_note(ids: list[str]) -> str:
    """What the observation says about compose windows a restart of Thunderbird closed."""
    return (f"Thunderbird restarted and closed the compose windows {', '.join(ids)} (a real Thunderbird does "
            "not keep open compose windows across a restart); drafts saved before are in Drafts.")


def read_compose_seed(workspace: Workspace) -> list[dict[str, Any]]:
    """The set-up's compose windows (open_compose params), checked before any program starts."""
    path = workspace.root / SEED_FILE
    if not path.is_file():
        return []
    try:
        windows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(windows, list):
            raise TypeError("it is not a JSON list")
        return [parse_params(OpenCompose, w, "a compose window").model_dump() for w in windows]
    except (ValueError, TypeError, InvalidAction) as exc:
        message = exc.message if isinstance(exc, InvalidAction) else str(exc)
        raise DocumentError(f"{SEED_FILE} is not a list of compose windows: {message}",
                            hint="Each window is an object with to, cc, subject, body and attachments (workspace "
                            "paths), as open_compose takes them.") from None
