"""The GUI path against the real Inkscape 1.2 in a private Xvfb: recorded demonstrations (real clicks and
keystrokes) replayed through GuiEnv end in evaluator success, judged by the task's unchanged evaluator and the
Inkscape raw validator, after Inkscape itself saved the SVG (its document-save action over its D-Bus); the untouched program
fails; the work survives a restart of Inkscape."""

from __future__ import annotations

import time
from importlib import resources

import pytest

from asil.agents.gui import demonstration
from asil.gui import capture
from asil.gui.environment import GuiEnv
from asil.plugins import plugin
from asil.registry import load_target
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "inkscape"
DEMOS = sorted(name for name in (p.name.removesuffix(".json") for p in
                                 resources.files("asil.gui").joinpath("demos").iterdir() if p.name.endswith(".json"))
               if get_task(name).apps[0] == APP)


def replay(env: GuiEnv, steps: list[dict[str, object]]) -> None:
    for params in steps:
        step = env.step(params)
        assert step.ok, (params, step.error)


def raw_verdicts(env: GuiEnv) -> list[bool]:
    """The app's independent raw validator on the synced files, checkpoint by checkpoint."""
    assert env.workspace is not None
    judge = load_target(plugin(env.task.apps[0]).validator or "")
    return [bool(judge(cp, env.workspace, env.outcome, env.answer)) for path in env.task.evaluator.paths
            for cp in path if cp.required]


def test_demonstrations_cover_inkscape_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    task = get_task(task_id)
    env = GuiEnv(task)
    try:
        first = env.reset()
        assert (first.width, first.height) == (1280, 800) and first.png.startswith(b"\x89PNG")
        replay(env, demonstration(task_id) or [])
        evaluation = env.evaluate()
        assert evaluation.success, evaluation.checkpoints
        assert all(raw_verdicts(env)), "the raw validator disagrees with the evaluator"
        assert env.sync_note == f"stored {task.document_for(APP)} through Inkscape (its document-save action, as Ctrl+S)"
    finally:
        env.close()


def test_the_untouched_program_fails_its_task_and_saves_nothing() -> None:
    env = GuiEnv(get_task("ink-move-dot"))
    try:
        env.reset()
        evaluation = env.evaluate()
        assert not evaluation.success and raw_verdicts(env) == [False, True]  # the dot is off centre, rings stay
        assert env.sync_note is not None and env.sync_note.startswith("Inkscape had no unsaved change")
    finally:
        env.close()


def test_the_work_survives_a_restart_of_inkscape() -> None:
    env = GuiEnv(get_task("ink-star-to-front"))
    try:
        untouched = env.reset()
        replay(env, demonstration("ink-star-to-front") or [])
        env.restart()  # sync (document-save), a new Inkscape process and profile, the same file
        assert env.session is not None
        deadline, shown = time.monotonic() + 20, b""
        while time.monotonic() < deadline:  # the new window shows the star in front, not the initial drawing
            shown = capture.png_bytes(capture.grab(env.session.display_name))
            if shown != untouched.png:
                break
            time.sleep(0.5)
        assert shown != untouched.png
        assert env.evaluate().success
    finally:
        env.close()
