"""The independent raw validator for Thunderbird tasks: a second reader of the persisted mail state.

It shares no reading code with the checkpoint types: Maildir folders are listed by hand (file
names carry the flags after ``:2,``), messages parsed with :mod:`email`'s bytes parser, the
address book read with a plain SQL join over ``abook.sqlite``, filters with a line parser of
``msgFilterRules.dat``, and sent mail from the sink's envelope files. Anything unreadable is a
failed checkpoint (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

STANDARD_TAGS = {"$label1": "Important", "$label2": "Work", "$label3": "Personal", "$label4": "To Do",
                 "$label5": "Later"}
FIELDS = {"first_name": "FirstName", "last_name": "LastName", "display_name": "DisplayName", "email": "PrimaryEmail",
          "nickname": "NickName"}
VCARD = {"phone": "tel", "company": "org", "notes": "note"}


class RawMailError(Exception):
    """The state cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read straight from the files; False when in doubt."""
    try:
        actual = READERS[cp.type](cp, workspace)
    except (RawMailError, KeyError, ValueError, TypeError, IndexError, OSError, sqlite3.Error):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


# ---------------------------------------------------------------- Maildir by hand
def _folder_path(workspace: Workspace, cp: Checkpoint, name: str) -> Path:
    root = Path(workspace.root, cp.document or "mail")
    path = root if name.upper() == "INBOX" else root / ("." + name.replace("/", "."))
    if not (path / "cur").is_dir() or "." in name or ".." in Path(name).parts:
        raise RawMailError(f"no folder {name}")
    return path


def _parse(path: Path) -> EmailMessage:
    with open(path, "rb") as handle:
        message = BytesParser(policy=policy.default).parse(handle)
    assert isinstance(message, EmailMessage)
    return message


def _messages(folder: Path) -> list[tuple[EmailMessage, str]]:
    """(message, flag letters) of every message not marked deleted, from cur/ and new/."""
    found = []
    for sub in ("new", "cur"):
        for entry in sorted((folder / sub).iterdir()):
            flags = entry.name.split(":2,", 1)[1] if ":2," in entry.name else ""
            if "T" not in flags and entry.is_file():
                found.append((_parse(entry), flags))
    return found


def _by_subject(workspace: Workspace, cp: Checkpoint) -> tuple[EmailMessage, str, Path]:
    name, _, subject = str(cp.target).partition("#")
    folder = _folder_path(workspace, cp, name)
    for message, flags in _messages(folder):
        if str(message["Subject"] or "") == subject:
            return message, flags, folder
    raise RawMailError("no such message")


def _tags(workspace: Workspace, cp: Checkpoint) -> list[str]:
    _, flags, folder = _by_subject(workspace, cp)
    keywords = {}
    keyword_file = folder / "dovecot-keywords"
    if keyword_file.is_file():
        for line in keyword_file.read_text().splitlines():
            number, key = line.split(" ", 1)
            keywords[chr(97 + int(number))] = key
    names = dict(STANDARD_TAGS)
    prefs = Path(workspace.root, ".asil", "thunderbird", "saved", "prefs.js")
    if prefs.is_file():
        for line in prefs.read_text(errors="replace").splitlines():
            hit = re.match(r'user_pref\("mailnews\.tags\.(.+)\.tag", "(.*)"\);$', line)
            if hit:
                names[hit.group(1)] = hit.group(2)
    return sorted(names.get(keywords[c], keywords[c]) for c in flags if c.islower())


def _text(message: EmailMessage, to: str) -> str:
    body = message.get_body(("plain",))
    content = body.get_content() if body is not None else ""
    return f"To: {to}\nCc: {message['Cc'] or ''}\nSubject: {message['Subject'] or ''}\n\n{content}"


def _draft(cp: Checkpoint, workspace: Workspace) -> str:
    for message, _ in _messages(_folder_path(workspace, cp, "Drafts")):
        if str(message["Subject"] or "") == cp.target:
            return _text(message, str(message["To"] or ""))
    raise RawMailError("no such draft")


def _sent(workspace: Workspace) -> list[tuple[EmailMessage, str]]:
    sink = Path(workspace.root, ".asil", "thunderbird", "smtp-sink")
    out = []
    for eml in sorted(sink.glob("*.eml")) if sink.is_dir() else []:
        envelope = json.loads(eml.with_suffix(".json").read_text())
        out.append((_parse(eml), ", ".join(envelope["to"])))
    return out


def _sent_text(cp: Checkpoint, workspace: Workspace) -> str:
    for message, to in _sent(workspace):
        if str(message["Subject"] or "") == cp.target:
            return _text(message, to)
    raise RawMailError("not sent")


def _named_parts(message: EmailMessage) -> dict[str, bytes]:
    """File name -> decoded bytes of every attachment (iter_attachments, recursing into nested multiparts)."""
    found: dict[str, bytes] = {}
    for part in message.iter_attachments():
        if part.get_content_type() == "message/rfc822" and part.get_filename():  # a forwarded message, whole
            inner = part.get_payload()
            first = inner[0] if isinstance(inner, list) and inner else None
            found[str(part.get_filename())] = first.as_bytes() if isinstance(first, EmailMessage) else b""
        elif part.is_multipart():
            assert isinstance(part, EmailMessage)
            found.update(_named_parts(part))
        elif part.get_filename():
            data = part.get_payload(decode=True)
            found[str(part.get_filename())] = data if isinstance(data, bytes) else b""
    return found


def _draft_files(cp: Checkpoint, workspace: Workspace) -> list[str]:
    for message, _ in _messages(_folder_path(workspace, cp, "Drafts")):
        if str(message["Subject"] or "") == cp.target:
            return sorted(_named_parts(message))
    raise RawMailError("no such draft")


def _sent_files(subject: str, workspace: Workspace) -> dict[str, bytes]:
    for message, _ in _sent(workspace):
        if str(message["Subject"] or "") == subject:
            return _named_parts(message)
    raise RawMailError("not sent")


def _sent_file_hash(cp: Checkpoint, workspace: Workspace) -> str:
    subject, name = str(cp.target).rsplit("#", 1)
    return hashlib.sha256(_sent_files(subject, workspace)[name]).hexdigest()


def _workspace_file(cp: Checkpoint, workspace: Workspace) -> Path:
    text = str(cp.target)
    full = Path(workspace.root, text).resolve()
    if Path(text).is_absolute() or ".." in Path(text).parts or Path(workspace.root).resolve() not in full.parents:
        raise RawMailError("outside the workspace")
    if not full.is_file():
        raise RawMailError("no such file")
    return full


# ---------------------------------------------------------------- profile files
def _cards(workspace: Workspace) -> list[dict[str, str]]:
    path = Path(workspace.root, ".asil", "thunderbird", "saved", "abook.sqlite")
    if not path.is_file():  # the untouched state: the seed file
        seed = Path(workspace.root, "contacts.json")
        entries = json.loads(seed.read_text(encoding="utf-8")) if seed.is_file() else []
        names = {**FIELDS, **{k: v.upper() for k, v in VCARD.items()}}
        return [{names[k]: v for k, v in entry.items() if k in names} | {"_vCard": "".join(
            f"{VCARD[k].upper()}:{v}\r\n" for k, v in entry.items() if k in VCARD)} for entry in entries]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT p.card, p.name, p.value FROM properties p ORDER BY p.card").fetchall()
    finally:
        db.close()
    cards: dict[str, dict[str, str]] = {}
    for card, name, value in rows:
        cards.setdefault(card, {})[name] = value
    return list(cards.values())


def _contact(cp: Checkpoint, workspace: Workspace) -> str:
    address, field = str(cp.target).rsplit(".", 1)
    (card,) = [c for c in _cards(workspace) if c.get("PrimaryEmail", "").lower() == address.lower()][:1]
    if field in VCARD:
        unfolded = re.sub(r"\r?\n[ \t]", "", card.get("_vCard", ""))
        hit = re.search(rf"^{VCARD[field]}(?:;[^:\r\n]*)?:(.*?)\r?$", unfolded, re.I | re.M)
        if hit is None:
            return ""
        parts = re.split(r"(?<!\\);", hit.group(1)) if field == "company" else [hit.group(1)]
        return " ".join(re.sub(r"\\([,;])", r"\1", p).replace("\\n", "\n") for p in parts if p).strip()
    return card.get(FIELDS[field], "")


def _filter_blocks(workspace: Workspace) -> dict[str, list[tuple[str, str]]]:
    path = Path(workspace.root, ".asil", "thunderbird", "saved", "msgFilterRules.dat")
    blocks: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in path.read_text(errors="replace").splitlines() if path.is_file() else []:
        key, _, raw = line.partition("=")
        value = raw.strip('"').replace('\\"', '"')
        if key == "name":
            current = blocks.setdefault(value, [])
        elif current is not None:
            current.append((key, value))
    return blocks


def _filter(cp: Checkpoint, workspace: Workspace) -> dict[str, Any]:
    lines = _filter_blocks(workspace)[str(cp.target)]
    actions: list[str] = []
    conditions: list[str] = []
    enabled = True
    for key, value in lines:
        if key == "enabled":
            enabled = value == "yes"
        elif key == "action":
            actions.append(value)
        elif key == "actionValue":
            actions[-1] = f"{actions[-1]}: {re.sub(r'^imap://[^/]+/', '', value)}"
        elif key == "condition":
            conditions = [part.split(")")[0] for part in value.split("(")[1:]]
    return {"enabled": enabled, "actions": actions, "conditions": conditions}


# ---------------------------------------------------------------- replies and forwards
def _answers(message: EmailMessage) -> str:
    ids = {name: re.sub(r"\s+", " ", str(message.get(name) or "")).strip()
           for name in ("X-Forwarded-Message-Id", "In-Reply-To")}
    if ids["X-Forwarded-Message-Id"]:
        return "forward of " + ids["X-Forwarded-Message-Id"]
    return "reply to " + ids["In-Reply-To"] if ids["In-Reply-To"] else "new"


def _sent_answers(cp: Checkpoint, workspace: Workspace) -> str:
    found = [message for message, _ in _sent(workspace) if message["Subject"] == cp.target]
    if not found:
        raise RawMailError("not sent")
    return _answers(found[0])


def _draft_answers(cp: Checkpoint, workspace: Workspace) -> str:
    found = [message for message, _ in _messages(_folder_path(workspace, cp, "Drafts"))
             if message["Subject"] == cp.target]
    if not found:
        raise RawMailError("no such draft")
    return _answers(found[0])


# ---------------------------------------------------------------- compose windows (the adapter's record)
def _windows(workspace: Workspace) -> list[dict[str, Any]]:
    path = Path(workspace.root, ".asil", "thunderbird", "saved", "compose.json")
    if path.exists():
        return list(json.loads(path.read_bytes()))
    seed = Path(workspace.root, "compose-windows.json")  # the untouched state: the set-up's windows
    entries = json.loads(seed.read_bytes()) if seed.exists() else []
    return [{"to": [], "cc": [], "subject": "", "body": ""} | dict(entry) |
            {"attachments": [{"name": str(name).rsplit("/", 1)[-1]} for name in entry.get("attachments", [])]}
            for entry in entries]


def _window(cp: Checkpoint, workspace: Workspace) -> dict[str, Any]:
    (window,) = [w for w in _windows(workspace) if w["subject"] == cp.target][:1]
    return dict(window)


def _window_text(cp: Checkpoint, workspace: Workspace) -> str:
    window = _window(cp, workspace)
    head = "\n".join([f"To: {', '.join(window['to'])}", f"Cc: {', '.join(window['cc'])}",
                      f"Subject: {window['subject']}"])
    return head + "\n\n" + str(window["body"])


READERS: dict[str, Any] = {
    "mail_subjects": lambda cp, ws: sorted(str(m["Subject"] or "") for m, _ in
                                           _messages(_folder_path(ws, cp, str(cp.target)))),
    "mail_folder_count": lambda cp, ws: len(_messages(_folder_path(ws, cp, str(cp.target)))),
    "mail_folder_exists": lambda cp, ws: (Path(ws.root, cp.document or "mail", "." + str(cp.target).replace("/", "."),
                                               "cur").is_dir() if str(cp.target).upper() != "INBOX" else True),
    "mail_message_read": lambda cp, ws: "S" in _by_subject(ws, cp)[1],
    "mail_message_flagged": lambda cp, ws: "F" in _by_subject(ws, cp)[1],
    "mail_message_tags": lambda cp, ws: _tags(ws, cp),
    "mail_draft_text": _draft,
    "mail_sent_text": _sent_text,
    "mail_sent_count": lambda cp, ws: len(_sent(ws)),
    "mail_draft_attachments": _draft_files,
    "mail_sent_attachments": lambda cp, ws: sorted(_sent_files(str(cp.target), ws)),
    "mail_sent_attachment_sha256": _sent_file_hash,
    "mail_file_sha256": lambda cp, ws: hashlib.sha256(_workspace_file(cp, ws).read_bytes()).hexdigest(),
    "mail_file_size": lambda cp, ws: len(_workspace_file(cp, ws).read_bytes()),
    "mail_contact_value": _contact,
    "mail_contact_exists": lambda cp, ws: any(c.get("PrimaryEmail", "").lower() == str(cp.target).lower()
                                              for c in _cards(ws)),
    "mail_filter_conditions": lambda cp, ws: _filter(cp, ws)["conditions"],
    "mail_filter_actions": lambda cp, ws: _filter(cp, ws)["actions"],
    "mail_filter_enabled": lambda cp, ws: _filter(cp, ws)["enabled"],
    "mail_sent_relation": _sent_answers,
    "mail_draft_relation": _draft_answers,
    "mail_compose_text": _window_text,
    "mail_compose_attachments": lambda cp, ws: sorted(a["name"] for a in _window(cp, ws)["attachments"]),
    "mail_compose_subjects": lambda cp, ws: sorted(w["subject"] for w in _windows(ws)),
    "mail_compose_count": lambda cp, ws: len(_windows(ws)),
}
