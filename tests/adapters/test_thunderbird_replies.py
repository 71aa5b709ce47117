"""Replies and forwards in the Thunderbird adapter, against a real headless Thunderbird on a real Dovecot:
Thunderbird's own Reply, Reply All, Forward (inline) and Forward as Attachment compose windows, filled in
by Thunderbird and observed as compose elements; the headers it writes (In-Reply-To, References,
X-Forwarded-Message-Id) read by the checkpoints and the raw validator alike; refusals in one sentence with
nothing changed; what a restart keeps (a saved reply draft) and loses (the open windows); and the core
tasks that use them, checked with the raw validator.

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
from typing import Any

import pytest

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.adapters.thunderbird.builders import build_maildir
from asil.adapters.thunderbird.validator import raw_judge
from asil.apps.mailserver import dovecot_path
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.protocol import Action, Element
from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("thunderbird") is None or dovecot_path() is None,
                                 reason="needs thunderbird and dovecot-imapd (scripts/install-system.sh)")]

MESSAGES = [
    {"subject": "Team offsite", "from": "Bob <bob@example.com>", "cc": "Carol <carol@example.com>",
     "body": "Where is it?\n", "message_id": "<offsite@example.com>"},
    {"subject": "Q3 numbers", "from": "Dave <dave@example.com>", "body": "Revenue: 140300\n",
     "message_id": "<q3@example.com>"},
    {"folder": "Drafts", "subject": "Half done", "to": "team@example.com", "body": "...\n"},
]
NEW_TASKS = ["thunderbird-reply-offsite-question", "thunderbird-reply-all-offsite-draft",
             "thunderbird-forward-q3-question", "thunderbird-forward-invoice-as-attachment"]


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThunderbirdAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("replies"))
    build_maildir(ws.root / "mail", {"messages": MESSAGES})
    adapter = ThunderbirdAdapter(ws, "mail")
    yield adapter
    adapter.close()


def run(adapter: ThunderbirdAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def windows(adapter: ThunderbirdAdapter) -> dict[str, Element]:
    return {e.id: e for e in adapter.observe().elements if e.type == "compose_window"}


def sent(adapter: ThunderbirdAdapter) -> list[EmailMessage]:
    return [BytesParser(policy=email.policy.default).parsebytes(p.read_bytes())
            for p in sorted(adapter.outbox.glob("*.eml"))]


def judge(adapter: ThunderbirdAdapter, kind: str, target: str, expected: Any) -> tuple[Any, bool, bool]:
    """(the checkpoint's value, its verdict, the raw validator's verdict) on the saved state."""
    adapter.save()
    cp = Checkpoint(type=kind, app="thunderbird", document="mail", target=target, expected=expected)
    verdict = evaluate_paths([[cp]], adapter.workspace).checkpoints[0]
    return verdict.actual, verdict.passed, raw_judge(cp, adapter.workspace)


def test_reply_and_reply_all_are_filled_in_by_thunderbird(warm: ThunderbirdAdapter) -> None:
    reply = run(warm, fn("open_reply", message="INBOX#1"))[0]
    everyone = run(warm, fn("open_reply", message="INBOX#1", reply_all=True))[0]
    shown = windows(warm)
    assert shown[reply].value["to"] == ["Bob <bob@example.com>"] and shown[reply].value["cc"] == []
    assert shown[everyone].value["cc"] == ["Carol <carol@example.com>"]
    for window, kind in ((reply, "reply"), (everyone, "reply_all")):
        assert shown[window].value["subject"] == "Re: Team offsite"
        assert "> Where is it?" in shown[window].value["body"]  # Thunderbird quoted the original
        assert shown[window].meta == {"unsaved": False, "kind": kind, "original": "INBOX#1"}
    run(warm, fn("edit_compose", window=reply, body="Lisbon.\n"))
    run(warm, fn("send_compose", window=reply))
    (message,) = [m for m in sent(warm) if m["Subject"] == "Re: Team offsite"]
    assert message["In-Reply-To"] == "<offsite@example.com>" and message["References"] == "<offsite@example.com>"
    assert judge(warm, "mail_sent_relation", "Re: Team offsite", "reply to <offsite@example.com>")[1:] == (True, True)
    run(warm, fn("close_compose", window=everyone))


def test_forward_inline_and_as_attachment(warm: ThunderbirdAdapter) -> None:
    inline = run(warm, fn("open_forward", message="INBOX#2"))[0]
    attached = run(warm, fn("open_forward", message="INBOX#2", as_attachment=True))[0]
    shown = windows(warm)
    assert shown[inline].value["to"] == [] and shown[inline].value["subject"] == "Fwd: Q3 numbers"
    assert "Forwarded Message" in shown[inline].value["body"] and "Revenue: 140300" in shown[inline].value["body"]
    assert shown[attached].value["attachments"][0]["name"] == "Q3 numbers.eml"
    assert shown[attached].value["attachments"][0]["content_type"] == "message/rfc822"
    assert shown[attached].meta["kind"] == "forward_attachment"
    run(warm, fn("edit_compose", window=inline, to=["eve@example.com"], subject="Fwd: Q3 inline"))
    run(warm, fn("edit_compose", window=attached, to=["eve@example.com"], subject="Fwd: Q3 attached"))
    run(warm, fn("send_compose", window=inline))
    run(warm, fn("send_compose", window=attached))
    for subject in ("Fwd: Q3 inline", "Fwd: Q3 attached"):
        assert judge(warm, "mail_sent_relation", subject, "forward of <q3@example.com>")[1:] == (True, True)
    value, verdict, raw = judge(warm, "mail_sent_attachments", "Fwd: Q3 attached", "Q3 numbers.eml")
    assert (verdict, raw) == (True, True), value
    # A new message is neither: the checkpoint says "new", and a reply expectation fails in both readers.
    run(warm, fn("send_message", to=["eve@example.com"], subject="Plain note", body="hi\n"))
    value, verdict, raw = judge(warm, "mail_sent_relation", "Plain note", "reply to <q3@example.com>")
    assert (value, verdict, raw) == ("new", False, False)


def _state(adapter: ThunderbirdAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    data["environment"].pop("services")
    return json.dumps([data, len(sent(adapter))], sort_keys=True)


@pytest.mark.parametrize(("action", "words"), [
    (fn("open_reply", message="INBOX#99"), 'There is no message "INBOX#99".'),
    (fn("open_forward", message="Nowhere#1"), "Nowhere"),
    (fn("open_reply", message="Drafts#1"), "Drafts#1 is a draft; only received or sent messages can be replied to"),
    (fn("open_forward", message="INBOX#1", as_attachment="yes"), "as_attachment"),
    (fn("open_reply", message="INBOX#1", to=["x@example.com"]), "to"),
    (Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "open_reply", "params": {"message": "INBOX#1"}}]}),
     "open_reply"),
])
def test_bad_reply_and_forward_requests_are_refused_and_change_nothing(warm: ThunderbirdAdapter, action: Action,
                                                                       words: str) -> None:
    before = _state(warm)
    result = warm.execute(action, observe=False)
    assert result.status == "invalid" and result.error is not None
    assert words in result.error.message and result.error.hint, result.error
    assert _state(warm) == before


def test_a_restart_keeps_a_saved_reply_draft_as_a_reply_and_loses_the_open_window(warm: ThunderbirdAdapter) -> None:
    window = run(warm, fn("open_reply", message="INBOX#1"))[0]
    run(warm, fn("edit_compose", window=window, subject="Re: Team offsite (draft)"))
    run(warm, fn("save_compose_draft", window=window))
    assert warm.session is not None
    os.killpg(warm.session.process.pid, signal.SIGKILL)
    warm.session.process.process.wait(timeout=10)
    observation = warm.observe()
    assert not [e for e in observation.elements if e.type == "compose_window"]
    assert window in observation.environment["services"]["compose_windows_lost"]
    value, verdict, raw = judge(warm, "mail_draft_relation", "Re: Team offsite (draft)", "reply to <offsite@example.com>")
    assert (verdict, raw) == (True, True), value
    # Opened again, the draft is still the reply: sending it keeps In-Reply-To.
    warm.execute(Action(action_type="navigate", target="Drafts", params={"offset": 0}), observe=False)
    labels = {str(e.label): e.id for e in warm.observe().elements if e.type == "message"}
    draft = next((i for label, i in labels.items() if label.endswith("Team offsite (draft)")), labels)
    reopened = run(warm, fn("open_draft", draft=draft))[0]
    assert windows(warm)[reopened].meta["kind"] == "draft"
    run(warm, fn("send_compose", window=reopened))
    assert judge(warm, "mail_sent_relation", "Re: Team offsite (draft)", "reply to <offsite@example.com>")[1:] == \
        (True, True)


@pytest.mark.parametrize("task_id", NEW_TASKS)
def test_the_reply_and_forward_tasks_are_sound_and_the_raw_validator_agrees(task_id: str) -> None:
    (task,) = [t for t in load_tasks(suite="core", app="thunderbird") if t.id == task_id]
    check = check_task(task, raw=True)
    assert check.ok, check.detail
