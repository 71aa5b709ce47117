"""The GUI path against the real Blender (software OpenGL) in a private Xvfb: recorded demonstrations (real
coordinates and keystrokes) replayed through GuiEnv end in evaluator success once Blender itself has saved the
.blend, judged by the task's unchanged evaluator and its raw validator; the untouched program fails."""

from __future__ import annotations

from importlib import resources

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.plugins import plugin
from asil.registry import load_target
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = sorted(p.name.removesuffix(".json") for p in resources.files("asil.gui").joinpath("demos").iterdir()
               if p.name.startswith("blender-") and p.name.endswith(".json"))


def raw_paths(env: GuiEnv) -> list[bool]:
    """Blender's independent raw validator on the saved .blend: does each success path hold?"""
    assert env.workspace is not None
    judge = load_target(plugin("blender").validator or "")
    return [all(judge(cp, env.workspace, env.outcome, env.answer) for cp in path if cp.required)
            for path in env.task.evaluator.paths]


def test_demonstrations_cover_blender_twice() -> None:
    assert len(DEMOS) >= 2 and {get_task(task_id).apps[0] for task_id in DEMOS} == {"blender"}


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
        assert any(raw_paths(env)), "the raw validator disagrees with the evaluator"
        assert env.sync_note is not None and env.sync_note.startswith("stored scene.blend through Blender")
    finally:
        env.close()


def test_the_untouched_program_fails_its_task() -> None:
    env = GuiEnv(get_task("blender-move-cube"))
    try:
        env.reset()
        evaluation = env.evaluate()
        assert not evaluation.success and not any(raw_paths(env))
        assert env.sync_note is not None and env.sync_note.startswith("stored ")  # Blender saved, nothing changed
    finally:
        env.close()
