"""The GUI path against a visible Thunderbird in a private Xvfb, on the adapter's Dovecot and SMTP sink:
recorded demonstrations (real keys and clicks: Ctrl+N, typing, Ctrl+Enter; a click on a message and its
one-key command; Ctrl+S saving a draft) replayed through GuiEnv end in evaluator success, with the raw validator agreeing on
what the sync exported (the Maildir Dovecot holds, the sink's delivered mail); the untouched program fails."""

from __future__ import annotations

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.plugins import plugin
from asil.registry import load_target
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = ["thunderbird-draft-lunch-reply", "thunderbird-flag-invoice", "thunderbird-send-outage-followup"]


def raw_verdicts(env: GuiEnv) -> list[bool]:
    """The app's independent raw validator on the synced state, checkpoint by checkpoint."""
    assert env.workspace is not None
    judge = load_target(plugin("thunderbird").validator or "")
    return [bool(judge(cp, env.workspace, env.outcome, env.answer)) for path in env.task.evaluator.paths
            for cp in path if cp.required]


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    env = GuiEnv(get_task(task_id))
    try:
        first = env.reset()
        assert (first.width, first.height) == (1280, 800)
        for params in demonstration(task_id) or []:
            step = env.step(params)
            assert step.ok, (params, step.error)
        evaluation = env.evaluate()
        assert evaluation.success, evaluation.checkpoints
        assert all(raw_verdicts(env)), "the raw validator disagrees with the evaluator"
        assert env.sync_note is not None and "Dovecot's Maildir was exported" in env.sync_note
    finally:
        env.close()


def test_the_untouched_program_fails_its_task() -> None:
    env = GuiEnv(get_task("thunderbird-send-outage-followup"))
    try:
        env.reset()
        evaluation = env.evaluate()
        assert not evaluation.success and not any(raw_verdicts(env))
        assert env.sync_note is not None and "holds 0 message(s)" in env.sync_note
    finally:
        env.close()
