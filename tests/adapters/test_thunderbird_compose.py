"""Compose windows in the Thunderbird adapter, against a real headless Thunderbird on a real Dovecot:
Thunderbird's own compose windows observed as elements, opened, edited, given attachments, saved as
drafts, sent and closed; drafts opened again; bad requests refused with the mailbox, the windows and
the sent mail unchanged; and what a restart of Thunderbird keeps (drafts) and loses (open windows).

One warm adapter serves the module; each test closes the windows it opened.
"""

from __future__ import annotations

import email.policy
import json
import os
import shutil
import signal
from collections.abc import Iterator
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.adapters.thunderbird.builders import build_maildir
from asil.adapters.thunderbird.validator import raw_judge
from asil.apps.mailserver import dovecot_path
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.protocol import Action, DocumentError, Element
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("thunderbird") is None or dovecot_path() is None,
                                 reason="needs thunderbird and dovecot-imapd (scripts/install-system.sh)")]

SEED = [{"to": ["bob@example.com"], "subject": "Re: Team offsite", "body": "Hi Bob,\n\n"}]


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThunderbirdAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("compose"))
    build_maildir(ws.root / "mail", {"messages": [{"subject": "Team offsite", "from": "Bob <bob@example.com>"}]})
    (ws.root / "reports").mkdir()
    (ws.root / "reports" / "q3.csv").write_text("quarter,revenue\nQ3,140300\n")
    (ws.root / "compose-windows.json").write_text(json.dumps(SEED))
    adapter = ThunderbirdAdapter(ws, "mail")
    yield adapter
    adapter.close()


def windows(adapter: ThunderbirdAdapter) -> dict[str, Element]:
    return {e.id: e for e in adapter.observe().elements if e.type == "compose_window"}


