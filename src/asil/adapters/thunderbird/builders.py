"""Building a task's mailbox: a Dovecot-style Maildir++ folder from a JSON spec.

Spec: ``{"folders": ["Archive", "Projects/2026"], "messages": [{"folder": "INBOX", "subject": ...,
"from": ..., "to": ..., "cc": ..., "date": "2026-11-02T10:00:00Z", "body": ..., "read": false,
"flagged": false, "tags": ["Important"], "attachments": [{"name": "invoice.pdf",
"content_type": "application/pdf", "text": "%PDF-1.4 ..."}]}], "generate": {"folder": "INBOX", "count": 5000}}``.
Drafts, Sent and Trash always exist. Sub-folders are ``.A.B`` directories (Dovecot's "."
separator); tags become IMAP keywords listed in ``dovecot-keywords`` (Thunderbird's own keys for
its five standard tags). A message with ``attachments`` (each ``text`` or ``base64`` content) is a
multipart/mixed message built with :mod:`email`.
"""

from __future__ import annotations

import base64
import binascii
import email.header
import email.message
import email.policy
import email.utils
import os
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from asil.protocol import AsilError
from asil.tasks.model import SetupFile, Task

STANDARD_FOLDERS = ("Drafts", "Sent", "Trash")
TAG_KEYS = {"important": "$label1", "work": "$label2", "personal": "$label3", "to do": "$label4", "later": "$label5"}
FOLDER_NAME = re.compile(r"^[^./\\#%*\x00-\x1f]{1,60}$")
UID_VALIDITY = 1700000000
MESSAGE_FIELDS = {"folder", "subject", "from", "to", "cc", "date", "body", "read", "flagged", "tags", "message_id",
                  "replied", "attachments"}
ATTACHMENT_FIELDS = {"name", "content_type", "text", "base64"}


class MailboxSpecError(AsilError):
    code = "bad_setup"


def keyword_for(tag: str) -> str:
    """The IMAP keyword Thunderbird uses for a tag name (its standard tags have $labelN keys)."""
    return TAG_KEYS.get(tag.lower(), re.sub(r"[^a-z0-9_$]", "_", tag.lower()))


def folder_dir(root: Path, path: str) -> Path:
    """The directory of folder ``path`` ("INBOX", "Projects/2026") in a Maildir++ tree."""
    if path.upper() == "INBOX":
        return root
    parts = path.split("/")
    if not all(FOLDER_NAME.match(p) for p in parts):
        raise MailboxSpecError(f"Folder name {path!r} is not allowed (no '.', '#', '%', '*' or control characters).")
    return root / ("." + ".".join(parts))


def _make_folder(root: Path, path: str) -> Path:
    folder = folder_dir(root, path)
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    if folder != root:
        (folder / "maildirfolder").touch()
    return folder


def _header(name: str, value: str) -> str:
    """One header line; non-ASCII text is RFC 2047 encoded (addresses keep their ASCII parts)."""
    if value.isascii():
        return f"{name}: {value}\r\n"
    return f"{name}: {email.header.Header(value, 'utf-8', header_name=name).encode()}\r\n"


def _email(item: dict[str, Any], index: int) -> bytes:
    """The message as RFC 5322 bytes (formatted directly: building thousands with EmailMessage is slow)."""
    when = datetime.fromisoformat(item.get("date", "2026-11-01T09:00:00+00:00").replace("Z", "+00:00"))
    headers: list[tuple[str, str]] = [("From", item.get("from", "Alice Example <alice@example.com>")),
               ("To", item.get("to", "ASIL User <user@example.com>")), ("Cc", item.get("cc", "")),
               ("Subject", item.get("subject", f"Message {index}")), ("Date", email.utils.format_datetime(when)),
               ("Message-ID", item.get("message_id", f"<asil-{index}@example.com>")), ("MIME-Version", "1.0"),
               ("Content-Type", "text/plain; charset=utf-8"), ("Content-Transfer-Encoding", "8bit")]
    body = str(item.get("body", f"This is message {index}.\n")).replace("\r\n", "\n").replace("\n", "\r\n")
    if item.get("attachments"):
        return _multipart(headers[:6], body, item["attachments"], index)
    return ("".join(_header(k, v) for k, v in headers if v) + "\r\n").encode("ascii") + body.encode("utf-8")


def _multipart(headers: list[tuple[str, str]], body: str, attachments: list[dict[str, Any]], index: int) -> bytes:
    """A multipart/mixed message: the text, then each attachment (base64, with its file name)."""
    message = email.message.EmailMessage(policy=email.policy.SMTP)
    for name, value in headers:
        if value:
            message[name] = value
    message.set_content(body.replace("\r\n", "\n"))
    for number, spec in enumerate(attachments, start=1):
        unknown = set(spec) - ATTACHMENT_FIELDS
        if unknown or not spec.get("name") or ("text" in spec) == ("base64" in spec):
            raise MailboxSpecError(f"Message {index}, attachment {number}: give 'name' and one of 'text' or 'base64' "
                                   f"(known fields: {sorted(ATTACHMENT_FIELDS)}).")
        try:
            data = spec["text"].encode("utf-8") if "text" in spec else base64.b64decode(spec["base64"], validate=True)
        except (binascii.Error, AttributeError):
            raise MailboxSpecError(f"Message {index}, attachment {number}: 'base64' is not base64 text.") from None
        maintype, _, subtype = str(spec.get("content_type", "application/octet-stream")).partition("/")
        message.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream", filename=spec["name"])
    message.set_boundary(f"asil-part-boundary-{index}")  # the same bytes on every build
    return message.as_bytes()


