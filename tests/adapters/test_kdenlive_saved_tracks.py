"""Track tasks judged on projects the real Kdenlive 22.12.3 saved (tests/adapters/kdenlive_real/, saved through
``asil.apps.kdenlive_gui``'s Ctrl+S from the task's built project; no timeline edit was made in them):

* Kdenlive renames the track playlists ``playlist0``... and keeps ASIL's names only as ``kdenlive:track_name``;
  the tracks are called V1, V2... (A1, A2... for audio) by position, or found by their Kdenlive name;
* it adds its own ``qtblend`` compositing between tracks and volume/panner filters, marked ``internal_added``:
  no checkpoint and no observation counts them, while the transition a task made is still judged;
* the untouched timelines must fail their tasks, with the evaluator and the raw validator agreeing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.media import kdenlive_color
from asil.adapters.kdenlive.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.runner.check import raw_disagreements
from asil.tasks import get_task
from asil.workspace import Workspace

REAL = Path(__file__).parent / "kdenlive_real"
# kdenlive-delete-empty-track's project (V1, the empty 'Overlay' V2, 'Titles' V3 and a luma from V1 to V3)
DELETE_TRACK = "delete-empty-track-saved-by-kdenlive-22.12.3.kdenlive"
# kdenlive-bin-place's project: a clip-monitor zone was set and undone, so Kdenlive saved the timeline as built
BIN_PLACE = "bin-place-untouched-saved-by-kdenlive-22.12.3.kdenlive"
# kdenlive-insert-black-kdenlive's project with one guide added (test_kdenlive_opens_in_kdenlive.py)
INSERT_BLACK = "task-project-saved-by-kdenlive-22.12.3.kdenlive"


def workspace_with(tmp_path: Path, name: str) -> Workspace:
    shutil.copyfile(REAL / name, tmp_path / "edit.kdenlive")
    return Workspace(tmp_path)


def checkpoint(kind: str, target: str | None, expected: object) -> Checkpoint:
    return Checkpoint(type=kind, app="kdenlive", document="edit.kdenlive", target=target, expected=expected)


def both(ws: Workspace, cp: Checkpoint) -> tuple[bool, bool]:
    """The evaluator's and the raw validator's verdicts on one checkpoint."""
    evaluation = evaluate_paths([[cp]], ws)
    return evaluation.success, raw_judge(cp, ws)


@pytest.mark.parametrize(("task_id", "saved"), [("kdenlive-delete-empty-track", DELETE_TRACK),
                                                ("kdenlive-bin-place", BIN_PLACE),
                                                ("kdenlive-insert-black-kdenlive", INSERT_BLACK)])
def test_an_untouched_timeline_kdenlive_saved_fails_its_task_and_the_raw_validator_agrees(
        tmp_path: Path, task_id: str, saved: str) -> None:
    task, ws = get_task(task_id), workspace_with(tmp_path, saved)
    evaluation = evaluate_paths(task.evaluator.paths, ws)
    assert not evaluation.success
    assert raw_disagreements(task, evaluation, ws, None, None, "kdenlive-saved") == []
    found = [v.actual for v in evaluation.paths[0].checkpoints if v.type == "kdenlive_track_clips"]
    assert found and all(found), "the track was found (its clips read), only the edit is missing"


def test_kdenlives_renamed_tracks_are_called_by_position_and_by_their_kdenlive_names(tmp_path: Path) -> None:
    ws = workspace_with(tmp_path, DELETE_TRACK)
    assert 'producer="playlist4"' in (tmp_path / "edit.kdenlive").read_text()  # no V3 playlist in the file
    assert both(ws, checkpoint("kdenlive_tracks", None, ["V1", "V2", "V3"])) == (True, True)
    white = [["color:white", 40, 60]]
    for target in ("V3", "Titles"):
        assert both(ws, checkpoint("kdenlive_track_clips", target, white)) == (True, True), target
    assert both(ws, checkpoint("kdenlive_track_clips", "V2", [])) == (True, True)
    assert both(ws, checkpoint("kdenlive_track_clips", "Overlay", [])) == (True, True)
    assert both(ws, checkpoint("kdenlive_track_clips", "playlist4", white)) == (False, False)  # not a track name
    assert both(ws, checkpoint("kdenlive_clip_spans", "Video 1", [[0, 49], [0, 49]])) == (True, True)


def test_kdenlives_own_compositing_is_left_out_and_the_tasks_transition_is_judged(tmp_path: Path) -> None:
    ws = workspace_with(tmp_path, DELETE_TRACK)
    assert (tmp_path / "edit.kdenlive").read_text().count("internal_added") == 5  # 3 qtblend, volume, panner
    assert both(ws, checkpoint("kdenlive_transitions", None, [["luma", "V1", "V3", 40, 59]])) == (True, True)
    assert both(ws, checkpoint("kdenlive_transitions", None, [])) == (False, False)
    assert both(ws, checkpoint("kdenlive_filter_services", "timeline", [])) == (True, True)
    observation = KdenliveAdapter(ws, "edit.kdenlive").observe(limit=200)
    shown = [e for e in observation.elements if e.type in ("transition", "filter")]
    assert [(e.label, e.value["a_track"], e.value["b_track"]) for e in shown] == [("luma", "V1", "V3")]
    assert "1 transitions" in observation.summary


def test_audio_tracks_are_numbered_from_the_video_tracks_down(tmp_path: Path) -> None:
    ws = workspace_with(tmp_path, "kdenlive-22.12.3-guide-marker-bin.kdenlive")  # Kdenlive's default 2+2 tracks
    assert both(ws, checkpoint("kdenlive_tracks", None, ["A2", "A1", "V1", "V2"])) == (True, True)
    tracks = KdenliveAdapter(ws, "edit.kdenlive").project.tracks()
    assert [(t.id, t.audio) for t in tracks if t.playlist is not None] == [("A2", True), ("A1", True),
                                                                           ("V1", False), ("V2", False)]


def test_a_colour_from_kdenlives_dialog_reads_as_tasks_name_it() -> None:
    assert [kdenlive_color(v) for v in ("0x000000ff", "0xFFCC00FF", "0xffffff80", "black", "#ffcc00")] == [
        "black", "#ffcc00", "#ffffff80", "black", "#ffcc00"]
