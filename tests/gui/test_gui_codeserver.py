"""The GUI path of code-server: the real VS Code web UI in a visible chromium on a private Xvfb. Recorded
demonstrations (real keystrokes) replayed through GuiEnv end in evaluator success, with code-server's raw
validator agreeing, because the sync is VS Code's own Save All; the untouched window fails its task."""

from __future__ import annotations

from importlib import resources

import pytest

from asil.agents.gui import demonstration
from asil.evaluate.evaluator import Evaluation
from asil.gui.environment import GuiEnv
from asil.runner.check import raw_disagreements
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "codeserver"
DEMOS = sorted(name for p in resources.files("asil.gui").joinpath("demos").iterdir()
               if (name := p.name.removesuffix(".json")) != p.name and get_task(name).apps[0] == APP)


def disagreements(env: GuiEnv, evaluation: Evaluation) -> list[str]:
    """Checkpoints on which the independent raw validators (the app's and the generic file readers) read the
    synced state differently from the evaluator (the same comparison as ``asil tasks check --raw``)."""
    assert env.workspace is not None
    return raw_disagreements(env.task, evaluation, env.workspace, env.outcome, env.answer, "gui")


def test_demonstrations_cover_code_server_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    env = GuiEnv(get_task(task_id))
    try:
        first = env.reset()
        assert (first.width, first.height) == (1280, 800) and first.png.startswith(b"\x89PNG")
        for params in demonstration(task_id) or []:
            step = env.step(params)
            assert step.ok, (params, step.error)
        evaluation = env.evaluate()
        assert evaluation.success, evaluation.checkpoints
        assert disagreements(env, evaluation) == []
        assert env.sync_note is not None and "Save All" in env.sync_note and "unsaved" not in env.sync_note
    finally:
        env.close()


def test_the_untouched_window_fails_its_task() -> None:
    env = GuiEnv(get_task("codeserver-font-size"))
    try:
        env.reset()
        evaluation = env.evaluate()
        assert not evaluation.success and disagreements(env, evaluation) == []
    finally:
        env.close()
