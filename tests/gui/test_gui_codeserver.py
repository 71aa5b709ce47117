"""The GUI path of code-server: the real VS Code web UI in a visible chromium on a private Xvfb. Recorded
demonstrations (real keystrokes) replayed through GuiEnv end in evaluator success, with code-server's raw
validator agreeing, because the sync is VS Code's own Save All; the untouched window fails its task."""

from __future__ import annotations

import pytest

from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "codeserver"
DEMOS = demos_of(APP)


def test_demonstrations_cover_code_server_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and "Save All" in note and "unsaved" not in note, note


def test_the_untouched_window_fails_its_task() -> None:
    untouched("codeserver-font-size")
