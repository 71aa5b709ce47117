"""The Thunderbird adapter against a real headless Thunderbird on a real Dovecot: observation,
actions, batch atomicity, saving, rendering, bad input and faults.

One warm adapter serves the whole module (Thunderbird takes seconds to start); tests that kill
or hang a program leave it restarted for the next test.
"""

from __future__ import annotations

import hashlib
import json
import mailbox
import os
import shutil
import signal
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.adapters.thunderbird.builders import build_maildir
from asil.apps.mailserver import dovecot_path
from asil.apps.thunderbird import ThunderbirdLost
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("thunderbird") is None or dovecot_path() is None,
                                 reason="needs thunderbird and dovecot-imapd (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {"folders": ["Archive"], "messages": [
    {"subject": "Invoice 7", "from": "Billing <billing@example.com>", "date": "2026-11-02T09:00:00Z"},
    {"subject": "Hello there", "from": "Bob <bob@example.com>", "read": True, "tags": ["Work"],
     "date": "2026-11-03T09:00:00Z", "body": "Friendly greetings from Bob.\n"},
    {"subject": "Flagged one", "flagged": True, "date": "2026-11-04T09:00:00Z"},
    {"folder": "Archive", "subject": "Archived", "date": "2025-01-01T09:00:00Z"}]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def raw(action: Action) -> dict[str, Any]:
    return action.model_dump(exclude_none=True)


def state(adapter: ThunderbirdAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    data["environment"].pop("services")
    return json.dumps(data, sort_keys=True)


def subjects(root: Path, folder: str) -> list[str]:
    path = root if folder == "INBOX" else root / f".{folder}"
    return sorted(str(m["Subject"]) for m in mailbox.Maildir(path, create=False))


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThunderbirdAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("mail"))
    build_maildir(ws.root / "mail", SPEC)
    (ws.root / "contacts.json").write_text(json.dumps([{"first_name": "Bob", "email": "bob@example.com"}]))
    adapter = ThunderbirdAdapter(ws, "mail")
    yield adapter
    adapter.close()


def message_id(adapter: ThunderbirdAdapter, subject: str, folder: str = "INBOX") -> str:
    adapter.execute(Action(action_type="navigate", target=folder, params={"offset": 0, "search": ""}), observe=False)
    found = [e.id for e in adapter.observe().elements if e.type == "message" and e.label == subject]
    assert found, f"no message {subject!r} in {folder}"
    return found[0]


def test_observation_shows_account_folders_messages_and_contacts(warm: ThunderbirdAdapter) -> None:
    obs = warm.observe()
    kinds = {e.type for e in obs.elements}
    assert kinds == {"account", "folder", "message", "contact"}
    folders = {e.id: e for e in obs.elements if e.type == "folder"}
    assert {"INBOX", "Archive", "Drafts", "Sent", "Trash"} <= set(folders)
    messages = {e.label: e for e in obs.elements if e.type == "message"}
    assert messages["Hello there"].value == {"read": True, "flagged": False, "tags": ["Work"]}
    assert messages["Flagged one"].value["flagged"] is True
    assert messages["Hello there"].meta["snippet"].startswith("Friendly greetings")
    assert [e.label for e in obs.elements if e.type == "message"][0] == "Flagged one"  # newest first
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 3
    assert any(e.type == "contact" and e.value["email"] == "bob@example.com" for e in obs.elements)
    assert obs.metadata.source == "service"


def test_navigate_pages_searches_and_switches_folders(warm: ThunderbirdAdapter) -> None:
    result = warm.execute(Action(action_type="navigate", target="INBOX", params={"offset": 1, "limit": 1}))
    assert result.ok and result.observation is not None
    shown = [e for e in result.observation.elements if e.type == "message"]
    assert len(shown) == 1 and shown[0].label == "Hello there"
    result = warm.execute(Action(action_type="navigate", target="INBOX", params={"offset": 0, "limit": 25,
                                                                                  "search": "invoice"}))
    assert result.observation is not None
    assert [e.label for e in result.observation.elements if e.type == "message"] == ["Invoice 7"]
    result = warm.execute(Action(action_type="navigate", target="Archive", params={"search": ""}))
    assert result.observation is not None and result.observation.app_state.view == "Archive"
    assert [e.label for e in result.observation.elements if e.type == "message"] == ["Archived"]
    warm.execute(Action(action_type="navigate", target="INBOX"), observe=False)


