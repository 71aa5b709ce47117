"""The Kdenlive adapter: observation, timeline edits, atomic batches, saving (checked by the real melt)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.builders import project_xml
from asil.apps.melt import check_loads, probe
from asil.protocol import Action, DocumentError, InvalidAction
from asil.workspace import Workspace
from tests.adapters.kdenlive_files import NEEDS_MELT, clip, fn, make_workspace, media_dir, spec

pytestmark = [pytest.mark.slow, NEEDS_MELT]


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return media_dir(tmp_path_factory)


@pytest.fixture
def ws(tmp_path: Path, media: Path) -> Workspace:
    return make_workspace(tmp_path / "ws", media)


@pytest.fixture
def editor(ws: Workspace) -> KdenliveAdapter:
    return KdenliveAdapter(ws, "edit.kdenlive")


def clips_of(adapter: KdenliveAdapter, track: str) -> list[tuple[str, str, int, int]]:
    return [(e.id, str(e.label), e.value["start"], e.value["end"]) for e in adapter.observe(view=track).elements
            if e.type == "clip"]


def state(adapter: KdenliveAdapter) -> str:
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    return json.dumps(data, sort_keys=True) + adapter.project.serialize().decode()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- observation
def test_observation_shows_profile_tracks_and_clips(editor: KdenliveAdapter) -> None:
    obs = editor.observe()
    by_id = {e.id: e for e in obs.elements}
    assert by_id["profile"].value == {"width": 160, "height": 90, "fps": 25.0, "fps_num": 25, "fps_den": 1,
                                      "display_aspect": "16:9"}
    assert by_id["V1"].value == {"index": 0, "clips": 2, "end": 110}
    assert by_id["blue"].label == "blue.mp4"
    assert by_id["blue"].value == {"track": "V1", "start": 60, "end": 110, "length": 50, "in_frame": 0,
                                   "out_frame": 49}
    assert by_id["white"].label == "color:white"
    assert obs.metadata.source == "script" and obs.navigation.views == ["timeline", "V1", "V2"]
    assert "2 tracks, 3 clips" in obs.summary
    assert obs.environment["media_files"] == ["blue.mp4", "red.mp4"]


def test_large_projects_are_paged(tmp_path: Path, media: Path) -> None:
    many = [clip(f"k{i}", "color:#102030", i * 10, 0, 9) for i in range(300)]
    ws = make_workspace(tmp_path / "big", media, spec(tracks=[{"id": "V1", "clips": many}]))
    adapter = KdenliveAdapter(ws, "edit.kdenlive", limit=25)
    obs = adapter.observe()
    assert len(obs.elements) == 25 and obs.navigation.paging is not None
    assert obs.navigation.paging.total == 302  # profile, track, 300 clips
    result = adapter.execute(Action(action_type="navigate", target="V1", params={"offset": 290}))
    assert result.ok and result.observation is not None
    assert [e.id for e in result.observation.elements if e.type == "clip"][-1] == "k299"


def test_clip_ids_survive_moves_and_trims(editor: KdenliveAdapter) -> None:
    assert editor.execute(fn("move_clip", clip="red", position=200)).ok
    assert editor.execute(fn("trim_clip", clip="red", in_frame=10, out_frame=29, keep="end")).ok
    assert clips_of(editor, "V1") == [("blue", "blue.mp4", 60, 110), ("red", "red.mp4", 230, 250)]


# ---------------------------------------------------------------- edits
def test_add_clip_at_the_end_and_with_ripple(editor: KdenliveAdapter) -> None:
    assert editor.execute(fn("add_clip", track="V1", source="red.mp4", in_frame=5, out_frame=14, id="tail")).ok
    assert editor.execute(fn("add_clip", track="V1", source="color:#000000", out_frame=24, position=0,
                             ripple=True, id="lead")).ok
    assert clips_of(editor, "V1") == [("lead", "color:#000000", 0, 25), ("red", "red.mp4", 25, 75),
                                      ("blue", "blue.mp4", 85, 135), ("tail", "red.mp4", 135, 145)]


def test_split_copies_filters_with_new_ids_and_delete_ripples(editor: KdenliveAdapter) -> None:
    assert editor.execute(fn("add_filter", target="red", service="sepia", params={"u": 80}, id="tone")).ok
    result = editor.execute(fn("split_clip", clip="red", at=20, new_id="red2"))
    assert result.ok and result.changed == ["red", "red2"]
    obs = {e.id: e for e in editor.observe(view="V1").elements}
    assert obs["red"].value["out_frame"] == 19 and obs["red2"].value["in_frame"] == 20
    assert obs["red"].children == ["tone"] and len(obs["red2"].children) == 1 and obs["red2"].children != ["tone"]
    assert editor.execute(fn("delete_clip", clip="red2", ripple=True)).ok
    assert clips_of(editor, "V1") == [("red", "red.mp4", 0, 20), ("blue", "blue.mp4", 30, 80)]


def test_filters_transitions_tracks_and_profile(editor: KdenliveAdapter) -> None:
    assert editor.execute(fn("add_filter", target="V2", service="brightness", params={"level": 0.5}, id="dim")).ok
    assert editor.execute(fn("set_filter", filter="dim", params={"level": "0=0;10=1"})).ok
    assert editor.execute(fn("add_track", id="V3", name="Titles")).ok
    assert editor.execute(fn("add_transition", service="luma", a_track="V1", b_track="V3", start=5, end=9,
                             id="dx")).ok
    assert editor.execute(fn("set_profile", width=320, height=180, fps_num=30)).ok  # times x 1.2, same seconds
    obs = {e.id: e for e in editor.observe().elements}
    assert obs["dim"].value == {"level": "0=0;12=1"} and obs["dim"].meta == {"on": "V2"}
    assert obs["dx"].value == {"a_track": "V1", "b_track": "V3", "start": 6, "end": 11, "params": {}}
    assert obs["V3"].label == "Titles"
    assert obs["profile"].value["width"] == 320 and obs["profile"].value["fps"] == 30.0
    assert editor.execute(fn("remove_effect", id="dx")).ok
    assert "dx" not in {e.id for e in editor.observe().elements}


@pytest.mark.parametrize(("action", "code"), [
    (fn("move_clip", clip="blue", position=30), "overlap"),
    (fn("add_clip", track="V1", source="red.mp4", out_frame=50), "bad_span"),
    (fn("add_clip", track="V1", source="../outside.mp4", out_frame=5), "path_outside_workspace"),
    (fn("add_clip", track="V1", source="/etc/hostname", out_frame=5), "path_outside_workspace"),
    (fn("add_clip", track="V1", source="missing.mp4", out_frame=5), "bad_source"),
    (fn("add_clip", track="V9", source="color:red", out_frame=5), "unknown_track"),
    (fn("split_clip", clip="red", at=0), "bad_split"),
    (fn("trim_clip", clip="nope", out_frame=3), "unknown_clip"),
    (fn("add_filter", target="red", service="brightness", params={"colour": 1}), "bad_property"),
    (fn("add_filter", target="red", service="watermark"), "unknown_filter"),
    (fn("add_transition", service="luma", a_track="V1", b_track="V1", start=0, end=4), "bad_transition"),
    (fn("set_profile", width=333), "bad_params"),
    (fn("add_clip", track="V1", source="color:red", out_frame=5, id="blue"), "duplicate_id"),
    (Action(action_type="set_value", target="red", params={"value": 1}), "unsupported_action"),
])
def test_invalid_actions_change_nothing(editor: KdenliveAdapter, action: Action, code: str) -> None:
    before = state(editor)
    result = editor.execute(action)
    assert result.status == "invalid" and result.error is not None and result.error.code == code
    assert result.error.hint
    assert state(editor) == before


def test_a_failing_batch_applies_nothing(editor: KdenliveAdapter, ws: Workspace) -> None:
    before, file_before = state(editor), digest(ws.root / "edit.kdenlive")
    batch = Action(action_type="batch", params={"actions": [
        fn("add_filter", target="red", service="greyscale").model_dump(),
        fn("move_clip", clip="blue", position=200).model_dump(),
        fn("move_clip", clip="red", position=190).model_dump()]})  # overlaps blue at its new place
    result = editor.execute(batch)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 3:")
    assert state(editor) == before and digest(ws.root / "edit.kdenlive") == file_before


def test_a_batch_applies_all_its_edits(editor: KdenliveAdapter) -> None:
    batch = Action(action_type="batch", params={"actions": [
        fn("move_clip", clip="red", position=200).model_dump(),
        fn("move_clip", clip="blue", position=0).model_dump()]})
    assert editor.execute(batch).ok
    assert clips_of(editor, "V1") == [("blue", "blue.mp4", 0, 50), ("red", "red.mp4", 200, 250)]


# ---------------------------------------------------------------- saving
def test_saved_projects_load_in_melt_and_reopen_identically(editor: KdenliveAdapter, ws: Workspace) -> None:
    for action in (fn("split_clip", clip="blue", at=80), fn("add_filter", target="red", service="greyscale"),
                   fn("add_transition", service="composite", a_track="V1", b_track="V2", start=10, end=34,
                      params={"geometry": "0/0:50%x50%:100"}),
                   fn("add_clip", track="V2", source="blue.mp4", out_frame=9, position=40)):
        assert editor.execute(action).ok
    file = ws.root / "edit.kdenlive"
    untouched = digest(file)
    assert digest(file) == untouched  # edits live in memory until save
    editor.save()
    assert digest(file) != untouched
    check_loads(file)  # the real MLT XML parser accepts it
    again = KdenliveAdapter(ws, "edit.kdenlive")
    first, second = editor.observe().to_agent_dict(), again.observe().to_agent_dict()
    for data in (first, second):
        data["metadata"].pop("step")
        data["app_state"].pop("dirty")
    assert first == second


def test_kdenlive_track_tractors_are_edited_in_place(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "kd", media, spec(layout="kdenlive"))
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    tracks = {e.id: e for e in adapter.observe().elements if e.type == "track"}
    assert tracks["black_track"].editable is False and tracks["V1"].value["index"] == 1
    assert adapter.execute(fn("move_clip", clip="white", position=110, track="V1")).ok
    adapter.save()
    root = ET.parse(ws.root / "edit.kdenlive").getroot()
    v1 = next(p for p in root.iter("playlist") if p.get("id") == "V1")
    assert [e.get("producer") for e in v1.iter("entry")] == ["producer1", "producer2", "producer3"]
    check_loads(ws.root / "edit.kdenlive")
    assert adapter.execute(fn("render_video", path="all.mp4")).ok  # melt plays the track tractors
    stream = next(s for s in probe(ws.root / "all.mp4")["streams"] if s["codec_type"] == "video")
    assert abs(float(stream["duration"]) - 135 / 25) < 0.05


# ---------------------------------------------------------------- hostile files
BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE mlt [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<mlt><profile width="16" height="16"/><playlist id="V1">&b;</playlist><tractor id="t"><track producer="V1"/></tractor></mlt>"""


