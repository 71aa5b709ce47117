"""The OBS adapter against a real OBS Studio (obs-websocket 5) under a private Xvfb.

One warm adapter serves the module (OBS starts in a few seconds); each test uses its own names.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from asil.adapters.obs.adapter import ObsAdapter
from asil.adapters.obs.builders import build_collection, make_media
from asil.adapters.obs.validator import raw_judge
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, EvalContext
from asil.evaluate.compare import compare
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("obs") is None or shutil.which("Xvfb") is None,
                                 reason="needs obs-studio and xvfb (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {
    "name": "Show",
    "scenes": [
        {"name": "Main", "items": [{"source": "Backdrop"}, {"source": "Clip", "position": [10, 20], "scale": [0.5, 0.5]},
                                   {"source": "Title", "position": [40, 300], "visible": False}]},
        {"name": "Break", "items": [{"source": "Backdrop"}]},
    ],
    "inputs": [
        {"name": "Backdrop", "kind": "color", "settings": {"color": "#336699", "width": 640, "height": 360},
         "filters": [{"name": "Dim", "kind": "color_correction", "settings": {"opacity": 0.8}}]},
        {"name": "Clip", "kind": "media", "settings": {"local_file": "media/clip.mp4", "looping": True},
         "muted": True, "volume_db": -6.0},
        {"name": "Title", "kind": "text", "settings": {"text": "Hello"}},
    ],
    "current_scene": "Main",
}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def state_json(adapter: ObsAdapter) -> str:
    data = adapter.observe(offset=0, limit=200).to_agent_dict()
    data["metadata"].pop("step")
    data["environment"].pop("obs")  # the session (port, restarts) may change; OBS's state may not
    return json.dumps(data, sort_keys=True)


def make_workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    make_media(ws.root / "media" / "clip.mp4", {"kind": "video", "seconds": 2})
    make_media(ws.root / "media" / "logo.png", {"kind": "image", "color": "yellow"})
    (ws.root / "scenes.json").write_bytes(build_collection(SPEC))
    return ws


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ObsAdapter]:
    ws = make_workspace(tmp_path_factory.mktemp("obs"))
    adapter = ObsAdapter(ws, "scenes.json")
    yield adapter
    adapter.close()


def element(adapter: ObsAdapter, element_id: str) -> Any:
    found = [e for e in adapter.observe(offset=0, limit=200).elements if e.id == element_id]
    assert found, f"no element {element_id}"
    return found[0]


def test_observation_shows_scenes_items_inputs_filters_and_audio(warm: ObsAdapter) -> None:
    obs = warm.observe(offset=0, limit=200)
    assert obs.metadata.source == "service" and obs.app_state.details["program_scene"] == "Main"
    ids = [e.id for e in obs.elements]
    assert ids[:7] == ["@program", "@collections", "@profiles", "scene:Main", "item:Main/Backdrop", "item:Main/Clip",
                       "item:Main/Title"]
    clip = element(warm, "item:Main/Clip")
    assert clip.value["position"] == [10.0, 20.0] and clip.value["scale"] == [0.5, 0.5]
    assert element(warm, "item:Main/Title").value["visible"] is False
    backdrop = element(warm, "input:Backdrop")
    assert backdrop.value["color"] == "#336699"
    assert backdrop.meta["filters"] == [{"name": "Dim", "kind": "color_filter_v2", "enabled": True,
                                         "settings": {"opacity": 0.8}}]
    media = element(warm, "input:Clip")
    assert media.value["local_file"] == "media/clip.mp4"
    assert media.meta["audio"] == {"muted": True, "volume_db": pytest.approx(-6.0, abs=0.01)}
    program = obs.elements[0].value
    assert program["video"]["base"] == [640, 360] and program["recording"]["active"] is False


def test_paging_and_navigate_window_the_elements(warm: ObsAdapter) -> None:
    page = warm.observe(offset=2, limit=3)
    assert page.navigation.paging is not None and page.navigation.paging.total == 9  # 2 scenes, 4 items, 3 inputs
    fixed = ["@program", "@collections", "@profiles"]  # on every page, outside the paging
    assert [e.id for e in page.elements][:3] == fixed and len(page.elements) == 6
    assert [e.id for e in page.elements][3:] == [e.id for e in warm.observe(offset=0, limit=200).elements][5:8]
    result = warm.execute(Action(action_type="navigate", target="input:Title", params={"limit": 5}))
    assert result.ok and result.observation is not None
    assert result.observation.elements[3].id == "input:Title"
    warm.observe(offset=0, limit=60)


def test_actions_change_obs_live(warm: ObsAdapter) -> None:
    steps = [
        fn("create_scene", name="Live"),
        fn("add_input", scene="Live", name="Panel", kind="color", color="#FF0000", width=200, height=100,
           position=[50, 60]),
        fn("add_input", scene="Live", name="Caption", kind="text", text="On air", font_size=40, color="#00FF00"),
        fn("add_input", scene="Live", name="Logo", kind="image", file="media/logo.png", scale=[2, 2]),
        fn("set_transform", scene="Live", source="Panel", rotation=45, crop={"left": 10}),
        fn("set_visibility", scene="Live", source="Caption", visible=False),
        fn("add_filter", source="Panel", name="Key", kind="chroma_key", settings={"similarity": 300}),
        fn("set_filter", source="Panel", filter="Key", enabled=False),
        fn("set_audio", input="Clip", muted=False, volume_db=-12),
        fn("add_to_scene", scene="Live", input="Clip", position=[0, 0]),
        fn("move_item", scene="Live", source="Clip", index=0),
        fn("set_input_settings", input="Caption", settings={"text": "Off air"}),
        fn("switch_scene", scene="Live"),
        fn("rename_input", input="Logo", name="Brand"),
    ]
    for step in steps:
        result = warm.execute(step, observe=False)
        assert result.ok, (step.target, result.error)
    state = warm.live_state()
    live = {s["name"]: s for s in state["scenes"]}["Live"]
    assert [i["source"] for i in live["items"]] == ["Clip", "Panel", "Caption", "Brand"]
    panel = live["items"][1]
    assert panel["position"] == [50.0, 60.0] and panel["rotation"] == 45.0 and panel["crop"]["left"] == 10
    assert live["items"][2]["visible"] is False and live["items"][3]["scale"] == [2.0, 2.0]
    assert state["inputs"]["Panel"]["settings"]["color"] == "#FF0000"
    assert state["inputs"]["Caption"]["settings"]["text"] == "Off air"
    assert state["inputs"]["Panel"]["filters"][0] == {"name": "Key", "kind": "chroma_key_filter_v2",
                                                       "enabled": False, "settings": {"similarity": 300}}
    assert state["inputs"]["Clip"]["muted"] is False and state["inputs"]["Clip"]["volume_db"] == pytest.approx(-12)
    assert state["current_scene"] == "Live"
    for step in (fn("remove_filter", source="Panel", filter="Key"), fn("remove_from_scene", scene="Live", source="Clip"),
                 fn("remove_input", input="Brand"), fn("rename_scene", scene="Live", name="Gone"),
                 fn("switch_scene", scene="Main"), fn("remove_scene", scene="Gone")):
        assert warm.execute(step, observe=False).ok, step.target
    state = warm.live_state()
    assert "Gone" not in [s["name"] for s in state["scenes"]] and "Brand" not in state["inputs"]


BAD_ACTIONS = [
    (fn("create_scene", name="Main"), "name_taken"),
    (fn("create_scene", name="Backdrop"), "name_taken"),
    (fn("remove_scene", scene="Nowhere"), "unknown_scene"),
    (fn("add_input", scene="Main", name="X", kind="color", color="red"), "bad_params"),
    (fn("add_input", scene="Main", name="X", kind="image"), "bad_params"),
    (fn("add_input", scene="Main", name="X", kind="image", file="../etc/passwd"), "path_outside_workspace"),
    (fn("add_input", scene="Main", name="X", kind="image", file="media/none.png"), "no_file"),
    (fn("add_input", scene="Main", name="X", kind="text", text="a", width=10), "bad_params"),
    (fn("set_transform", scene="Main", source="Clip", scale=[0, 1]), "bad_params"),
    (fn("set_transform", scene="Main", source="Nobody", position=[1, 2]), "unknown_item"),
    (fn("set_transform", scene="Main", source="Clip"), "bad_params"),
    (fn("set_audio", input="Backdrop", muted=True), "no_audio"),
    (fn("add_filter", source="Backdrop", name="Dim", kind="sharpen"), "name_taken"),
    (fn("add_filter", source="Backdrop", name="Loud", kind="gain"), "bad_params"),
    (fn("set_filter", source="Backdrop", filter="Nope", enabled=True), "unknown_filter"),
    (fn("set_input_settings", input="Backdrop", settings={"color": "#12345"}), "bad_params"),
    (fn("set_input_settings", input="Clip", settings={"is_local_file": False, "input": "rtmp://x"}), "bad_params"),
    (fn("set_input_settings", input="Title", settings={"from_file": True, "text_file": "/etc/passwd"}),
     "path_outside_workspace"),
    (fn("move_item", scene="Break", source="Backdrop", index=3), "bad_params"),
    (fn("stop_recording"), "not_recording"),
    (fn("start_recording", path="/tmp/x.mkv"), "path_outside_workspace"),
    (fn("start_recording", path="take.avi"), "bad_params"),
    (fn("set_video", base_width=1280), "bad_params"),
    (fn("teleport"), "unknown_function"),
    (Action(action_type="set_value", target="x", params={"value": 1}), "unsupported_action"),
]


@pytest.mark.parametrize(("action", "code"), BAD_ACTIONS, ids=[f"{a.target}-{c}" for a, c in BAD_ACTIONS])
def test_invalid_actions_say_why_and_change_nothing(warm: ObsAdapter, action: Action, code: str) -> None:
    before = state_json(warm)
    result = warm.execute(action, observe=False)
    assert result.status == "invalid" and result.error is not None and result.error.code == code, result.error
    assert result.error.message.endswith(".") and result.error.hint
    assert state_json(warm) == before


def test_remove_scene_is_flagged_destructive_and_the_last_scene_stays() -> None:
    functions = ObsAdapter.action_schema().functions
    assert {n for n, f in functions.items() if f.destructive} == {
        "remove_scene", "remove_input", "remove_from_scene", "remove_filter", "remove_collection", "remove_profile"}


def test_batch_checks_every_action_before_running_any(warm: ObsAdapter) -> None:
    before = state_json(warm)
    result = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "create_scene", "params": {"name": "Half"}},
        {"action_type": "invoke_function", "target": "add_input",
         "params": {"scene": "Half", "name": "Bad", "kind": "color", "color": "#GG0000"}}]}), observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 2:")
    assert state_json(warm) == before


def test_batch_sees_its_own_earlier_actions(warm: ObsAdapter) -> None:
    result = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "create_scene", "params": {"name": "Chain"}},
        {"action_type": "invoke_function", "target": "add_input",
         "params": {"scene": "Chain", "name": "Chain Text", "kind": "text", "text": "linked"}},
        {"action_type": "invoke_function", "target": "set_transform",
         "params": {"scene": "Chain", "source": "Chain Text", "position": [5, 5]}}]}), observe=False)
    assert result.ok, result.error
    assert "scene:Chain" in result.changed and "item:Chain/Chain Text" in result.changed


def test_batch_refused_by_obs_midway_is_rolled_back(warm: ObsAdapter) -> None:
    assert warm.execute(fn("create_scene", name="Outer"), observe=False).ok
    assert warm.execute(fn("create_scene", name="Inner"), observe=False).ok
    assert warm.execute(fn("add_to_scene", scene="Outer", input="Inner"), observe=False).ok
    before = state_json(warm)
    result = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "add_input",
         "params": {"scene": "Inner", "name": "Doomed", "kind": "text", "text": "x"}},
        {"action_type": "invoke_function", "target": "add_to_scene", "params": {"scene": "Inner", "input": "Outer"}},
    ]}), observe=False)  # a scene inside itself: the checks pass, OBS refuses the second step
    assert result.status == "error" and result.error is not None
    assert result.error.message.startswith("Batch action 2: OBS refused") and "Nothing was changed" in result.error.message
    assert state_json(warm) == before
    assert "Doomed" not in warm.live_state()["inputs"]


def test_render_is_obs_own_screenshot(warm: ObsAdapter, tmp_path: Path) -> None:
    assert warm.execute(fn("switch_scene", scene="Break"), observe=False).ok
    out = warm.render(tmp_path / "shot.png")
    with Image.open(out) as image:
        assert image.size == (320, 180)
        red, green, blue = image.convert("RGB").getpixel((160, 90))  # type: ignore[misc]
    # The backdrop #336699 under its 0.8-opacity filter over black: blue clearly dominates.
    assert blue > green > red and blue > 60


def test_save_writes_obs_own_collection_and_checkpoints_agree(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    original = (ws.root / "scenes.json").read_bytes()
    with ObsAdapter(ws, "scenes.json") as adapter:
        for step in (fn("create_scene", name="Outro"),
                     fn("add_input", scene="Outro", name="Thanks", kind="text", text="Thanks!", position=[100, 150]),
                     fn("set_transform", scene="Outro", source="Thanks", scale=[1.5, 1.5], rotation=10),
                     fn("add_filter", source="Thanks", name="Fade", kind="color_correction",
                        settings={"opacity": 0.5}),
                     fn("set_audio", input="Clip", volume_db=-20), fn("switch_scene", scene="Outro")):
            assert adapter.execute(step, observe=False).ok, step.target
        assert (ws.root / "scenes.json").read_bytes() == original  # nothing written before save
        adapter.save()
    saved = json.loads((ws.root / "scenes.json").read_text())
    assert "prev_ver" in saved["sources"][0] and saved["current_program_scene"] == "Outro"
    clip = [s for s in saved["sources"] if s["name"] == "Clip"][0]
    assert clip["settings"]["local_file"] == "media/clip.mp4"  # workspace-relative again
    checks = [
        Checkpoint(type="obs_scene_exists", target="Outro", expected=True),
        Checkpoint(type="obs_program_scene", expected="Outro"),
        Checkpoint(type="obs_input_value", target="Thanks.settings.text", expected="Thanks!"),
        Checkpoint(type="obs_input_value", target="Clip.volume_db", expected=-20, tolerance=0.01),
        Checkpoint(type="obs_item_value", target="Outro/Thanks.position", expected=[100, 150], tolerance=0.5),
        Checkpoint(type="obs_item_value", target="Outro/Thanks.scale", expected=[1.5, 1.5], tolerance=0.01),
        Checkpoint(type="obs_item_value", target="Outro/Thanks.rotation", expected=10, tolerance=0.01),
        Checkpoint(type="obs_filter_value", target="Thanks/Fade.settings.opacity", expected=0.5, tolerance=0.01),
        Checkpoint(type="obs_input_value", target="Backdrop.settings.color", expected="#336699"),
        Checkpoint(type="obs_scene_sources", target="Main", expected=["Backdrop", "Clip", "Title"]),
        Checkpoint(type="obs_scene_exists", target="Nope", expected=True),  # a false one: both must say no
    ]
    ctx = EvalContext(ws)
    for cp in checks:
        kind = CHECKPOINT_TYPES[cp.type]
        verdict = compare(cp.compare or kind.default_compare, kind.read(ctx, cp), cp.expected, cp.tolerance)
        assert verdict == (cp.target != "Nope"), cp
        assert raw_judge(cp, ws) == verdict, cp


def test_save_without_changes_leaves_the_file_byte_for_byte(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    before = digest(ws.root / "scenes.json")
    with ObsAdapter(ws, "scenes.json") as adapter:
        adapter.observe()
        assert not adapter.execute(fn("remove_scene", scene="Nowhere"), observe=False).ok
        adapter.save()
    assert digest(ws.root / "scenes.json") == before


def test_recording_writes_a_workspace_file_with_a_duration(warm: ObsAdapter) -> None:
    ws = warm.workspace
    assert warm.execute(fn("start_recording", path="takes/first.mkv"), observe=False).ok
    assert warm.observe().elements[0].value["recording"]["active"] is True
    assert warm.execute(fn("set_video", fps=25), observe=False).status == "invalid"  # busy while recording
    result = warm.execute(fn("stop_recording", after_s=1.5), observe=False)
    assert result.ok and "takes/first.mkv" in result.changed
    cp = Checkpoint(type="obs_media_duration", target="takes/first.mkv", expected=[1.0, 10.0])
    seconds = CHECKPOINT_TYPES[cp.type].read(EvalContext(ws), cp)
    assert 1.0 <= seconds <= 10.0 and raw_judge(cp, ws)
    again = warm.execute(fn("start_recording", path="takes/first.mkv"), observe=False)
    assert again.status == "invalid" and again.error is not None and again.error.code == "file_exists"


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"sources": [{"name": 3}]}',
                                     b'{"sources": [{"name": "a", "id": "color_source"}]}'])
def test_bad_collection_files_are_refused_and_left_unchanged(tmp_path: Path, content: bytes) -> None:
    ws = Workspace(tmp_path)
    (ws.root / "scenes.json").write_bytes(content)
    with pytest.raises(DocumentError) as caught:
        ObsAdapter(ws, "scenes.json")
    assert caught.value.hint and "scenes.json" in caught.value.message
    assert (ws.root / "scenes.json").read_bytes() == content


def test_missing_document_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        ObsAdapter(Workspace(tmp_path), "nothing.json")