def test_invalid_actions_are_refused_and_change_nothing(warm: ThunderbirdAdapter) -> None:
    before = state(warm)
    invoice = message_id(warm, "Invoice 7")
    bad = [
        fn("set_flags", messages=["INBOX#999"], read=True),                   # no such message
        fn("set_flags", messages=[invoice]),                                   # nothing to set
        fn("move_messages", messages=[invoice], folder="Nowhere"),            # no such folder
        fn("create_folder", name="Archive"),                                   # exists already
        fn("create_folder", name="a.b"),                                       # Dovecot's separator
        fn("create_folder", name="Ωmega"),  # IMAP would store it as '&A6k-mega' (found by tests/fuzz)
        fn("create_folder", name="R&D"),                                       # '&' starts modified UTF-7
        fn("send_message", to=["not an address"], subject="x"),
        fn("edit_contact", contact="nobody@example.com", phone="1"),
        fn("create_filter", name="F", conditions=[{"field": "subject", "value": "x"}],
           actions=[{"type": "move_to_folder"}]),
        fn("tag_messages", messages=[invoice], remove=["No Such Tag"]),
        Action(action_type="set_value", target=f"{invoice}.subject", params={"value": True}),
        Action(action_type="modify_file", target="mail", params={}),
    ]
    for action in bad:
        result = warm.execute(action)
        assert result.status == "invalid", action
        assert result.error is not None and result.error.message.endswith((".", ")")), result.error
    assert state(warm) == before


def test_flags_tags_and_moves_reach_the_imap_server(warm: ThunderbirdAdapter) -> None:
    invoice = message_id(warm, "Invoice 7")
    assert warm.execute(fn("set_flags", messages=[invoice], read=True, flagged=True)).ok
    assert warm.execute(fn("tag_messages", messages=[invoice], add=["Important", "Urgent"])).ok
    assert warm.execute(fn("create_folder", name="Receipts")).ok
    result = warm.execute(fn("move_messages", messages=[invoice], folder="Receipts"))
    assert result.ok and result.changed == ["Receipts"]
    moved = message_id(warm, "Invoice 7", "Receipts")
    element = next(e for e in warm.observe().elements if e.id == moved)
    assert element.value == {"read": True, "flagged": True, "tags": ["Important", "Urgent"]}
    warm.save()
    root = warm.workspace.root / "mail"
    assert "Invoice 7" in subjects(root, "Receipts") and "Invoice 7" not in subjects(root, "INBOX")
    (name,) = os.listdir(root / ".Receipts" / "cur")
    assert "F" in name.split(":2,")[1] and "S" in name.split(":2,")[1]


def test_compose_contacts_and_filters_persist(warm: ThunderbirdAdapter) -> None:
    assert warm.execute(fn("save_draft", to=["carol@example.com"], subject="Plan", body="Draft body text\n")).ok
    assert warm.execute(fn("send_message", to=["dave@example.com"], cc=["erin@example.com"], subject="Sent one",
                           body="Sent body\n")).ok
    assert warm.execute(fn("add_contact", first_name="Carol", last_name="Smith", email="carol@example.com")).ok
    assert warm.execute(fn("edit_contact", contact="bob@example.com", last_name="Jones", phone="+1 555")).ok
    assert warm.execute(fn("create_filter", name="Bills", conditions=[{"field": "subject", "value": "invoice"}],
                           actions=[{"type": "mark_flagged"}, {"type": "add_tag", "tag": "Work"}])).ok
    warm.save()
    root, home = warm.workspace.root, warm.workspace.private("thunderbird")
    assert "Plan" in subjects(root / "mail", "Drafts") and "Sent one" in subjects(root / "mail", "Sent")
    (eml,) = sorted((home / "smtp-sink").glob("*.eml"))
    assert b"Subject: Sent one" in eml.read_bytes()
    assert json.loads(eml.with_suffix(".json").read_text())["to"] == ["dave@example.com", "erin@example.com"]
    with sqlite3.connect(home / "saved" / "abook.sqlite") as db:  # save() copies what Thunderbird keeps locked
        rows = set(db.execute("SELECT name, value FROM properties"))
    assert {("LastName", "Smith"), ("LastName", "Jones")} <= rows
    assert any(name == "_vCard" and "TEL:+1 555\r\n" in value for name, value in rows)
    rules = (home / "saved" / "msgFilterRules.dat").read_text()
    assert 'name="Bills"' in rules and 'condition="AND (subject,contains,invoice)"' in rules


def test_a_failing_batch_restores_the_mailbox_contacts_and_sink(warm: ThunderbirdAdapter) -> None:
    hello = message_id(warm, "Hello there")
    before = state(warm)
    sink = sorted(p.name for p in (warm.workspace.private("thunderbird") / "smtp-sink").iterdir())
    result = warm.execute(Action(action_type="batch", params={"actions": [
        raw(fn("create_folder", name="Temp")),
        raw(fn("tag_messages", messages=[hello], add=["Fresh Tag"])),  # defines a new tag (a pref)
        raw(fn("move_messages", messages=[hello], folder="Temp")),
        raw(fn("add_contact", email="zed@example.com")),
        raw(fn("send_message", to=["x@example.com"], subject="Oops")),
        raw(fn("set_flags", messages=[hello], read=False)),  # the message is in Temp now: this step fails
    ]}))
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 6:")
    assert state(warm) == before
    assert "Fresh Tag" not in warm.observe().environment["tags"]  # the tag definition (a pref) went too
    assert sorted(p.name for p in (warm.workspace.private("thunderbird") / "smtp-sink").iterdir()) == sink