@pytest.mark.parametrize(("name", "data", "words"), [
    ("laughs.kdenlive", BILLION_LAUGHS, "DTD"),
    ("broken.kdenlive", b"<mlt><playlist id='V1'>", "not well-formed"),
    ("other.mlt", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "not <mlt>"),
    ("utf16.mlt", "<mlt/>".encode("utf-16"), "not UTF-8"),
    ("clip.mp4", b"\x00\x00\x00 ftypisom", ".kdenlive or .mlt"),
    ("badprofile.mlt", b"<mlt><profile width='wide' height='9'/></mlt>", "non-integer"),
    ("badtime.mlt", b"<mlt><profile width='16' height='16'/><producer id='p'/><playlist id='V1'>"
                    b"<entry producer='p' in='soon' out='3'/></playlist><tractor><track producer='V1'/></tractor></mlt>",
     "not frames"),
    ("deep.mlt", b"<mlt>" + b"<a>" * 5000 + b"</a>" * 5000 + b"</mlt>", "deep"),
])
def test_hostile_or_broken_files_are_refused_unchanged(tmp_path: Path, name: str, data: bytes, words: str) -> None:
    ws = Workspace(tmp_path / "hostile")
    (ws.root / name).write_bytes(data)
    with pytest.raises(DocumentError) as caught:
        KdenliveAdapter(ws, name)
    assert words in caught.value.message and caught.value.hint
    assert (ws.root / name).read_bytes() == data