def build_maildir(target: Path, spec: dict[str, Any]) -> None:
    """Write the Maildir ``spec`` describes at ``target`` (replacing whatever was there)."""
    if target.exists():
        shutil.rmtree(target)
    staged = target.with_name(f".{target.name}.asil-build")
    shutil.rmtree(staged, ignore_errors=True)
    _make_folder(staged, "INBOX")
    for path in (*STANDARD_FOLDERS, *spec.get("folders", [])):
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):  # parents are real folders too, not placeholders
            _make_folder(staged, "/".join(parts[:depth]))
    items = list(spec.get("messages", []))
    generate = spec.get("generate")
    if generate:
        start = datetime(2026, 1, 1, tzinfo=UTC)
        items += [{"folder": generate.get("folder", "INBOX"), "subject": f"Report {n:05d} for project {n % 37}",
                   "from": f"Sender {n % 50} <sender{n % 50}@example.com>", "read": n % 3 != 0,
                   "date": (start + timedelta(minutes=37 * n)).isoformat(), "body": f"Automatic report number {n}.\n"}
                  for n in range(int(generate["count"]))]
    keywords = sorted({keyword_for(tag) for item in items for tag in item.get("tags", [])})
    if len(keywords) > 26:
        raise MailboxSpecError("A mailbox can hold at most 26 different tags.")
    # Each folder's messages get IMAP UIDs 1, 2, ... in spec order: the builder writes dovecot-uidlist
    # itself, so message ids ("INBOX#2") are the same in every build.
    listed: dict[str, list[str]] = {}
    for index, item in enumerate(items, start=1):
        unknown = set(item) - MESSAGE_FIELDS
        if unknown:
            raise MailboxSpecError(f"Message {index} has unknown fields {sorted(unknown)}; known: {sorted(MESSAGE_FIELDS)}.")
        path = item.get("folder", "INBOX")
        folder = _make_folder(staged, path)
        when = datetime.fromisoformat(item.get("date", "2026-11-01T09:00:00+00:00").replace("Z", "+00:00")).timestamp()
        base = f"{int(when)}.M{index}P1.asil"
        flags = "".join(sorted(("S" if item.get("read") else "") + ("F" if item.get("flagged") else "")
                               + ("R" if item.get("replied") else "")))
        flags += "".join(sorted(chr(ord("a") + keywords.index(keyword_for(t))) for t in item.get("tags", [])))
        file = folder / "cur" / f"{base}:2,{flags}"
        file.write_bytes(_email(item, index))
        os.utime(file, (when, when))
        listed.setdefault(path, []).append(base)
    for path in {*listed, "INBOX", *STANDARD_FOLDERS, *spec.get("folders", [])}:
        folder = folder_dir(staged, path)
        names = listed.get(path, [])
        (folder / "dovecot-uidlist").write_text(
            f"3 V{UID_VALIDITY} N{len(names) + 1}\n" + "".join(f"{n} :{b}\n" for n, b in enumerate(names, 1)))
        if keywords:
            (folder / "dovecot-keywords").write_text("".join(f"{n} {k}\n" for n, k in enumerate(keywords)))
    staged.rename(target)


def build_maildir_file(item: SetupFile, task: Task, target: Path) -> None:
    """A Maildir folder at ``path`` built from the mailbox spec in ``content``."""
    if not isinstance(item.content, dict):
        raise MailboxSpecError(f"Task {task.id}: maildir {item.path!r} needs content: a mailbox spec object.")
    build_maildir(target, item.content)


def build_contacts_file(item: SetupFile, task: Task, target: Path) -> None:
    """A JSON list of contacts (add_contact fields) that the adapter loads into a new profile's address book."""
    import json

    if not isinstance(item.content, list):
        raise MailboxSpecError(f"Task {task.id}: contacts {item.path!r} needs content: a list of contact objects.")
    target.write_text(json.dumps(item.content, indent=1), encoding="utf-8")


def build_compose_windows_file(item: SetupFile, task: Task, target: Path) -> None:
    """A JSON list of compose windows (open_compose params) that a task starts with open."""
    import json

    if not isinstance(item.content, list) or not all(isinstance(w, dict) for w in item.content):
        raise MailboxSpecError(f"Task {task.id}: compose windows {item.path!r} need content: a list of objects "
                               "with to, cc, subject, body and attachments.")
    target.write_text(json.dumps(item.content, indent=1), encoding="utf-8")
