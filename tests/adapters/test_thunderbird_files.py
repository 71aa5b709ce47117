"""The Thunderbird adapter's program-free parts: the Maildir builder, the SMTP sink, the persisted-state
readers (checkpoints and the raw validator must agree) and parameter validation."""

from __future__ import annotations

import email
import email.message
import email.policy
import hashlib
import json
import mailbox
import smtplib
import sqlite3
from pathlib import Path

import pytest

from asil.adapters.thunderbird import actions as act
from asil.adapters.thunderbird.builders import MailboxSpecError, build_maildir
from asil.adapters.thunderbird.validator import raw_judge
from asil.apps.mailserver import SmtpSink
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, CheckpointUnreadable, EvalContext
from asil.evaluate.compare import compare
from asil.protocol import InvalidAction
from asil.workspace import Workspace

SPEC = {"folders": ["Archive", "Projects/2026"], "messages": [
    {"subject": "First", "read": True, "tags": ["Important", "Work"]},
    {"subject": "Second", "flagged": True},
    {"folder": "Projects/2026", "subject": "Deep", "tags": ["Work"]}]}


def verdict(ws: Workspace, **fields: object) -> tuple[bool | None, bool]:
    """(checkpoint verdict or None when unreadable, raw verdict)."""
    import asil.adapters.thunderbird.checkpoints  # noqa: F401  (registers the types)

    cp = Checkpoint(app="thunderbird", document="mail", **fields)  # type: ignore[arg-type]
    kind = CHECKPOINT_TYPES[cp.type]
    try:
        actual = kind.read(EvalContext(ws), cp)
        ours: bool | None = compare(cp.compare or kind.default_compare, actual, cp.expected, cp.tolerance)
    except CheckpointUnreadable:
        ours = None
    return ours, raw_judge(cp, ws)


def test_the_builder_writes_a_dovecot_maildir_with_fixed_uids(tmp_path: Path) -> None:
    build_maildir(tmp_path / "mail", SPEC)
    root = tmp_path / "mail"
    assert (root / "dovecot-uidlist").read_text().splitlines()[1:] == [
        f"{n} :{name.split(':2,')[0]}" for n, name in enumerate(sorted(p.name for p in (root / "cur").iterdir()), 1)]
    assert (root / "dovecot-keywords").read_text() == "0 $label1\n1 $label2\n"
    names = sorted(p.name.split(":2,")[1] for p in (root / "cur").iterdir())
    assert names == ["F", "Sab"]
    assert (root / ".Projects" / "maildirfolder").is_file() and (root / ".Projects.2026" / "cur").is_dir()
    assert [m["Subject"] for m in mailbox.Maildir(root / ".Projects.2026", create=False)] == ["Deep"]


def test_bad_specs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(MailboxSpecError, match="not allowed"):
        build_maildir(tmp_path / "a", {"folders": ["bad.name"]})
    with pytest.raises(MailboxSpecError, match="unknown fields"):
        build_maildir(tmp_path / "b", {"messages": [{"subjekt": "typo"}]})