def test_oversized_files_are_refused_before_parsing(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "huge")
    with open(ws.root / "huge.mlt", "wb") as handle:
        handle.write(b"<mlt>")
        handle.seek(40 * 1024 * 1024)
        handle.write(b"</mlt>")
    with pytest.raises(DocumentError, match="at most"):
        KdenliveAdapter(ws, "huge.mlt")


def test_media_outside_the_workspace_is_never_rendered(tmp_path: Path, media: Path) -> None:
    project = spec(tracks=[{"id": "V1", "clips": [clip("a", "../../secret.mp4", 0, 0, 9),
                                                  clip("b", "red.mp4", 10, 0, 9)]}])
    ws = make_workspace(tmp_path / "leak", media, project)
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    assert {e.label for e in adapter.observe().elements if e.type == "clip"} == {"../../secret.mp4", "red.mp4"}
    result = adapter.execute(fn("render_video", path="out.mp4"))
    assert result.status == "invalid" and result.error is not None and "outside the workspace" in result.error.message
    assert not (ws.root / "out.mp4").exists()
    with pytest.raises(InvalidAction, match="outside the workspace"):
        adapter.render(tmp_path / "snap.png")
    assert not (tmp_path / "snap.png").exists()


def test_unknown_views_are_refused(editor: KdenliveAdapter) -> None:
    result = editor.execute(Action(action_type="navigate", target="V7"))
    assert result.status == "invalid" and result.error is not None and "V1" in str(result.error.hint)


