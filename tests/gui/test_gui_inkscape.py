"""The GUI path against the real Inkscape 1.2 in a private Xvfb: recorded demonstrations (real clicks and
keystrokes) replayed through GuiEnv end in evaluator success, judged by the task's unchanged evaluator and the
Inkscape raw validator, after Inkscape itself saved the SVG (its document-save action over its D-Bus); the untouched program
fails; the work survives a restart of Inkscape."""

from __future__ import annotations

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.tasks import get_task
from tests.gui.demos import demos_of, replay, shows_other_than, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "inkscape"
DEMOS = demos_of(APP)


def test_demonstrations_cover_inkscape_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    document = get_task(task_id).document_for(APP)
    assert note == f"stored {document} through Inkscape (its document-save action, as Ctrl+S)", note


def test_the_untouched_program_fails_its_task_and_saves_nothing() -> None:
    note = untouched("ink-move-dot").sync_note
    assert note is not None and note.startswith("Inkscape had no unsaved change"), note


def test_the_work_survives_a_restart_of_inkscape() -> None:
    env = GuiEnv(get_task("ink-star-to-front"))
    try:
        untouched = env.reset()
        replay(env, demonstration("ink-star-to-front") or [])
        env.restart()  # sync (document-save), a new Inkscape process and profile, the same file
        assert shows_other_than(env, untouched.png)  # the new window shows the star in front, not the initial state
        assert env.evaluate().success
    finally:
        env.close()
