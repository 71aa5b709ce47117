"""Checkpoint types for mail tasks, read from the state the adapter persisted.

After ``save()`` and ``close()`` the mailbox is the Maildir in the workspace (``document``, default
``mail``), read with Python's :mod:`mailbox`; contacts are in the profile's ``abook.sqlite``, filters
in its ``msgFilterRules.dat``, and sent mail in the SMTP sink's folder. Targets:

* a folder: ``"Receipts"``, ``"Projects/2026"``;
* a message: ``"<folder>#<exact subject>"`` (the first message with that subject);
* a draft or sent message: its exact subject;
* a contact field: ``"<email>.<field>"`` (first_name, last_name, display_name, email, nickname,
  phone, company, notes);
* a filter: its name;
* a saved attachment: its workspace-relative path (``mail_file_sha256``, ``mail_file_size``);
* the attachments of a draft or sent message: its subject (``mail_draft_attachments``,
  ``mail_sent_attachments``: the file names; ``mail_sent_attachment_sha256``: ``"<subject>#<name>"``);
* what a draft or sent message answers: its subject (``mail_draft_relation``, ``mail_sent_relation``:
  ``"reply to <message-id>"``, ``"forward of <message-id>"`` or ``"new"``, from the headers Thunderbird
  writes: X-Forwarded-Message-Id for a forward, In-Reply-To for a reply);
* an open compose window: its subject (``mail_compose_text``, ``mail_compose_attachments``), read from
  ``saved/compose.json``, the record of the windows open when the state was saved (none: no target).
"""

from __future__ import annotations

import email.header
import hashlib
import mailbox
import re
import sqlite3
from email.message import Message
from pathlib import Path
from typing import Any

from asil.adapters.thunderbird.builders import TAG_KEYS, folder_dir
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

DEFAULT_DOCUMENT = "mail"
CONTACT_PROPERTIES = {"first_name": "FirstName", "last_name": "LastName", "display_name": "DisplayName",
                      "email": "PrimaryEmail", "nickname": "NickName"}
VCARD_ONLY = {"phone": "TEL", "company": "ORG", "notes": "NOTE"}  # kept only inside the card's _vCard text


def _vcard_value(card: dict[str, str], name: str) -> str:
    for line in card.get("_vCard", "").replace("\r\n ", "").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.split(";")[0].upper() == name:
            if name == "ORG":  # organisation; unit; ... -> one line
                value = " ".join(part for part in re.split(r"(?<!\\);", value) if part)
            return value.replace("\\,", ",").replace("\\;", ";").replace("\\n", "\n").strip()
    return ""


def _home(ctx: EvalContext) -> Path:
    return ctx.workspace.private("thunderbird")


def _folder(ctx: EvalContext, cp: Checkpoint, path: str) -> mailbox.Maildir:
    root = ctx.workspace.resolve(cp.document or DEFAULT_DOCUMENT)
    try:
        directory = folder_dir(root, path)
    except Exception:
        raise CheckpointUnreadable(f"{path!r} is not a folder name") from None
    if not (directory / "cur").is_dir():
        raise CheckpointUnreadable(f"there is no folder {path!r}")
    return mailbox.Maildir(directory, factory=None, create=False)


def _subject(message: Message) -> str:
    return str(email.header.make_header(email.header.decode_header(message.get("Subject", ""))))


def _live(box: mailbox.Maildir) -> list[mailbox.MaildirMessage]:
    """The folder's messages, without those marked deleted and not yet expunged."""
    return [m for m in box if isinstance(m, mailbox.MaildirMessage) and "T" not in m.get_flags()]


def _message(ctx: EvalContext, cp: Checkpoint) -> tuple[mailbox.MaildirMessage, Path]:
    folder, _, subject = require(cp.target, "'<folder>#<subject>' target").partition("#")
    box = _folder(ctx, cp, folder)
    for message in _live(box):
        if _subject(message) == subject:
            return message, Path(box._path)
    raise CheckpointUnreadable(f"folder {folder!r} has no message with subject {subject!r}")


def _keywords(folder: Path) -> dict[str, str]:
    """Maildir flag letter -> IMAP keyword, from Dovecot's dovecot-keywords file."""
    try:
        lines = (folder / "dovecot-keywords").read_text().splitlines()
    except OSError:
        return {}
    return {chr(ord("a") + int(n)): key for n, _, key in (line.partition(" ") for line in lines) if n.isdigit()}


def _tag_names(ctx: EvalContext) -> dict[str, str]:
    names = {key: name.title() if name != "to do" else "To Do" for name, key in TAG_KEYS.items()}
    try:
        prefs = (_home(ctx) / "saved" / "prefs.js").read_text(errors="replace")
    except OSError:
        return names
    for key, name in re.findall(r'user_pref\("mailnews\.tags\.([^"]+)\.tag", "((?:[^"\\]|\\.)*)"\);', prefs):
        names[key] = name
    return names