def run(adapter: ThunderbirdAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def folder_subjects(adapter: ThunderbirdAdapter, folder: str) -> list[str]:
    adapter.execute(Action(action_type="navigate", target=folder, params={"offset": 0}), observe=False)
    subjects = [str(e.label) for e in adapter.observe().elements if e.type == "message"]
    adapter.execute(Action(action_type="navigate", target="INBOX", params={"offset": 0}), observe=False)
    return subjects


def draft_ids(adapter: ThunderbirdAdapter) -> dict[str, str]:
    adapter.execute(Action(action_type="navigate", target="Drafts", params={"offset": 0}), observe=False)
    found = {str(e.label): e.id for e in adapter.observe().elements if e.type == "message"}
    adapter.execute(Action(action_type="navigate", target="INBOX", params={"offset": 0}), observe=False)
    return found


def sent(adapter: ThunderbirdAdapter) -> list[EmailMessage]:
    return [BytesParser(policy=email.policy.default).parsebytes(p.read_bytes())
            for p in sorted(adapter.outbox.glob("*.eml"))]


def verdicts(workspace: Workspace, kind: str, target: str | None, expected: Any) -> tuple[Any, bool, bool]:
    """(the checkpoint's value, its verdict, the raw validator's verdict) on the saved state."""
    cp = Checkpoint(type=kind, app="thunderbird", document="mail", target=target, expected=expected)
    verdict = evaluate_paths([[cp]], workspace).checkpoints[0]
    return verdict.actual, verdict.passed, raw_judge(cp, workspace)


def judge(adapter: ThunderbirdAdapter, kind: str, target: str | None, expected: Any) -> tuple[Any, bool, bool]:
    adapter.save()
    return verdicts(adapter.workspace, kind, target, expected)


def test_a_seeded_window_is_open_from_the_start_with_its_fields(warm: ThunderbirdAdapter) -> None:
    seeded = windows(warm)["compose:1"]
    assert seeded.value == {"to": ["bob@example.com"], "cc": [], "subject": "Re: Team offsite", "body": "Hi Bob,\n\n",
                            "attachments": []}
    assert seeded.meta == {"unsaved": False}
    assert "open compose windows: compose:1" in warm.observe().summary


def test_open_edit_attach_save_and_close_a_window(warm: ThunderbirdAdapter) -> None:
    opened = run(warm, fn("open_compose", to=["carol@example.com"], subject="Budget", body="Hi Carol,\n"))
    window = opened[0]
    run(warm, fn("edit_compose", window=window, cc=["dave@example.com"], body="Hi Carol,\nthe budget is final.\n"))
    run(warm, fn("attach_to_compose", window=window, attachments=["reports/q3.csv"]))
    shown = windows(warm)[window]
    assert shown.value["cc"] == ["dave@example.com"] and shown.value["body"] == "Hi Carol,\nthe budget is final.\n"
    assert shown.value["attachments"] == [{"name": "q3.csv", "content_type": "text/csv", "size": 26}]
    assert shown.meta["unsaved"] is True
    assert judge(warm, "mail_compose_text", "Budget", r"Cc: dave@example\.com\nSubject: Budget\n\nHi Carol")[1:] == \
        (True, True)
    assert run(warm, fn("save_compose_draft", window=window)) == [window, "Drafts"]
    saved = windows(warm)[window]
    assert saved.meta["unsaved"] is False and saved.meta["draft"] == draft_ids(warm)["Budget"]
    # Saving again replaces the window's draft instead of adding a second one (as Thunderbird does).
    run(warm, fn("edit_compose", window=window, subject="Budget 2027"))
    run(warm, fn("save_compose_draft", window=window))
    assert folder_subjects(warm, "Drafts").count("Budget 2027") == 1 and "Budget" not in folder_subjects(warm, "Drafts")
    # The draft is multipart/mixed (text + attachment); its text is read from its text part.
    value, verdict, raw = judge(warm, "mail_draft_text", "Budget 2027", r"\n\nHi Carol,\nthe budget is final\.")
    assert (verdict, raw) == (True, True), value
    run(warm, fn("close_compose", window=window))
    assert window not in windows(warm)


def test_open_a_draft_change_it_and_send_it(warm: ThunderbirdAdapter) -> None:
    run(warm, fn("save_draft", to=["team@example.com"], subject="Offsite plan", body="Lisbon, 12 December.\n",
                 attachments=["reports/q3.csv"]))
    draft = draft_ids(warm)["Offsite plan"]
    window = run(warm, fn("open_draft", draft=draft))[0]
    assert run(warm, fn("open_draft", draft=draft)) == [window]  # a draft already open shows its window
    shown = windows(warm)[window]
    assert shown.value["to"] == ["team@example.com"] and shown.value["body"] == "Lisbon, 12 December.\n"
    assert [a["name"] for a in shown.value["attachments"]] == ["q3.csv"] and shown.meta["draft"] == draft
    run(warm, fn("edit_compose", window=window, body="Lisbon, 12 December. The bus leaves at 8:30.\n"))
    before = len(sent(warm))
    changed = run(warm, fn("send_compose", window=window))
    assert changed[0] == window and "Sent" in changed and draft in changed
    assert window not in windows(warm)
    message = sent(warm)[before:][0]
    body = message.get_body(("plain",))
    assert message["Subject"] == "Offsite plan" and body is not None and "8:30" in body.get_content()
    assert [p.get_filename() for p in message.iter_attachments()] == ["q3.csv"]
    assert "Offsite plan" not in folder_subjects(warm, "Drafts")
    assert "Offsite plan" in folder_subjects(warm, "Sent")


def _state(adapter: ThunderbirdAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    data["environment"].pop("services")
    drafts = folder_subjects(adapter, "Drafts")
    return json.dumps([data, drafts, len(sent(adapter))], sort_keys=True)


def test_bad_compose_requests_are_refused_in_one_sentence_and_change_nothing(warm: ThunderbirdAdapter) -> None:
    empty = run(warm, fn("open_compose"))[0]
    untitled = run(warm, fn("open_compose", to=["dave@example.com"]))[0]
    edited = run(warm, fn("open_compose", to=["carol@example.com"], subject="Notes", attachments=["reports/q3.csv"]))[0]
    run(warm, fn("edit_compose", window=edited, body="changed\n"))
    (warm.workspace.root / "a-folder").mkdir(exist_ok=True)
    bad = [
        (fn("edit_compose", window="compose:99", subject="x"), "There is no open compose window \"compose:99\"."),
        (fn("edit_compose", window=edited), "give at least one of to, cc, subject, body"),
        (fn("edit_compose", window=edited, to=["not-an-address"]), "to"),
        (fn("attach_to_compose", window=edited, attachments=["a-folder"]), "is not a file in the workspace"),
        (fn("attach_to_compose", window=edited, attachments=["reports/q3.csv"]),
         f"{edited} already has an attachment named \"q3.csv\"."),
        (fn("remove_compose_attachment", window=edited, name="x.pdf"), f"{edited} has no attachment named \"x.pdf\"."),
        (fn("send_compose", window=empty), f"{empty} has no recipient in To."),
        (fn("send_compose", window=untitled), f"{untitled} has no subject."),
        (fn("close_compose", window=edited), f"{edited} has unsaved changes."),
        (fn("open_draft", draft="INBOX#1"), "INBOX#1 is not a draft"),
        (Action(action_type="batch", params={"actions": [
            {"action_type": "invoke_function", "target": "send_compose", "params": {"window": edited}}]}),
         "send_compose"),
    ]
    before = _state(warm)
    for action, words in bad:
        result = warm.execute(action, observe=False)
        assert result.status == "invalid" and result.error is not None, (words, result)
        assert words in result.error.message, (words, result.error.message)
        assert result.error.hint, words  # what is valid instead
        assert _state(warm) == before, f"{words}: the state changed"
    for window in (empty, untitled, edited):
        run(warm, fn("close_compose", window=window, discard=True))


def test_a_failed_batch_keeps_the_open_windows(warm: ThunderbirdAdapter) -> None:
    window = run(warm, fn("open_compose", to=["carol@example.com"], subject="Keep me", body="still here\n",
                          attachments=["reports/q3.csv"]))[0]
    before = windows(warm)[window]
    failing = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "create_folder", "params": {"name": "Temp"}},
        {"action_type": "invoke_function", "target": "create_folder", "params": {"name": "Temp"}}]})
    result = warm.execute(failing, observe=False)
    assert result.status == "invalid"
    after = windows(warm)[window]
    assert (after.value, after.label) == (before.value, before.label)
    run(warm, fn("close_compose", window=window))


