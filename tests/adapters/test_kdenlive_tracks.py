"""Kdenlive track edits (delete, rename, hide, mute) and frame-rate changes that keep times, with the real melt."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.project import set_prop
from asil.adapters.kdenlive.validator import raw_judge
from asil.apps.melt import check_loads, probe
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.kdenlive_files import NEEDS_MELT, clip, fn, make_workspace, media_dir, spec
from tests.png import pixels

pytestmark = [pytest.mark.slow, NEEDS_MELT]
LAYOUTS = ["mlt", "kdenlive"]
THREE = [{"id": "V1", "clips": [clip("red", "red.mp4", 0, 0, 49)]},
         {"id": "V2", "name": "Overlay", "clips": [clip("white", "color:white", 10, 0, 24)]},
         {"id": "V3", "clips": [clip("blue", "blue.mp4", 30, 0, 9)]}]
DISSOLVE = {"id": "dx", "service": "luma", "a_track": "V1", "b_track": "V3", "start": 30, "end": 39}


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return media_dir(tmp_path_factory)


def open_project(tmp_path: Path, media: Path, layout: str, **changes: Any) -> tuple[Workspace, KdenliveAdapter]:
    ws = make_workspace(tmp_path / layout, media, spec(layout=layout, **changes))
    return ws, KdenliveAdapter(ws, "edit.kdenlive")


def tracks(adapter: KdenliveAdapter) -> dict[str, Any]:
    return {e.id: (e.label, e.value) for e in adapter.observe().elements if e.type == "track" and e.editable}


def state(adapter: KdenliveAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    return json.dumps(data, sort_keys=True) + adapter.project.serialize().decode()


def centre(adapter: KdenliveAdapter, ws: Workspace, frame: int) -> tuple[int, ...]:
    assert adapter.execute(fn("render_frame", path="f.png", frame=frame)).ok
    width, height, rows = pixels(ws.root / "f.png")
    return tuple(rows[height // 2][width // 2 * 3:width // 2 * 3 + 3])


def saved_and_loaded(adapter: KdenliveAdapter, ws: Workspace) -> ET.Element:
    adapter.save()
    check_loads(ws.root / "edit.kdenlive")  # the real MLT XML parser accepts it
    return ET.parse(ws.root / "edit.kdenlive").getroot()


def judge(ws: Workspace, kind: str, target: str | None, expected: Any) -> bool:
    return raw_judge(Checkpoint(type=kind, app="kdenlive", document="edit.kdenlive", target=target,
                                expected=expected), ws)


# ---------------------------------------------------------------- set_track
@pytest.mark.parametrize("layout", LAYOUTS)
def test_set_track_renames_hides_and_mutes_as_melt_plays_it(tmp_path: Path, media: Path, layout: str) -> None:
    ws, adapter = open_project(tmp_path, media, layout)
    assert centre(adapter, ws, 15)[:3] == (255, 255, 255)  # the white V2 clip covers red V1
    assert adapter.execute(fn("set_track", track="V2", name="Titles", hidden=True, muted=True)).ok
    assert tracks(adapter)["V2"] == ("Titles", {"index": 1 + (layout == "kdenlive"), "clips": 1, "end": 35,
                                                "hide": "both"})
    assert centre(adapter, ws, 15)[0] > 200 > centre(adapter, ws, 15)[1]  # red shows through the hidden track
    root = saved_and_loaded(adapter, ws)
    assert judge(ws, "kdenlive_track_state", "V2", {"name": "Titles", "hidden": True, "muted": True})
    hides = [t.get("hide") for t in root.iter("track") if t.get("producer") in ("V2", "V2_b")]
    assert hides == (["both"] if layout == "mlt" else ["both", "both"])  # where MLT and Kdenlive read it
    assert adapter.execute(fn("set_track", track="V2", hidden=False)).ok
    assert tracks(adapter)["V2"][1]["hide"] == "audio"
    assert adapter.execute(fn("set_track", track="V2", muted=False)).ok
    assert "hide" not in tracks(adapter)["V2"][1]
    assert centre(adapter, ws, 15)[:3] == (255, 255, 255)


# ---------------------------------------------------------------- delete_track
@pytest.mark.parametrize("layout", LAYOUTS)
def test_delete_track_renumbers_transitions_and_leaves_no_orphans(tmp_path: Path, media: Path, layout: str) -> None:
    ws, adapter = open_project(tmp_path, media, layout, tracks=THREE, transitions=[DISSOLVE])
    result = adapter.execute(fn("delete_track", track="V2"))
    assert result.ok and result.changed == ["V2", "white"]
    assert list(tracks(adapter)) == ["V1", "V3"]
    dx = next(e for e in adapter.observe().elements if e.id == "dx")
    assert (dx.value["a_track"], dx.value["b_track"]) == ("V1", "V3")  # renumbered with the tracks
    root = saved_and_loaded(adapter, ws)
    ids = {node.get("id") for node in root}
    assert not ids & {"V2", "V2_b", "V2_tractor"}
    assert judge(ws, "kdenlive_tracks", None, ["V1", "V3"])
    assert judge(ws, "kdenlive_transitions", None, [["luma", "V1", "V3", 30, 39]])
    assert adapter.execute(fn("render_video", path="out.mp4")).ok
    stream = next(s for s in probe(ws.root / "out.mp4")["streams"] if s["codec_type"] == "video")
    assert abs(float(stream["duration"]) - 50 / 25) < 0.05


def test_kdenlive_automatic_compositing_goes_with_its_track(tmp_path: Path, media: Path) -> None:
    ws, adapter = open_project(tmp_path, media, "kdenlive", tracks=THREE)
    tractor = adapter.project.main_tractor()
    auto = ET.SubElement(tractor, "transition", {"id": "auto2"})
    for name, value in (("mlt_service", "composite"), ("a_track", "0"), ("b_track", "2"), ("internal_added", "237")):
        set_prop(auto, name, value)
    result = adapter.execute(fn("delete_track", track="V2"))
    assert result.ok and "auto2" in result.changed
    assert adapter.project.element_by_id("auto2") is None
    saved_and_loaded(adapter, ws)


@pytest.mark.parametrize(("action", "code", "words"), [
    (fn("delete_track", track="V3"), "track_in_use", "transition(s) dx"),
    (fn("delete_track", track="V9"), "unknown_track", "no track 'V9'"),
    (fn("delete_track", track="black_track"), "read_only_track", "background"),
    (fn("set_track", track="V2"), "bad_params", "at least one"),
    (fn("set_track", track="V2", name="<b>"), "bad_params", "name"),
    (fn("set_track", track="V2", hidden="yes"), "bad_params", "hidden"),
    (fn("set_profile", fps_num=0), "bad_params", "fps_num"),
])
def test_bad_track_and_profile_edits_change_nothing(tmp_path: Path, media: Path, action: Action, code: str,
                                                    words: str) -> None:
    ws, adapter = open_project(tmp_path, media, "kdenlive", tracks=THREE, transitions=[DISSOLVE])
    adapter.save()  # ids assigned on open are written, so the file is stable from here
    before, file_before = state(adapter), hashlib.sha256((ws.root / "edit.kdenlive").read_bytes()).digest()
    result = adapter.execute(action)
    assert result.status == "invalid" and result.error is not None and result.error.code == code, result.error
    assert words in result.error.message and result.error.hint
    adapter.save()
    assert state(adapter) == before
    assert hashlib.sha256((ws.root / "edit.kdenlive").read_bytes()).digest() == file_before


def test_the_last_video_track_cannot_be_deleted(tmp_path: Path, media: Path) -> None:
    ws, adapter = open_project(tmp_path, media, "mlt")
    assert adapter.execute(fn("delete_track", track="V1")).ok
    result = adapter.execute(fn("delete_track", track="V2"))
    assert result.status == "invalid" and result.error is not None and result.error.code == "last_track"
    assert list(tracks(adapter)) == ["V2"]


# ---------------------------------------------------------------- frame rate
def render_seconds(adapter: KdenliveAdapter, ws: Workspace, name: str) -> float:
    assert adapter.execute(fn("render_video", path=name)).ok
    stream = next(s for s in probe(ws.root / name)["streams"] if s["codec_type"] == "video")
    return float(stream["duration"])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_frame_rate_change_keeps_every_time_in_seconds(tmp_path: Path, media: Path, layout: str) -> None:
    fade = {"id": "fade", "service": "brightness", "params": {"level": "0=0;25=1;-1=0.5"}}
    body = [{"id": "V1", "clips": [clip("red", "red.mp4", 0, 0, 49, filters=[fade]),
                                   clip("blue", "blue.mp4", 60, 10, 39)]},
            {"id": "V2", "clips": [clip("white", "color:white", 10, 0, 24)]}]
    ws, adapter = open_project(tmp_path, media, layout, tracks=body,
                               transitions=[{"id": "dx", "service": "luma", "a_track": "V1", "b_track": "V2",
                                             "start": 10, "end": 34}])
    before = render_seconds(adapter, ws, "before.mp4")
    assert adapter.execute(fn("set_profile", fps_num=50)).ok
    clips = {e.id: e.value for e in adapter.observe().elements if e.type == "clip"}
    assert [clips["red"][k] for k in ("start", "end", "in_frame", "out_frame")] == [0, 100, 0, 99]
    assert [clips["blue"][k] for k in ("start", "end", "in_frame", "out_frame")] == [120, 180, 20, 79]
    assert [clips["white"][k] for k in ("start", "end")] == [20, 70]
    found = {e.id: e.value for e in adapter.observe().elements if e.type in ("filter", "transition")}
    assert found["fade"] == {"level": "0=0;50=1;-2=0.5"}
    assert (found["dx"]["start"], found["dx"]["end"]) == (20, 69)
    assert abs(render_seconds(adapter, ws, "after.mp4") - before) < 0.05  # 90 frames at 25 = 180 at 50
    saved_and_loaded(adapter, ws)
    assert judge(ws, "kdenlive_track_clips", "V1", [["red.mp4", 0, 100], ["blue.mp4", 120, 180]])


def test_inexact_rates_round_half_up_and_keep_neighbours_touching(tmp_path: Path, media: Path) -> None:
    body = [{"id": "V1", "clips": [clip("a", "color:red", 0, 0, 6), clip("b", "color:blue", 7, 3, 8),
                                   clip("c", "color:white", 20, 0, 0)]}]
    ws, adapter = open_project(tmp_path, media, "mlt", tracks=body)
    assert adapter.execute(fn("set_profile", fps_num=30)).ok  # x 1.2: boundaries 7 -> 8.4, 13 -> 15.6, 20 -> 24
    spans = [(e.value["start"], e.value["end"], e.value["in_frame"]) for e in adapter.observe().elements
             if e.type == "clip"]
    assert spans == [(0, 8, 0), (8, 16, 4), (24, 25, 0)]
    assert adapter.execute(fn("set_profile", fps_num=10)).ok  # x 1/3: the one-frame clip keeps one frame
    ends = [(e.value["start"], e.value["end"]) for e in adapter.observe().elements if e.type == "clip"]
    assert ends == [(0, 3), (3, 5), (8, 9)]
    saved_and_loaded(adapter, ws)


def test_a_size_only_profile_change_moves_nothing(tmp_path: Path, media: Path) -> None:
    ws, adapter = open_project(tmp_path, media, "mlt")
    before = [e.value for e in adapter.observe().elements if e.type == "clip"]
    result = adapter.execute(fn("set_profile", width=320, height=180))
    assert result.ok and result.changed == ["profile"]
    assert [e.value for e in adapter.observe().elements if e.type == "clip"] == before


def test_a_batch_of_track_and_rate_edits_is_all_or_nothing(tmp_path: Path, media: Path) -> None:
    ws, adapter = open_project(tmp_path, media, "kdenlive", tracks=THREE)
    before = state(adapter)
    steps = [fn("set_profile", fps_num=50), fn("delete_track", track="V2"), fn("delete_track", track="V3"),
             fn("delete_track", track="V1")]  # the last would leave no video track
    result = adapter.execute(Action(action_type="batch", params={"actions": [s.model_dump() for s in steps]}))
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 4:") and result.error.code == "last_track"
    assert state(adapter) == before
    result = adapter.execute(Action(action_type="batch", params={"actions": [s.model_dump() for s in steps[:3]]}))
    assert result.ok and list(tracks(adapter)) == ["V1"]
    assert [e.value["end"] for e in adapter.observe().elements if e.type == "clip"] == [100]
