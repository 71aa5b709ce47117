"""What the GUI tests of every app share: the app's recorded demonstrations, replaying one through GuiEnv on
the real program, and the independent raw validators' reading of the synced state, checkpoint by checkpoint
(the comparison of ``asil tasks check --raw``)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

from asil.agents.gui import demonstration
from asil.apps.gui_window import shown_windows
from asil.evaluate.evaluator import Evaluation
from asil.gui import capture
from asil.gui.environment import GuiEnv
from asil.runner.check import raw_disagreements
from asil.tasks import get_task


def demos_of(*apps: str) -> list[str]:
    """The tasks with a recorded demonstration (``asil/gui/demos/<task>.json``) whose first app is one of these."""
    folder = resources.files("asil.gui").joinpath("demos")
    names = sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
    return [name for name in names if get_task(name).apps[0] in apps]


def replay(env: GuiEnv, steps: list[dict[str, Any]]) -> None:
    for params in steps:
        step = env.step(params)
        assert step.ok, (params, step.error)


def disagreements(env: GuiEnv, evaluation: Evaluation) -> list[str]:
    """The checkpoints on which the raw validators read the synced state differently from the evaluator."""
    assert env.workspace is not None
    return raw_disagreements(env.task, evaluation, env.workspace, env.outcome, env.answer, "gui")


@dataclass
class Played:
    """How a GUI episode ended: the evaluator's verdict, the raw validators' disagreements, the sync's words."""

    evaluation: Evaluation
    disagreements: list[str]
    sync_note: str | None


def play(task_id: str, steps: list[dict[str, Any]] | None = None) -> Played:
    """Start the task's real program, check its first screen, replay the task's demonstration (or ``steps``;
    ``[]`` leaves the program untouched), sync and judge."""
    env = GuiEnv(get_task(task_id))
    try:
        first = env.reset()
        assert (first.width, first.height) == (1280, 800) and first.png.startswith(b"\x89PNG")
        replay(env, demonstration(task_id) or [] if steps is None else steps)
        evaluation = env.evaluate()
        return Played(evaluation, disagreements(env, evaluation), env.sync_note)
    finally:
        env.close()


def solved(task_id: str) -> Played:
    """The task's demonstration replayed: asserted to succeed with every raw validator agreeing."""
    played = play(task_id)
    assert played.evaluation.success, played.evaluation.checkpoints
    assert played.disagreements == [], played.disagreements
    return played


def untouched(task_id: str) -> Played:
    """The program left as launched: asserted to fail its task with every raw validator agreeing."""
    played = play(task_id, [])
    assert not played.evaluation.success
    assert played.disagreements == [], played.disagreements
    return played


def shows_other_than(env: GuiEnv, before: bytes, wait_s: float = 20) -> bool:
    """Whether the screen comes to differ from ``before`` (polled: on a loaded machine a new window can pause
    between paints longer than the launch settle waits)."""
    assert env.session is not None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if capture.png_bytes(capture.grab(env.session.display_name)) != before:
            return True
        time.sleep(0.5)
    return False


def fills_the_screen(env: GuiEnv, window_class: str) -> bool:
    """One shown window of the program (no first-run dialog over it), at 0,0 and 1280x800."""
    assert env.session is not None
    display = env.session.display_name
    [main] = shown_windows(display, window_class)
    geometry = subprocess.run(["xdotool", "getwindowgeometry", main], env={"DISPLAY": display},
                              capture_output=True, text=True, check=True).stdout
    return "Position: 0,0" in geometry and "Geometry: 1280x800" in geometry
