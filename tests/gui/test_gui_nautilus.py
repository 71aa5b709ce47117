"""The GUI path against the real Nautilus in a private Xvfb: recorded demonstrations (real clicks and keys)
replayed through GuiEnv end in evaluator success, with the raw validator agreeing on the synced state (files
Nautilus wrote, the trash in its private HOME, the windows' selection read from the live program); the
untouched program fails."""

from __future__ import annotations

import pytest

from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("nautilus")


def test_demonstrations_cover_nautilus_at_least_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and "settled on disk" in note and "live program" in note, note


def test_the_untouched_program_fails_its_task() -> None:
    note = untouched("nautilus-select-all-drafts").sync_note
    assert note is not None and "(drafts)" in note  # the recorded window was reopened
