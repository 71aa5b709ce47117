"""The GUI path against the real GIMP 2.10 in a private Xvfb: recorded demonstrations (real clicks and
keystrokes) replayed through GuiEnv end in evaluator success, judged by the task's unchanged evaluator and the
GIMP raw validator, after this same GIMP wrote the image with its own file procedures (XCF save or PNG export,
run through its Script-Fu server); the untouched program fails and writes nothing. (That synced work survives a
restart is tested on Inkscape and LibreOffice; a GIMP launch costs 5-12 s on the shared machine, so it is not
repeated here to keep these tests inside CI's time.)"""

from __future__ import annotations

import hashlib
from importlib import resources

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.plugins import plugin
from asil.registry import load_target
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "gimp"
DEMOS = sorted(name for name in (p.name.removesuffix(".json") for p in
                                 resources.files("asil.gui").joinpath("demos").iterdir() if p.name.endswith(".json"))
               if get_task(name).apps[0] == APP)


def replay(env: GuiEnv, steps: list[dict[str, object]]) -> None:
    for params in steps:
        step = env.step(params)
        assert step.ok, (params, step.error)


def raw_paths(env: GuiEnv) -> list[list[bool]]:
    """The app's independent raw validator on the synced files: each path's required checkpoints."""
    assert env.workspace is not None
    judge = load_target(plugin(env.task.apps[0]).validator or "")
    return [[bool(judge(cp, env.workspace, env.outcome, env.answer)) for cp in path if cp.required]
            for path in env.task.evaluator.paths]


def test_demonstrations_cover_gimp_twice() -> None:
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
        assert any(all(path) for path in raw_paths(env)), "the raw validator disagrees with the evaluator"
        assert env.sync_note is not None and env.sync_note.startswith(f"stored {task.document_for(APP)} through GIMP")
    finally:
        env.close()


def test_the_untouched_program_fails_its_task_and_writes_nothing() -> None:
    env = GuiEnv(get_task("gimp-invert-colors"))
    try:
        env.reset()
        assert env.workspace is not None
        before = hashlib.sha256((env.workspace.root / "photo.png").read_bytes()).hexdigest()
        evaluation = env.evaluate()
        assert not evaluation.success and raw_paths(env) == [[False]]
        assert env.sync_note is not None and env.sync_note.startswith("GIMP had no unsaved change")
        assert hashlib.sha256((env.workspace.root / "photo.png").read_bytes()).hexdigest() == before
    finally:
        env.close()