@checkpoint_type("mail_subjects", default_compare="contains")
def subjects(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The subjects of the messages in folder ``target`` (``contains`` checks one is there)."""
    return sorted(_subject(m) for m in _live(_folder(ctx, cp, require(cp.target, "folder"))))


@checkpoint_type("mail_folder_count")
def folder_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many messages folder ``target`` holds."""
    return len(_live(_folder(ctx, cp, require(cp.target, "folder"))))


@checkpoint_type("mail_folder_exists")
def folder_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    try:
        _folder(ctx, cp, require(cp.target, "folder"))
    except CheckpointUnreadable:
        return False
    return True


@checkpoint_type("mail_message_read")
def message_read(ctx: EvalContext, cp: Checkpoint) -> bool:
    return "S" in _message(ctx, cp)[0].get_flags()


@checkpoint_type("mail_message_flagged")
def message_flagged(ctx: EvalContext, cp: Checkpoint) -> bool:
    return "F" in _message(ctx, cp)[0].get_flags()


@checkpoint_type("mail_message_tags", default_compare="contains")
def message_tags(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The tag names of message ``target`` (``contains`` checks one tag; ``set`` all of them)."""
    message, folder = _message(ctx, cp)
    letters, names = _keywords(folder), _tag_names(ctx)
    keys = [letters[c] for c in message.get_flags() if c in letters]
    return sorted(names.get(key, key) for key in keys)


def _body_part(message: Message) -> Message | None:
    """The message's text: the first text/plain part that is not an attachment (a draft or message with
    attachments is multipart/mixed, its text the first part)."""
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not part.get_filename() and \
                part.get_content_disposition() != "attachment":
            return part
    return None


def _compose_text(message: Message, recipients: str) -> str:
    part = _body_part(message)
    body = part.get_payload(decode=True) if part is not None else b""
    charset = (part.get_content_charset() if part is not None else None) or "utf-8"
    text = body.decode(charset, errors="replace") if isinstance(body, bytes) else ""
    return f"To: {recipients}\nCc: {message.get('Cc', '')}\nSubject: {_subject(message)}\n\n{text}"


@checkpoint_type("mail_draft_text", default_compare="regex")
def draft_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """'To: ...\\nCc: ...\\nSubject: ...\\n\\nbody' of the draft whose subject is ``target``."""
    subject = require(cp.target, "draft subject")
    for message in _live(_folder(ctx, cp, "Drafts")):
        if _subject(message) == subject:
            return _compose_text(message, message.get("To", ""))
    raise CheckpointUnreadable(f"there is no draft with subject {subject!r}")


def _sent(ctx: EvalContext) -> list[tuple[Message, str]]:
    import email
    import json

    sink = _home(ctx) / "smtp-sink"
    found = []
    for path in sorted(sink.glob("*.eml")) if sink.is_dir() else []:
        envelope = json.loads(path.with_suffix(".json").read_text())
        found.append((email.message_from_bytes(path.read_bytes()), ", ".join(envelope["to"])))
    return found


@checkpoint_type("mail_sent_text", default_compare="regex")
def sent_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """'To: <envelope recipients>\\nCc: ...\\nSubject: ...\\n\\nbody' of the message the SMTP sink got with
    subject ``target``."""
    subject = require(cp.target, "subject")
    for message, recipients in _sent(ctx):
        if _subject(message) == subject:
            return _compose_text(message, recipients)
    raise CheckpointUnreadable(f"no message with subject {subject!r} was sent")


def _attachments(message: Message) -> list[Message]:
    """The named parts; an attached message (a forward as attachment) counts whole, as one file."""
    return [part for part in message.walk() if part.get_filename() and
            (not part.is_multipart() or part.get_content_type() == "message/rfc822")]


def _sent_message(ctx: EvalContext, subject: str) -> Message:
    for message, _ in _sent(ctx):
        if _subject(message) == subject:
            return message
    raise CheckpointUnreadable(f"no message with subject {subject!r} was sent")


def _relation(message: Message) -> str:
    """What a message Thunderbird wrote answers. A forward carries In-Reply-To as well (Thunderbird
    derives it from References), so X-Forwarded-Message-Id decides first."""
    forwarded = " ".join(str(message.get("X-Forwarded-Message-Id", "")).split())
    if forwarded:
        return f"forward of {forwarded}"
    replied = " ".join(str(message.get("In-Reply-To", "")).split())
    return f"reply to {replied}" if replied else "new"


@checkpoint_type("mail_sent_relation")
def sent_relation(ctx: EvalContext, cp: Checkpoint) -> str:
    """'reply to <id>', 'forward of <id>' or 'new' for the sent message with subject ``target``."""
    return _relation(_sent_message(ctx, require(cp.target, "subject")))


@checkpoint_type("mail_draft_relation")
def draft_relation(ctx: EvalContext, cp: Checkpoint) -> str:
    """'reply to <id>', 'forward of <id>' or 'new' for the draft with subject ``target``."""
    subject = require(cp.target, "draft subject")
    for message in _live(_folder(ctx, cp, "Drafts")):
        if _subject(message) == subject:
            return _relation(message)
    raise CheckpointUnreadable(f"there is no draft with subject {subject!r}")


@checkpoint_type("mail_draft_attachments", default_compare="contains")
def draft_attachments(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The attachment file names of the draft whose subject is ``target``."""
    subject = require(cp.target, "draft subject")
    for message in _live(_folder(ctx, cp, "Drafts")):
        if _subject(message) == subject:
            return sorted(str(part.get_filename()) for part in _attachments(message))
    raise CheckpointUnreadable(f"there is no draft with subject {subject!r}")


@checkpoint_type("mail_sent_attachments", default_compare="contains")
def sent_attachments(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The attachment file names of the message the SMTP sink got with subject ``target``."""
    message = _sent_message(ctx, require(cp.target, "subject"))
    return sorted(str(part.get_filename()) for part in _attachments(message))


@checkpoint_type("mail_sent_attachment_sha256")
def sent_attachment_sha256(ctx: EvalContext, cp: Checkpoint) -> str:
    """SHA-256 (hex) of the decoded attachment ``<name>`` of the sent message ``<subject>`` (target
    ``"<subject>#<name>"``)."""
    subject, _, name = require(cp.target, "'<subject>#<attachment name>' target").rpartition("#")
    for part in _attachments(_sent_message(ctx, subject)):
        if part.get_filename() == name:
            inner = part.get_payload() if part.get_content_type() == "message/rfc822" else None
            first = inner[0] if isinstance(inner, list) and inner else None
            data = first.as_bytes() if isinstance(first, Message) else part.get_payload(decode=True)
            return hashlib.sha256(data if isinstance(data, bytes) else b"").hexdigest()
    raise CheckpointUnreadable(f"the sent message {subject!r} has no attachment {name!r}")


def _saved_file(ctx: EvalContext, cp: Checkpoint) -> Path:
    path = require(cp.target, "workspace path")
    try:
        full = ctx.workspace.resolve(path)
    except Exception:
        raise CheckpointUnreadable(f"{path!r} is not a workspace path") from None
    if not full.is_file():
        raise CheckpointUnreadable(f"there is no file {path!r}")
    return full


@checkpoint_type("mail_file_sha256")
def file_sha256(ctx: EvalContext, cp: Checkpoint) -> str:
    """SHA-256 (hex) of the workspace file ``target`` (a saved attachment)."""
    return hashlib.sha256(_saved_file(ctx, cp).read_bytes()).hexdigest()


@checkpoint_type("mail_file_size")
def file_size(ctx: EvalContext, cp: Checkpoint) -> int:
    """The size in bytes of the workspace file ``target`` (a saved attachment)."""
    return _saved_file(ctx, cp).stat().st_size


@checkpoint_type("mail_sent_count")
def sent_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many messages the SMTP sink received."""
    return len(_sent(ctx))


def _contacts(ctx: EvalContext) -> list[dict[str, str]]:
    path = _home(ctx) / "saved" / "abook.sqlite"
    if not path.is_file():  # never opened: the address book is what contacts.json seeds
        return _seeded_contacts(ctx)
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT card, name, value FROM properties").fetchall()
    cards: dict[str, dict[str, str]] = {}
    for card, name, value in rows:
        cards.setdefault(card, {})[name] = value
    return list(cards.values())


def _seeded_contacts(ctx: EvalContext) -> list[dict[str, str]]:
    import json

    seed = ctx.workspace.root / "contacts.json"
    if not seed.is_file():
        return []
    cards = []
    for contact in json.loads(seed.read_text(encoding="utf-8")):
        card = {CONTACT_PROPERTIES[k]: v for k, v in contact.items() if k in CONTACT_PROPERTIES}
        lines = [f"{VCARD_ONLY[k]}:{v}" for k, v in contact.items() if k in VCARD_ONLY]
        card["_vCard"] = "\r\n".join(["BEGIN:VCARD", *lines, "END:VCARD"])
        cards.append(card)
    return cards


@checkpoint_type("mail_contact_value")
def contact_value(ctx: EvalContext, cp: Checkpoint) -> str:
    """Field ``<email>.<field>`` of the contact with that primary email."""
    address, _, field = require(cp.target, "'<email>.<field>' target").rpartition(".")
    if field not in CONTACT_PROPERTIES and field not in VCARD_ONLY:
        raise CheckpointUnreadable(f"unknown contact field {field!r}")
    for card in _contacts(ctx):
        if card.get("PrimaryEmail", "").lower() == address.lower():
            if field in VCARD_ONLY:
                return _vcard_value(card, VCARD_ONLY[field])
            return card.get(CONTACT_PROPERTIES[field], "")
    raise CheckpointUnreadable(f"there is no contact with email {address!r}")


@checkpoint_type("mail_contact_exists")
def contact_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    address = require(cp.target, "email").lower()
    return any(card.get("PrimaryEmail", "").lower() == address for card in _contacts(ctx))


def _filters(ctx: EvalContext) -> dict[str, dict[str, Any]]:
    """Filters of the IMAP account from msgFilterRules.dat: name -> enabled, conditions, actions."""
    path = _home(ctx) / "saved" / "msgFilterRules.dat"
    found: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    if not path.is_file():
        return found
    for key, value in re.findall(r'^(\w+)="((?:[^"\\]|\\.)*)"$', path.read_text(errors="replace"), re.M):
        value = value.replace('\\"', '"').replace("\\\\", "\\")
        if key == "name":
            current = found[value] = {"enabled": True, "conditions": [], "actions": []}
        elif current is None:
            continue
        elif key == "enabled":
            current["enabled"] = value == "yes"
        elif key == "action":
            current["actions"].append(value)
        elif key == "actionValue" and current["actions"]:
            if value.startswith("imap://"):
                value = value.split("/", 3)[3]
            current["actions"][-1] += f": {value}"
        elif key == "condition":
            current["conditions"] = re.findall(r"\(([^)]*)\)", value)
    return found


def _filter(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    name = require(cp.target, "filter name")
    found = _filters(ctx)
    if name not in found:
        raise CheckpointUnreadable(f"there is no filter {name!r}")
    return found[name]


@checkpoint_type("mail_filter_conditions", default_compare="contains")
def filter_conditions(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The conditions of filter ``target`` as Thunderbird stores them: 'subject,contains,invoice'."""
    conditions: list[str] = _filter(ctx, cp)["conditions"]
    return conditions


@checkpoint_type("mail_filter_actions", default_compare="contains")
def filter_actions(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The actions of filter ``target``: 'Move to folder: Receipts', 'Mark read', 'AddTag: $label1' ..."""
    actions: list[str] = _filter(ctx, cp)["actions"]
    return actions


@checkpoint_type("mail_filter_enabled")
def filter_enabled(ctx: EvalContext, cp: Checkpoint) -> bool:
    return bool(_filter(ctx, cp)["enabled"])


def _compose_windows(ctx: EvalContext) -> list[dict[str, Any]]:
    import json

    path = _home(ctx) / "saved" / "compose.json"
    if not path.is_file():  # Thunderbird never ran: the windows open are those the set-up seeds
        return _seeded_windows(ctx)
    windows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return windows


def _seeded_windows(ctx: EvalContext) -> list[dict[str, Any]]:
    import json

    seed = ctx.workspace.root / "compose-windows.json"
    if not seed.is_file():
        return []
    return [{"to": w.get("to", []), "cc": w.get("cc", []), "subject": w.get("subject", ""), "body": w.get("body", ""),
             "attachments": [{"name": Path(a).name} for a in w.get("attachments", [])]}
            for w in json.loads(seed.read_text(encoding="utf-8"))]


def _compose_window(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    subject = require(cp.target, "compose window subject")
    for window in _compose_windows(ctx):
        if window["subject"] == subject:
            return window
    raise CheckpointUnreadable(f"no compose window with subject {subject!r} is open")


@checkpoint_type("mail_compose_text", default_compare="regex")
def compose_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """'To: ...\\nCc: ...\\nSubject: ...\\n\\nbody' of the open compose window whose subject is ``target``."""
    window = _compose_window(ctx, cp)
    return (f"To: {', '.join(window['to'])}\nCc: {', '.join(window['cc'])}\nSubject: {window['subject']}\n\n"
            f"{window['body']}")


@checkpoint_type("mail_compose_attachments", default_compare="contains")
def compose_attachments(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The attachment names of the open compose window whose subject is ``target``."""
    return sorted(str(a["name"]) for a in _compose_window(ctx, cp)["attachments"])


@checkpoint_type("mail_compose_subjects", default_compare="contains")
def compose_subjects(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The subjects of the open compose windows (``contains`` checks one is open)."""
    return sorted(str(w["subject"]) for w in _compose_windows(ctx))


@checkpoint_type("mail_compose_count")
def compose_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many compose windows are open."""
    return len(_compose_windows(ctx))