def test_a_restart_keeps_saved_drafts_and_says_the_open_windows_are_gone(warm: ThunderbirdAdapter) -> None:
    window = run(warm, fn("open_compose", to=["carol@example.com"], subject="Survives as a draft"))[0]
    run(warm, fn("save_compose_draft", window=window))
    other = run(warm, fn("open_compose", to=["carol@example.com"], subject="Lost on restart"))[0]
    assert warm.session is not None
    os.killpg(warm.session.process.pid, signal.SIGKILL)
    warm.session.process.process.wait(timeout=10)
    observation = warm.observe()
    assert not [e for e in observation.elements if e.type == "compose_window"]
    note = observation.environment["services"]["compose_windows_lost"]
    assert window in note and other in note and "does not keep open compose windows" in note
    assert "Survives as a draft" in folder_subjects(warm, "Drafts")
    assert judge(warm, "mail_compose_count", None, 0)[1:] == (True, True)


def test_checkpoints_read_the_seeded_windows_before_thunderbird_ever_ran(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    seed = SEED + [{"subject": "Second", "attachments": ["r/a.txt"]}]
    (ws.root / "compose-windows.json").write_text(json.dumps(seed))
    for kind, target, expected in [("mail_compose_count", None, 2), ("mail_compose_subjects", None, "Second"),
                                   ("mail_compose_text", "Re: Team offsite", r"^To: bob@example\.com\nCc: \n"),
                                   ("mail_compose_attachments", "Second", "a.txt")]:
        actual, passed, raw = verdicts(ws, kind, target, expected)
        assert (passed, raw) == (True, True), (kind, actual)


@pytest.mark.parametrize(("seed", "words"), [
    ({"subject": "not a list"}, "it is not a JSON list"),
    ([{"to": ["not-an-address"]}], "to"),
    ([{"subject": "x", "bcc": ["a@example.com"]}], "bcc"),
])
def test_a_bad_compose_windows_file_is_refused_before_any_program_starts(tmp_path: Path, seed: Any, words: str) -> None:
    ws = Workspace(tmp_path)
    (ws.root / "compose-windows.json").write_text(json.dumps(seed))
    with pytest.raises(DocumentError, match="compose-windows.json is not a list of compose windows") as refused:
        ThunderbirdAdapter(ws, "mail")
    assert words in refused.value.message and refused.value.hint
    assert not (ws.root / ".asil" / "thunderbird" / "profile").exists()
