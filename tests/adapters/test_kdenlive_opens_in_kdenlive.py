"""The task projects that ASIL builds in Kdenlive's layout open in the real Kdenlive 22.12 (Debian 12's) without
its "Version of the project file cannot be read", "Project file is corrupted" or "Problems found" dialogs, with
the timeline's clips in place. Kdenlive runs on a private Xvfb (asil.apps.kdenlive)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.validator import raw_judge
from asil.apps.kdenlive import KdenliveWindow, open_document
from asil.evaluate.checkpoints import Checkpoint
from asil.gui.capture import grab
from asil.tasks import get_task
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace

pytestmark = pytest.mark.skipif(not (shutil.which("kdenlive") and shutil.which("Xvfb") and shutil.which("xdotool")),
                                reason="needs kdenlive, Xvfb and xdotool")


def lit_pixels(display: str, box: tuple[int, int, int, int], rgb: tuple[int, int, int]) -> int:
    """How many pixels of the screen's ``box`` (left, top, right, bottom) are close to the colour ``rgb``."""
    data = grab(display).image.convert("RGB").crop(box).tobytes()
    return sum(1 for i in range(0, len(data), 3) if all(abs(data[i + k] - rgb[k]) < 40 for k in range(3)))


def painted(display: str, box: tuple[int, int, int, int], rgb: tuple[int, int, int], timeout_s: float = 10.0) -> int:
    """``lit_pixels`` once the box shows the colour (Kdenlive paints its timeline after the window's title is set)."""
    deadline = time.monotonic() + timeout_s
    while (count := lit_pixels(display, box, rgb)) <= 100 and time.monotonic() < deadline:
        time.sleep(0.5)
    return count


def opened(task_id: str) -> tuple[KdenliveWindow, list[str], Path]:
    workspace = prepare_workspace(get_task(task_id))
    window = open_document(Path(workspace.root) / "edit.kdenlive")
    return window, window.titles(), Path(workspace.root)


def test_a_built_kdenlive_task_project_opens_in_kdenlive_with_its_clips() -> None:
    window, titles, root = opened("kdenlive-insert-black-kdenlive")  # red, blue and green clips on V1
    try:
        assert titles == ["edit / task — Kdenlive"]  # no dialog about the document
        # the timeline (below the monitors) shows the three clips in their colours; the empty timeline that
        # a rejected project gives has none
        timeline = (170, 600, 1280, 700)
        for colour in ((255, 0, 0), (0, 0, 255), (0, 128, 0)):
            assert painted(window.display.name, timeline, colour) > 100, colour
        assert painted(window.display.name, (0, 140, 230, 300), (0, 128, 0)) > 500  # green.mp4 in the bin
    finally:
        window.stop()
        shutil.rmtree(root, ignore_errors=True)


def test_a_composition_over_an_empty_track_opens_without_kdenlives_corrections() -> None:
    # V1 to V3 over the empty V2: Kdenlive says "Problems found in your project file" unless it is forced
    window, titles, root = opened("kdenlive-delete-empty-track")
    try:
        assert titles == ["edit / task — Kdenlive"]
    finally:
        window.stop()
        shutil.rmtree(root, ignore_errors=True)


SAVED = Path(__file__).parent / "kdenlive_real" / "task-project-saved-by-kdenlive-22.12.3.kdenlive"


def test_a_task_project_saved_by_kdenlive_is_read_with_its_clips_and_guide(tmp_path: Path) -> None:
    """``SAVED`` is kdenlive-insert-black-kdenlive's built project after Kdenlive 22.12.3 opened it (as
    ``asil.apps.kdenlive`` starts it), a guide was added with the ``g`` key at 00:00:44:04 and the toolbar's Save
    clicked. Kdenlive renames the track playlists (``playlist0``...) and drops ``asil:id``; the clips stay, and the
    track is called V1 again, as Kdenlive shows it."""
    shutil.copyfile(SAVED, tmp_path / "edit.kdenlive")
    ws = Workspace(tmp_path)
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    clips = [e.value for e in adapter.observe(limit=200).elements if e.type == "clip"]
    assert [(c["track"], c["start"], c["end"]) for c in clips] == [("V1", 0, 50), ("V1", 50, 100), ("V1", 100, 175)]
    track = "V1"  # Kdenlive saved it as playlist0: its lowest video track
    guides = Checkpoint(type="kdenlive_guides", app="kdenlive", document="edit.kdenlive", expected=[[1104, "guide", 0]])
    assert raw_judge(guides, ws)
    sources = Checkpoint(type="kdenlive_track_clips", app="kdenlive", document="edit.kdenlive", target=track,
                         expected=[["red.mp4", 0, 50], ["blue.mp4", 50, 100], ["green.mp4", 100, 175]])
    assert raw_judge(sources, ws)