def test_checkpoints_and_raw_validator_agree_on_a_built_mailbox(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    build_maildir(ws.root / "mail", SPEC)
    cases = [
        ({"type": "mail_subjects", "target": "INBOX", "expected": "First"}, True),
        ({"type": "mail_subjects", "target": "Archive", "expected": "First"}, False),
        ({"type": "mail_folder_count", "target": "INBOX", "expected": 2}, True),
        ({"type": "mail_folder_exists", "target": "Projects/2026", "expected": True}, True),
        ({"type": "mail_folder_exists", "target": "Receipts", "expected": True}, False),
        ({"type": "mail_message_read", "target": "INBOX#First", "expected": True}, True),
        ({"type": "mail_message_flagged", "target": "INBOX#First", "expected": True}, False),
        ({"type": "mail_message_flagged", "target": "INBOX#Second", "expected": True}, True),
        ({"type": "mail_message_tags", "target": "INBOX#First", "expected": ["Important", "Work"],
          "compare": "set"}, True),
        ({"type": "mail_message_tags", "target": "Projects/2026#Deep", "expected": "Work"}, True),
        ({"type": "mail_message_read", "target": "INBOX#Missing", "expected": False}, None),
        ({"type": "mail_sent_count", "expected": 0}, True),
        ({"type": "mail_contact_exists", "target": "bob@example.com", "expected": False}, True),
    ]
    for fields, expected in cases:
        ours, raw = verdict(ws, **fields)
        assert ours == expected, fields
        assert raw == bool(expected), fields


def test_profile_readers_agree_on_contacts_filters_and_sent_mail(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    build_maildir(ws.root / "mail", {})
    saved = ws.private("thunderbird") / "saved"
    saved.mkdir(parents=True)
    with sqlite3.connect(saved / "abook.sqlite") as db:
        db.execute("CREATE TABLE properties (card TEXT, name TEXT, value TEXT)")
        vcard = "BEGIN:VCARD\r\nVERSION:4.0\r\nEMAIL;PREF=1:bob@example.com\r\nTEL:+1 555 0100\r\nORG:ACME;Sales\r\nEND:VCARD\r\n"
        db.executemany("INSERT INTO properties VALUES (?, ?, ?)", [
            ("u1", "PrimaryEmail", "bob@example.com"), ("u1", "LastName", "Jones"), ("u1", "_vCard", vcard)])
    db.close()
    (saved / "msgFilterRules.dat").write_text(
        'version="9"\nlogging="no"\nname="Bills"\nenabled="yes"\ntype="17"\naction="Move to folder"\n'
        'actionValue="imap://user@127.0.0.1/Receipts"\naction="Mark read"\n'
        'condition="AND (subject,contains,invoice) AND (from,is,billing@example.com)"\n')
    sink = ws.private("thunderbird") / "smtp-sink"
    sink.mkdir()
    (sink / "0001.eml").write_bytes(b"Subject: Hi\r\nTo: a@example.com\r\nCc: c@example.com\r\n\r\nHello there\r\n")
    (sink / "0001.json").write_text(json.dumps({"from": "u@example.com", "to": ["a@example.com", "c@example.com"]}))
    cases = [
        ({"type": "mail_contact_value", "target": "bob@example.com.last_name", "expected": "Jones"}, True),
        ({"type": "mail_contact_value", "target": "bob@example.com.phone", "expected": "+1 555 0100"}, True),
        ({"type": "mail_contact_value", "target": "bob@example.com.company", "expected": "ACME Sales"}, True),
        ({"type": "mail_contact_value", "target": "bob@example.com.first_name", "expected": "Bob"}, False),
        ({"type": "mail_filter_conditions", "target": "Bills", "expected": "from,is,billing@example.com"}, True),
        ({"type": "mail_filter_actions", "target": "Bills", "expected": "Move to folder: Receipts"}, True),
        ({"type": "mail_filter_actions", "target": "Bills", "expected": "Mark read"}, True),
        ({"type": "mail_filter_enabled", "target": "Bills", "expected": True}, True),
        ({"type": "mail_filter_enabled", "target": "Other", "expected": True}, None),
        ({"type": "mail_sent_text", "target": "Hi", "expected": r"To: a@example\.com, c@example\.com"}, True),
        ({"type": "mail_sent_text", "target": "Hi", "expected": r"Hello there"}, True),
        ({"type": "mail_sent_count", "expected": 1}, True),
    ]
    for fields, expected in cases:
        ours, raw = verdict(ws, **fields)
        assert ours == expected, fields
        assert raw == bool(expected), fields


def test_the_smtp_sink_stores_each_message_with_its_envelope(tmp_path: Path) -> None:
    sink = SmtpSink(tmp_path / "sink")
    try:
        with smtplib.SMTP("127.0.0.1", sink.port, timeout=5) as client:
            client.sendmail("me@example.com", ["you@example.com", "them@example.com"],
                            b"Subject: Test\r\n\r\n.leading dot\r\nbody\r\n")
    finally:
        sink.stop()
    assert (tmp_path / "sink" / "0001.eml").read_bytes() == b"Subject: Test\r\n\r\n.leading dot\r\nbody\r\n"
    envelope = json.loads((tmp_path / "sink" / "0001.json").read_text())
    assert envelope["from"] == "me@example.com" and envelope["to"] == ["you@example.com", "them@example.com"]


@pytest.mark.parametrize(("model", "params", "needle"), [
    (act.SetFlags, {"messages": ["INBOX#1"]}, "read and/or flagged"),
    (act.SetFlags, {"messages": ["INBOX"], "read": True}, "messages.0"),
    (act.MoveMessages, {"messages": ["INBOX#1"], "folder": "a.b"}, "folder"),
    (act.Compose, {"to": ["nobody"], "subject": "x"}, "to.0"),
    (act.Compose, {"to": ["a@example.com"], "subject": "x", "bcc": ["b@example.com"]}, "bcc"),
    (act.CreateFilter, {"name": "F", "conditions": [{"field": "subject", "value": "x"}],
                        "actions": [{"type": "add_tag"}]}, "add_tag needs 'tag'"),
    (act.AddContact, {"phone": "123"}, "email or a name"),
])
def test_bad_parameters_are_one_clear_sentence(model: type[act.Params], params: dict[str, object], needle: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        act.parse_params(model, params, "the function")
    assert needle in caught.value.message and caught.value.message.endswith(".")


def test_before_thunderbird_runs_the_address_book_is_the_seed_file(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    build_maildir(ws.root / "mail", {})
    (ws.root / "contacts.json").write_text(json.dumps([{"first_name": "Bob", "email": "bob@example.com",
                                                        "phone": "+1 555 0199"}]))
    for fields, expected in [
        ({"type": "mail_contact_exists", "target": "bob@example.com", "expected": True}, True),
        ({"type": "mail_contact_value", "target": "bob@example.com.first_name", "expected": "Bob"}, True),
        ({"type": "mail_contact_value", "target": "bob@example.com.phone", "expected": "+1 555 0199"}, True),
        ({"type": "mail_contact_exists", "target": "carol@example.com", "expected": True}, False),
    ]:
        ours, raw = verdict(ws, **fields)
        assert ours == expected and raw == expected, fields


PDF = "%PDF-1.4\n% invoice 1042\n%%EOF\n"
ATTACHED = {"folders": [], "messages": [
    {"subject": "Invoice", "body": "See the attachment.\n",
     "attachments": [{"name": "invoice.pdf", "content_type": "application/pdf", "text": PDF},
                     {"name": "logo.png", "content_type": "image/png", "base64": "iVBORw0KGgo="}]},
    {"folder": "Drafts", "subject": "Draft with file",
     "attachments": [{"name": "notes.txt", "content_type": "text/plain", "text": "draft notes\n"}]}]}


def test_the_builder_seeds_attachments_the_same_way_every_time(tmp_path: Path) -> None:
    build_maildir(tmp_path / "a", ATTACHED)
    build_maildir(tmp_path / "b", ATTACHED)
    (first,) = (tmp_path / "a" / "cur").iterdir()
    assert first.read_bytes() == next((tmp_path / "b" / "cur").iterdir()).read_bytes()  # stable boundary
    message = email.message_from_bytes(first.read_bytes(), policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    parts = {p.get_filename(): p for p in message.iter_attachments()}
    assert parts["invoice.pdf"].get_content_type() == "application/pdf"
    assert parts["invoice.pdf"].get_payload(decode=True) == PDF.encode()
    assert parts["logo.png"].get_payload(decode=True) == b"\x89PNG\r\n\x1a\n"
    assert message.get_body(("plain",)) is not None


@pytest.mark.parametrize("attachment, needle", [
    ({"name": "a.txt"}, "one of 'text' or 'base64'"),
    ({"name": "a.txt", "text": "x", "base64": "eA=="}, "one of 'text' or 'base64'"),
    ({"text": "x"}, "give 'name'"),
    ({"name": "a.bin", "base64": "not base64!"}, "is not base64"),
    ({"name": "a.txt", "text": "x", "size": 3}, "known fields"),
])
def test_bad_attachment_specs_are_refused(tmp_path: Path, attachment: dict[str, str], needle: str) -> None:
    with pytest.raises(MailboxSpecError, match=needle):
        build_maildir(tmp_path / "mail", {"messages": [{"subject": "x", "attachments": [attachment]}]})
    assert not (tmp_path / "mail").exists()


def test_attachment_readers_agree_on_saved_files_drafts_and_sent_mail(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    build_maildir(ws.root / "mail", ATTACHED)
    (ws.root / "invoices").mkdir()
    (ws.root / "invoices" / "invoice.pdf").write_text(PDF)
    sink = ws.private("thunderbird") / "smtp-sink"
    sink.mkdir(parents=True)
    sent = email.message.EmailMessage()
    sent["Subject"], sent["To"] = "Figures", "dave@example.com"
    sent.set_content("Attached.\n")
    sent.add_attachment(b"q,1\n", maintype="text", subtype="csv", filename="q3.csv")
    (sink / "0001.eml").write_bytes(sent.as_bytes())
    (sink / "0001.json").write_text(json.dumps({"from": "u@example.com", "to": ["dave@example.com"]}))
    digest = hashlib.sha256(PDF.encode()).hexdigest()
    cases = [
        ({"type": "mail_file_sha256", "target": "invoices/invoice.pdf", "expected": digest}, True),
        ({"type": "mail_file_sha256", "target": "invoices/invoice.pdf", "expected": "0" * 64}, False),
        ({"type": "mail_file_size", "target": "invoices/invoice.pdf", "expected": len(PDF)}, True),
        ({"type": "mail_file_size", "target": "invoices/missing.pdf", "expected": 0}, None),
        ({"type": "mail_file_size", "target": "../outside.pdf", "expected": 0}, None),
        ({"type": "mail_draft_attachments", "target": "Draft with file", "expected": "notes.txt"}, True),
        ({"type": "mail_draft_attachments", "target": "Draft with file", "expected": "invoice.pdf"}, False),
        ({"type": "mail_draft_attachments", "target": "No such draft", "expected": "notes.txt"}, None),
        ({"type": "mail_sent_attachments", "target": "Figures", "expected": "q3.csv"}, True),
        ({"type": "mail_sent_attachments", "target": "Figures", "expected": "q2.csv"}, False),
        ({"type": "mail_sent_attachment_sha256", "target": "Figures#q3.csv",
          "expected": hashlib.sha256(b"q,1\n").hexdigest()}, True),
        ({"type": "mail_sent_attachment_sha256", "target": "Figures#q3.csv", "expected": digest}, False),
        ({"type": "mail_sent_attachment_sha256", "target": "Figures#other.csv", "expected": digest}, None),
    ]
    for fields, expected in cases:
        ours, raw = verdict(ws, **fields)
        assert ours == expected, fields
        assert raw == bool(expected), fields
