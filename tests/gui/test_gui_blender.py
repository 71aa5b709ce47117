"""The GUI path against the real Blender (software OpenGL) in a private Xvfb: recorded demonstrations (real
coordinates and keystrokes) replayed through GuiEnv end in evaluator success once Blender itself has saved the
.blend, judged by the task's unchanged evaluator and its raw validator; the untouched program fails."""

from __future__ import annotations

import pytest

from asil.tasks import get_task
from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("blender")


def test_demonstrations_cover_blender_twice() -> None:
    assert len(DEMOS) >= 2 and {get_task(task_id).apps[0] for task_id in DEMOS} == {"blender"}


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and note.startswith("stored scene.blend through Blender"), note


def test_the_untouched_program_fails_its_task() -> None:
    note = untouched("blender-move-cube").sync_note
    assert note is not None and note.startswith("stored ")  # Blender saved, nothing changed