def test_render_is_a_png(warm: ThunderbirdAdapter, tmp_path: Path) -> None:
    path = warm.render(tmp_path / "tb.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_killed_thunderbird_is_restarted(warm: ThunderbirdAdapter) -> None:
    warm.observe()  # Thunderbird starts on first use: when this test runs first on its worker, it starts here
    assert warm.session is not None
    os.killpg(warm.session.process.pid, signal.SIGKILL)
    warm.session.process.process.wait(timeout=10)
    obs = warm.observe()  # a read recovers by itself
    assert obs.environment["services"]["restarts"]["thunderbird"] >= 1
    assert any(e.label == "Hello there" for e in obs.elements)


def test_hung_thunderbird_times_out_and_is_replaced(warm: ThunderbirdAdapter) -> None:
    assert warm.session is not None
    session = warm.session
    os.kill(session.process.pid, signal.SIGSTOP)  # Thunderbird stops answering
    with pytest.raises(ThunderbirdLost):
        session.call("state", {"folder": "INBOX", "offset": 0, "limit": 1, "search": "", "contact_limit": 0},
                     timeout_s=2)
    assert not session.process.alive
    hello = message_id(warm, "Hello there")
    assert warm.execute(fn("set_flags", messages=[hello], flagged=True)).ok


def test_killed_dovecot_is_restarted_on_another_port(warm: ThunderbirdAdapter) -> None:
    assert warm.dovecot is not None and warm.dovecot.process is not None
    old_port = warm.dovecot.port
    os.killpg(warm.dovecot.process.pid, signal.SIGKILL)
    warm.dovecot.process.process.wait(timeout=10)
    with socket.socket() as squatter:  # someone else takes the old port meanwhile
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            squatter.bind(("127.0.0.1", old_port))
            squatter.listen(1)
        except OSError:  # still held (a dying Dovecot child): taken either way, which is the case under test
            pass
        hello = message_id(warm, "Hello there")
        result = warm.execute(fn("tag_messages", messages=[hello], add=["Later"]))
    assert result.ok, result.error
    assert warm.dovecot.port != old_port
    assert warm.observe().environment["services"]["restarts"]["dovecot"] >= 1


def test_bad_mailbox_paths_are_refused_and_left_alone(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "mail").write_text("not a folder")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("hello")
    before = hashlib.sha256((tmp_path / "mail").read_bytes()).hexdigest()
    with pytest.raises(DocumentError, match="not a Maildir folder"):
        ThunderbirdAdapter(ws, "mail")
    with pytest.raises(DocumentError, match="not a Maildir"):
        ThunderbirdAdapter(ws, "junk")
    assert hashlib.sha256((tmp_path / "mail").read_bytes()).hexdigest() == before
    assert os.listdir(tmp_path / "junk") == ["notes.txt"]


def test_a_bad_contacts_file_is_refused_before_any_program_starts(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "contacts.json").write_text('[{"email": "not-an-address"}]')
    with pytest.raises(DocumentError, match="contacts.json is not a list of contacts"):
        ThunderbirdAdapter(ws, "mail")
    (tmp_path / "contacts.json").write_text("{broken")
    with pytest.raises(DocumentError, match="contacts.json"):
        ThunderbirdAdapter(ws, "mail")
    assert not (tmp_path / "mail").exists()


def test_a_taken_marionette_port_is_replaced_by_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asil.apps.thunderbird as tb

    with socket.socket() as squatter:  # a program that listens on the port but is not Marionette
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        taken = squatter.getsockname()[1]
        ports = iter([taken])
        monkeypatch.setattr(tb, "free_port", lambda: next(ports, None) or socket_free_port())
        monkeypatch.setattr("asil.apps.marionette.GREETING_TIMEOUT_S", 1.0)
        ws = Workspace(tmp_path)
        build_maildir(ws.root / "mail", SPEC)
        adapter = ThunderbirdAdapter(ws, "mail")
        try:
            obs = adapter.observe()
            assert adapter.session is not None and adapter.session.port != taken
            assert any(e.label == "Hello there" for e in obs.elements)
        finally:
            adapter.close()


def socket_free_port() -> int:
    from asil.apps.process import free_port

    return free_port()
