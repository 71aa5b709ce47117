"""The Thunderbird adapter's program-free parts: the Maildir builder, the SMTP sink, the persisted-state
readers (checkpoints and the raw validator must agree) and parameter validation."""

from __future__ import annotations

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
