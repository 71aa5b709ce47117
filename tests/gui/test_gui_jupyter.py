"""The GUI path of JupyterLab: the real JupyterLab 4 web UI in a visible chromium on a private Xvfb. Recorded
demonstrations (real keystrokes) replayed through GuiEnv end in evaluator success, with the notebook's raw
validator agreeing, because the sync is JupyterLab's own save (Ctrl+S); the untouched page fails its task."""

from __future__ import annotations

import pytest

from tests.gui.demos import demos_of, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "jupyter"
DEMOS = demos_of(APP)


def test_demonstrations_cover_jupyterlab_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and note.startswith("stored ") and "own save" in note, note


def test_the_untouched_window_fails_its_task() -> None:
    untouched("jupyter-miles-to-km")