def test_builder_output_is_what_melt_expects(tmp_path: Path, media: Path) -> None:
    path = tmp_path / "p.mlt"
    path.write_bytes(project_xml(spec(transitions=[{"id": "t", "service": "luma", "a_track": "V1", "b_track": "V2",
                                                    "start": 0, "end": 5}])))
    for file in media.iterdir():
        (tmp_path / file.name).write_bytes(file.read_bytes())
    check_loads(path)


def test_every_offered_filter_and_transition_exists_in_this_melt() -> None:
    from asil.adapters.kdenlive.actions import FILTERS, TRANSITIONS
    from asil.apps.melt import services

    assert set(FILTERS) <= services("filters")
    assert set(TRANSITIONS) <= services("transitions")


def test_clock_and_smpte_times_are_read_as_frames(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "times", media)
    path = ws.root / "edit.kdenlive"
    text = path.read_text().replace('in="0" out="49"', 'in="00:00:00.000" out="00:00:01:24"', 1)
    path.write_text(text.replace('<blank length="10"', '<blank length="00:00:00.400"', 1))
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    assert clips_of(adapter, "V1") == [("red", "red.mp4", 0, 50), ("blue", "blue.mp4", 60, 110)]
    assert clips_of(adapter, "V2") == [("white", "color:white", 10, 35)]
    assert adapter.execute(fn("move_clip", clip="white", position=0)).ok
    adapter.save()
    check_loads(path)


def test_a_bare_playlist_file_becomes_a_one_track_timeline(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "bare", media)
    (ws.root / "bare.mlt").write_text(
        '<mlt><profile width="160" height="90" frame_rate_num="25" frame_rate_den="1"/>'
        '<producer id="p"><property name="resource">red.mp4</property></producer>'
        '<playlist id="only"><entry producer="p" in="0" out="9"/></playlist></mlt>')
    adapter = KdenliveAdapter(ws, "bare.mlt")
    assert clips_of(adapter, "only") == [("c1", "red.mp4", 0, 10)]
    assert adapter.execute(fn("add_clip", track="only", source="blue.mp4", out_frame=4)).ok
    adapter.save()
    check_loads(ws.root / "bare.mlt")
    assert clips_of(KdenliveAdapter(ws, "bare.mlt"), "only") == [("c1", "red.mp4", 0, 10), ("c2", "blue.mp4", 10, 15)]


def test_the_raw_validator_reads_independently_and_fails_closed(tmp_path: Path, media: Path) -> None:
    from asil.adapters.kdenlive.validator import raw_judge
    from asil.evaluate.checkpoints import Checkpoint

    ws = make_workspace(tmp_path / "raw", media, spec(layout="kdenlive"))
    layout = Checkpoint(type="kdenlive_track_clips", document="edit.kdenlive", target="V1",
                        expected=[["red.mp4", 0, 50], ["blue.mp4", 60, 110]])
    assert raw_judge(layout, ws)
    assert not raw_judge(layout.model_copy(update={"expected": [["red.mp4", 0, 50]]}), ws)
    assert not raw_judge(layout.model_copy(update={"target": "V9"}), ws)
    (ws.root / "edit.kdenlive").write_bytes(BILLION_LAUGHS)
    assert not raw_judge(layout, ws)
    assert not raw_judge(Checkpoint(type="kdenlive_video_size", target="nothing.mp4", expected=[160, 90]), ws)
