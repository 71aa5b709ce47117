"""The GUI path against the real Kdenlive 22.12 in a private Xvfb: recorded demonstrations (real coordinates and
keystrokes in Kdenlive's guide dialog, its clip monitor and its Insert Clip Zone) replayed through GuiEnv end in
evaluator success once Kdenlive itself has saved the project (Ctrl+S), with every raw validator agreeing, also on
the timeline tasks whose checkpoints name a track Kdenlive renamed on save; the untouched program fails its task."""

from __future__ import annotations

import pytest

from asil.tasks import get_task
from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("kdenlive")


def test_demonstrations_cover_kdenlive_twice() -> None:
    assert len(DEMOS) >= 2 and {get_task(task_id).apps[0] for task_id in DEMOS} == {"kdenlive"}


def test_two_demonstrations_are_timeline_tasks_judged_by_track() -> None:
    on_tracks = [task_id for task_id in DEMOS
                 if any(cp.type == "kdenlive_track_clips" for path in get_task(task_id).evaluator.paths for cp in path)]
    assert len(on_tracks) >= 2, on_tracks


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validators_agree(task_id: str) -> None:
    played = solved(task_id)
    assert played.sync_note == "stored edit.kdenlive through Kdenlive (Ctrl+S)"


def test_the_untouched_program_fails_its_task() -> None:
    played = untouched("kdenlive-guide-chapters")
    assert played.sync_note is not None and "no unsaved change" in played.sync_note
