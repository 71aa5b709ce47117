"""Guides, clip markers, bin-only clips and title clips: a file the real Kdenlive wrote, refusals, restarts, melt.

``kdenlive_real/kdenlive-22.12.3-guide-marker-bin.kdenlive`` was saved by Debian's Kdenlive 22.12.3 running
under Xvfb: started with ``kdenlive -i red.mp4`` (a bin-only clip), a guide "Intro start" added with the
``add_guide`` action over D-Bus (``org.kde.KMainWindow.activateAction``), a clip marker "Red marker" in
Category 2 added with ``add_clip_marker`` in the clip monitor, then ``file_save_as``.
``asil-edited-resaved-by-kdenlive-22.12.3.kdenlive`` is that file after ASIL's edits (a guide, a clip
marker, a title and a colour card in the bin, the red clip and the title placed), opened in the same
Kdenlive (no dialog: it showed the guides, markers, title and bin clips) and saved again with ``file_save_as``.
``title-made-in-kdenlive-22.12.3.kdenlive`` holds a title made in Kdenlive's own title editor
(``add_text_clip``: the text tool, a click on the canvas, "Real title" typed, "Create Title").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.validator import raw_judge
from asil.apps.melt import MeltFailed, MeltRunner, check_loads, render_frame
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.kdenlive_files import NEEDS_MELT, clip, fn, make_workspace, media_dir, spec
from tests.png import pixels

pytestmark = [pytest.mark.slow, NEEDS_MELT]
REAL = Path(__file__).parent / "kdenlive_real"
REAL_NAME = "kdenlive-22.12.3-guide-marker-bin.kdenlive"
RESAVED_NAME = "asil-edited-resaved-by-kdenlive-22.12.3.kdenlive"


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return media_dir(tmp_path_factory)


def real_project(tmp_path: Path, name: str = REAL_NAME) -> tuple[Workspace, KdenliveAdapter]:
    ws = Workspace(tmp_path)
    shutil.copyfile(REAL / name, tmp_path / "real.kdenlive")
    shutil.copyfile(REAL / "red.mp4", tmp_path / "red.mp4")
    return ws, KdenliveAdapter(ws, "real.kdenlive")


def elements(adapter: KdenliveAdapter, kind: str) -> dict[str, Any]:
    return {e.id: e.value for e in adapter.observe(limit=200).elements if e.type == kind}


def raw(ws: Workspace, kind: str, target: str | None, expected: Any, compare: str | None = None) -> bool:
    extra = {"compare": compare} if compare else {}
    return raw_judge(Checkpoint(type=kind, app="kdenlive", document="real.kdenlive", target=target,
                                expected=expected, **extra), ws)


def test_a_project_the_real_kdenlive_saved_is_read_as_kdenlive_shows_it(tmp_path: Path) -> None:
    ws, adapter = real_project(tmp_path)
    assert elements(adapter, "guide") == {"guide:0": {"frame": 0, "comment": "Intro start", "category": 0}}
    bin_clips = elements(adapter, "bin_clip")
    assert bin_clips == {"producer0": {"source": "red.mp4", "on_timeline": False, "bin_id": "2",
                                       "markers": [{"frame": 0, "comment": "Red marker", "category": 1}]}}
    categories = adapter.observe().environment["marker_categories"]
    assert [c["name"] for c in categories] == [f"Category {n}" for n in range(1, 10)]
    assert raw(ws, "kdenlive_guides", None, [[0, "Intro start", 0]])
    assert raw(ws, "kdenlive_clip_markers", "red.mp4", [[0, "Red marker", 1]])
    assert raw(ws, "kdenlive_bin_clips", "unused", ["red.mp4"], "set")


def test_edits_of_the_real_file_keep_kdenlives_layout_and_survive_a_restart(tmp_path: Path) -> None:
    ws, adapter = real_project(tmp_path)
    for action in (fn("add_guide", frame=40, comment="Cut here", category=4),
                   fn("set_guide", frame=0, comment="Intro"),
                   fn("add_clip_marker", clip="red.mp4", frame=30, comment="Flash", category=8),
                   fn("add_title", text="Red story", id="title_a", duration=50),
                   fn("add_clip", track="V1", source="bin:red.mp4", out_frame=49, position=0)):
        result = adapter.execute(action, observe=False)
        assert result.ok, result.error
    before = (elements(adapter, "guide"), elements(adapter, "bin_clip"))
    adapter.execute(fn("save"), observe=False)
    adapter.close()
    text = (tmp_path / "real.kdenlive").read_text()
    data = json.loads(text.split('name="kdenlive:docproperties.guides">')[1].split("</property>")[0])
    assert data == [{"comment": "Intro", "pos": 0, "type": 0}, {"comment": "Cut here", "pos": 40, "type": 4}]
    again = KdenliveAdapter(ws, "real.kdenlive")  # a restart: a new adapter on the saved file
    assert (elements(again, "guide"), elements(again, "bin_clip")) == before
    assert before[1]["producer0"]["on_timeline"] is True and before[1]["title_a"]["on_timeline"] is False
    assert raw(ws, "kdenlive_clip_markers", "producer0", [[0, "Red marker", 1], [30, "Flash", 8]])
    assert raw(ws, "kdenlive_title_texts", "title_a", ["Red story"])
    check_loads(tmp_path / "real.kdenlive")  # the real MLT still loads what was saved (the title on Xvfb)


def test_kdenlive_keeps_what_asil_wrote_when_it_saves_the_project_again(tmp_path: Path) -> None:
    ws, adapter = real_project(tmp_path, RESAVED_NAME)
    assert [(v["frame"], v["comment"], v["category"]) for v in elements(adapter, "guide").values()] == [
        (0, "Intro edited", 0), (40, "ASIL guide", 4)]
    by_name = {e.label: e.value for e in adapter.observe(limit=200).elements if e.type == "bin_clip"}
    assert sorted(by_name) == ["ASIL title", "Green card", "red.mp4"]
    assert by_name["red.mp4"]["markers"][1] == {"frame": 30, "comment": "ASIL marker", "category": 8}
    assert by_name["ASIL title"]["title_texts"] == ["ASIL title"] and by_name["ASIL title"]["on_timeline"]
    assert by_name["Green card"]["on_timeline"] is False
    assert raw(ws, "kdenlive_bin_clips", "unused", ["Green card"], "set")
    assert raw(ws, "kdenlive_title_texts", "V2:0", ["ASIL title"])
    assert raw(ws, "kdenlive_guides", None, [[0, "Intro edited", 0], [40, "ASIL guide", 4]])


def test_a_title_made_in_kdenlives_title_editor_is_read_edited_and_drawn_by_melt(tmp_path: Path) -> None:
    ws, adapter = real_project(tmp_path, "title-made-in-kdenlive-22.12.3.kdenlive")
    title = next(e for e in adapter.observe(limit=200).elements if e.type == "bin_clip" and e.id == "producer1")
    assert (title.label, title.value["source"], title.value["title_texts"]) == ("Real title", "title:Real title",
                                                                                ["Real title"])
    try:
        for action in (fn("set_title", clip="Real title", text="Edited title"),
                       fn("add_clip", track="V1", source="bin:producer1", out_frame=49, position=0),
                       fn("render_frame", path="title.png", frame=10), fn("save")):
            result = adapter.execute(action, observe=False)
            assert result.ok, result.error
    finally:
        adapter.close()
    assert _bright(ws.root / "title.png") > 0  # melt drew the text on its private display
    saved = (tmp_path / "real.kdenlive").read_text()
    assert 'font="Sans Serif"' in saved and "Edited title" in saved  # Kdenlive's own font kept, text changed
    assert raw(ws, "kdenlive_title_texts", "V1:0", ["Edited title"])


REFUSALS = [
    (fn("add_guide", frame=10, comment="again"), "marker_exists", "already a guide at frame 10"),
    (fn("add_guide", frame=11, category=12), "unknown_category", "no marker category 12"),
    (fn("set_guide", frame=12, comment="x"), "unknown_marker", "no guide at frame 12"),
    (fn("set_guide", frame=10), "bad_params", "at least one of"),
    (fn("set_guide", frame=10, new_frame=30), "marker_exists", "already a guide at frame 30"),
    (fn("delete_guide", frame=99), "unknown_marker", "no guide at frame 99"),
    (fn("add_clip_marker", clip="red", frame=60, comment="late"), "bad_frame", "past the end"),
    (fn("add_clip_marker", clip="nothing", frame=1), "unknown_clip", "no bin clip or timeline clip"),
    (fn("add_clip_marker", clip="red", frame=5), "marker_exists", "already a marker"),
    (fn("delete_clip_marker", clip="red", frame=6), "unknown_marker", "no marker at frame 6"),
    (fn("delete_bin_clip", clip="red.mp4"), "clip_in_use", "used on the timeline"),
    (fn("add_bin_clip", source="red.mp4"), "already_in_bin", "already in the bin"),
    (fn("add_bin_clip", source="missing.mp4"), "bad_source", "does not exist"),
    (fn("set_title", clip="red", text="Hi"), "not_a_title", "not a title clip"),
    (fn("set_title", clip="hello", text="Hi", item=3), "bad_item", "no text item 3"),
    (fn("add_clip", track="V1", source="bin:nope", out_frame=9, position=200), "unknown_bin_clip", "no bin clip"),
    (fn("add_title", text="bad\x07bell"), "bad_params", "text"),
]


def _marked_spec() -> dict[str, Any]:
    tracks = [{"id": "V1", "clips": [clip("red", "red.mp4", 0, 0, 49)]},
              {"id": "V2", "clips": [clip("hello", "title:Hello", 0, 0, 24)]}]
    return spec(layout="kdenlive", tracks=tracks, guides=[[10, "Ten", 0], [30, "Thirty", 1]],
                bin=[{"source": "red.mp4", "markers": [[5, "Five", 2]]}, {"source": "blue.mp4", "name": "Spare"}])


@pytest.mark.parametrize(("action", "code", "words"), REFUSALS, ids=[f"{a.target}-{c}" for a, c, _ in REFUSALS])
def test_a_refused_edit_says_what_is_wrong_and_changes_nothing(tmp_path: Path, media: Path, action: Action,
                                                               code: str, words: str) -> None:
    ws = make_workspace(tmp_path, media, _marked_spec())
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    before = adapter.saved_bytes()
    result = adapter.execute(action, observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.code == code, result.error
    assert words in result.error.message + (result.error.hint or "")
    assert result.error.message.count(". ") == 0 and result.error.hint  # one sentence, and what is valid
    assert adapter.saved_bytes() == before and not adapter.dirty


def test_a_batch_with_a_bad_marker_edit_applies_nothing(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, _marked_spec())
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    before = adapter.saved_bytes()
    batch = Action(action_type="batch", params={"actions": [
        fn("add_guide", frame=50, comment="fine").model_dump(exclude_none=True),
        fn("add_bin_clip", source="color:#123456", id="card").model_dump(exclude_none=True),
        fn("delete_guide", frame=77).model_dump(exclude_none=True)]})
    result = adapter.execute(batch, observe=False)
    assert result.status == "invalid" and result.error is not None and "Nothing in the batch" in result.error.message
    assert adapter.saved_bytes() == before


def test_bin_only_clips_become_timeline_clips_and_back(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, _marked_spec())
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    spare = next(e for e in adapter.observe(limit=200).elements if e.type == "bin_clip" and e.label == "Spare")
    assert spare.value["on_timeline"] is False
    assert adapter.execute(fn("add_clip", track="V1", source="bin:Spare", out_frame=9, position=60)).ok
    assert elements(adapter, "bin_clip")[spare.id]["on_timeline"] is True
    placed = [c for c in elements(adapter, "clip").values() if c["start"] == 60]
    assert placed and placed[0]["track"] == "V1"
    assert adapter.execute(fn("delete_clip", clip=next(i for i, v in elements(adapter, "clip").items()
                                                        if v["start"] == 60))).ok
    assert adapter.execute(fn("delete_bin_clip", clip="Spare")).ok
    assert spare.id not in elements(adapter, "bin_clip")


def _bright(path: Path) -> int:
    width, height, rows = pixels(path)
    return sum(1 for row in rows for value in row if value > 180)


def test_melt_draws_title_text_on_a_private_display(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, spec(tracks=[{"id": "V1", "clips": [clip("t", "title:HELLO", 0, 0, 24)]}]))
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    try:
        assert adapter.execute(fn("render_frame", path="hello.png", frame=5), observe=False).ok
        lit = _bright(ws.root / "hello.png")
        assert adapter.execute(fn("set_title", clip="t", text="A"), observe=False).ok
        assert adapter.execute(fn("render_frame", path="a.png", frame=5), observe=False).ok
        assert lit > 3 * _bright(ws.root / "a.png") > 0  # the text is drawn: five letters light more than one
    finally:
        adapter.close()
    assert adapter.melt.display is None  # close stopped melt's Xvfb


def test_without_a_display_melt_refuses_titles_instead_of_drawing_invalid(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, spec(tracks=[{"id": "V1", "clips": [clip("t", "title:HELLO", 0, 0, 24)]}]))
    runner = MeltRunner()  # needs_display stays False: MLT's Qt module has no X display
    with pytest.raises(MeltFailed):
        render_frame(runner, ws.root / "edit.kdenlive", ws.root / "x.png", 5, timeout_s=60)
    assert not (ws.root / "x.png").exists()


def test_a_broken_guide_list_is_observed_as_none_and_edits_of_it_are_refused(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, _marked_spec())
    path = ws.root / "edit.kdenlive"
    path.write_text(path.read_text().replace('"pos": 10', '"pos": "ten"'))
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    before = adapter.saved_bytes()
    assert elements(adapter, "guide") == {}
    result = adapter.execute(fn("add_guide", frame=5), observe=False)
    assert result.status == "invalid" and result.error is not None and result.error.code == "unreadable_markers"
    assert "not a Kdenlive marker list" in result.error.message and adapter.saved_bytes() == before


def test_a_frame_rate_change_keeps_guides_and_clip_markers_at_their_seconds(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, _marked_spec())
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    assert adapter.execute(fn("set_profile", fps_num=50), observe=False).ok
    assert [(v["frame"], v["comment"]) for v in elements(adapter, "guide").values()] == [(20, "Ten"), (60, "Thirty")]
    red = next(v for v in elements(adapter, "bin_clip").values() if v["source"] == "red.mp4")
    assert red["markers"] == [{"frame": 10, "comment": "Five", "category": 2}]
    assert adapter.execute(fn("set_profile", fps_num=5), observe=False).ok  # 50 -> 5 fps: 20 and 60 -> 2 and 6
    assert [v["frame"] for v in elements(adapter, "guide").values()] == [2, 6]
