"""The Blender adapter against a real headless Blender: observation, actions, atomicity, saving.

One warm adapter serves the module's read-mostly tests (Blender starts in seconds).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.blender.actions import FUNCTIONS
from asil.adapters.blender.adapter import BlenderAdapter
from asil.adapters.blender.scene import build_blend
from asil.protocol import Action, InvalidAction
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("blender") is None, reason="needs blender (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {
    "objects": [
        {"name": "Box", "kind": "cube", "location": [1, 2, 3], "rotation": [0, 0, 30], "scale": [2, 1, 1],
         "material": {"material": "Steel", "base_color": [0.2, 0.3, 0.4], "metallic": 0.9, "roughness": 0.25},
         "modifiers": [{"type": "BEVEL", "name": "Bevel", "settings": {"width": 0.05, "segments": 2}}],
         "collection": "Props", "keyframes": [{"property": "location", "frame": 10}]},
        {"name": "Lid", "kind": "cylinder", "parent": "Box", "location": [0, 0, 1]},
        {"name": "Lamp", "kind": "light", "light_type": "SPOT", "light": {"energy": 250.0, "color": [1, 0.5, 0.25]}},
        {"name": "Cam", "kind": "camera", "location": [6, -6, 4], "rotation": [65, 0, 45], "lens": 35.0},
    ],
    "scene": {"frames": {"start": 5, "end": 50}, "render": {"engine": "CYCLES", "resolution_x": 320,
                                                              "resolution_y": 240, "samples": 4}},
}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("blend") / "scene.blend"
    build_blend(path, SPEC)
    return path


@pytest.fixture(scope="module")
def warm(scene_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BlenderAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("warm"))
    shutil.copyfile(scene_file, ws.root / "scene.blend")
    adapter = BlenderAdapter(ws, "scene.blend", allow_code=True)
    yield adapter
    adapter.close()


def element(adapter: BlenderAdapter, name: str) -> Any:
    return next(e for e in adapter.observe().elements if e.id == name)


def test_the_observation_shows_transforms_materials_modifiers_lights_cameras_animation(warm: BlenderAdapter) -> None:
    obs = warm.observe()
    box = element(warm, "Box")
    assert obs.metadata.source == "script" and obs.navigation.paging is not None
    assert box.value == {"location": [1.0, 2.0, 3.0], "rotation": [0.0, 0.0, 30.0], "scale": [2.0, 1.0, 1.0]}
    assert box.meta["dimensions"] == [4.0, 2.0, 2.0] and box.children == ["Lid"]
    assert box.meta["materials"] == ["Steel"] and box.meta["collections"] == ["Props"]
    assert box.meta["modifiers"][0] | {"width": 0.05, "segments": 2, "type": "BEVEL"} == box.meta["modifiers"][0]
    assert box.meta["keyframes"] == {"location": [10]}
    assert element(warm, "Lid").meta["parent"] == "Box"
    assert element(warm, "Lamp").meta["light"] == {"type": "SPOT", "energy": 250.0, "color": [1.0, 0.5, 0.25]}
    assert element(warm, "Cam").meta["camera"]["lens"] == 35.0
    steel = obs.environment["materials"]["Steel"]
    assert steel["base_color"] == [0.2, 0.3, 0.4, 1.0] and steel["metallic"] == 0.9 and steel["roughness"] == 0.25
    scene = element(warm, "@scene")
    assert scene.value["frame_start"] == 5 and scene.value["frame_end"] == 50
    assert scene.meta["render"]["resolution_x"] == 320 and scene.meta["render"]["samples"] == 4


def test_navigation_pages_the_objects_by_name(warm: BlenderAdapter) -> None:
    assert warm.execute(Action(action_type="navigate", params={"offset": 1, "limit": 2})).ok
    obs = warm.observe()
    assert [e.id for e in obs.elements] == ["@scene", "Cam", "Lamp"]
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 4
    assert warm.execute(Action(action_type="navigate", target="Lid", params={"limit": 50})).ok
    assert [e.id for e in warm.observe().elements] == ["@scene", "Lid"]
    missing = warm.execute(Action(action_type="navigate", target="Nope"))
    assert missing.status == "invalid" and missing.error is not None and "Nope" in missing.error.message
    warm.execute(Action(action_type="navigate", params={"offset": 0}))


def test_rename_reports_the_new_id_and_a_failed_batch_changes_nothing(warm: BlenderAdapter) -> None:
    renamed = warm.execute(fn("rename_object", object="Lid", name="Cap"))
    assert renamed.ok and renamed.changed == ["Lid", "Cap"]
    before = warm.scene_data()
    failed = warm.execute(Action(action_type="batch", params={"actions": [
        fn("set_transform", object="Box", location=[9.0, 9.0, 9.0]).model_dump(),
        fn("add_modifier", object="Box", type="ARRAY", name="Bevel").model_dump()]}))
    assert failed.status == "invalid" and failed.error is not None
    assert failed.error.message.startswith("Batch action 2:") and "already has a modifier" in failed.error.message
    assert warm.scene_data() == before
    ok = warm.execute(Action(action_type="batch", params={"actions": [
        fn("add_object", kind="monkey", name="Suzanne").model_dump(),
        fn("assign_material", object="Suzanne", material="Steel").model_dump()]}))
    assert ok.ok and ok.changed == ["Suzanne"]
    assert element(warm, "Suzanne").meta["materials"] == ["Steel"]


@pytest.mark.parametrize(("action", "words"), [
    (fn("set_transform", object="Box", location=[1, 2]), "location"),
    (fn("set_transform", object="Ghost", location=[1, 2, 3]), "no object named 'Ghost'"),
    (fn("add_modifier", object="Box", type="BEVEL", name="B2", settings={"wobble": 1}), "no setting 'wobble'"),
    (fn("set_light", object="Box", energy=5.0), "not a light"),
    (fn("set_frame_range", start=50, end=10), "before it starts"),
    (fn("render_frame", path="../outside.png"), "outside"),
    (fn("edit_material", material="Nope", metallic=1.0), "no material"),
    (Action(action_type="set_value", target="Box.colour", params={"value": [1, 2, 3]}), "<object>.location"),
    (Action(action_type="api_call", target="x"), "does not support"),
])
def test_malformed_actions_get_one_sentence_and_leave_the_file_alone(
        warm: BlenderAdapter, action: Action, words: str) -> None:
    before = digest(warm.path)
    state = warm.scene_data()
    result = warm.execute(action)
    assert result.status == "invalid" and result.error is not None
    assert words in result.error.message + (result.error.hint or "")
    assert warm.scene_data() == state and digest(warm.path) == before


@pytest.mark.parametrize(("function", "params"), [
    ("add_object", {"kind": "cube", "name": "@scene"}),
    ("duplicate_object", {"object": "Cube", "name": "@scene"}),  # found by tests/fuzz: two elements '@scene'
    ("rename_object", {"object": "Cube", "name": "@x"}),
])
def test_objects_cannot_take_names_kept_for_the_scene_element(function: str, params: dict[str, Any]) -> None:
    with pytest.raises(InvalidAction, match="Parameter 'name' of"):
        FUNCTIONS.parse(function, params)
    assert FUNCTIONS.parse(function, {**params, "name": "Cube @ 2"})[1].name == "Cube @ 2"


def test_run_python_runs_allowed_code_and_stops_a_hang(warm: BlenderAdapter) -> None:
    ran = warm.execute(fn("run_python", code="bpy.data.objects['Cam'].location.z = 7.5"))
    assert ran.ok and element(warm, "Cam").value["location"][2] == 7.5
    hung = warm.execute(fn("run_python", code="while True:\n    pass", timeout_s=2.0))
    assert hung.status == "error" and hung.error is not None and "did not finish within 2 s" in hung.error.message
    assert element(warm, "Cam").value["location"][2] == 7.5  # restarted from the state before the code
    assert warm.restarts == 1


def test_a_blender_lost_inside_a_batch_restarts_from_before_the_batch(warm: BlenderAdapter) -> None:
    before, restarts = warm.scene_data(), warm.restarts
    lost = warm.execute(Action(action_type="batch", params={"actions": [
        fn("set_transform", object="Box", location=[4.0, 4.0, 4.0]).model_dump(),
        fn("run_python", code="import os\nos._exit(3)").model_dump()]}), observe=False)
    assert lost.status == "error" and lost.error is not None
    assert lost.error.message.startswith("Batch action 2:") and "Nothing in the scene was changed." in lost.error.message
    assert warm.scene_data() == before and warm.restarts == restarts + 1


@pytest.mark.parametrize(("member", "what"), [(fn("save"), "save"), (Action(action_type="done"), "done")])
def test_a_batch_refuses_members_it_cannot_undo_before_running_any(warm: BlenderAdapter, member: Action,
                                                                   what: str) -> None:
    before = warm.scene_data()
    refused = warm.execute(Action(action_type="batch", params={"actions": [
        fn("set_transform", object="Box", location=[5.0, 5.0, 5.0]).model_dump(), member.model_dump()]}))
    assert refused.status == "invalid" and refused.error is not None
    assert refused.error.message == f"Batch action 2: A batch cannot contain {what}."
    assert warm.scene_data() == before


# What model-written code inside the warm Blender may see of its environment (asil.apps.blender.blender_env).
CLEAN_ENV = {"PATH", "HOME", "LANG", "TMPDIR", "TERM", "BLENDER_USER_CONFIG", "BLENDER_USER_SCRIPTS", "ASIL_REAPER"}


def test_run_python_code_finds_no_variable_of_the_asil_process(warm: BlenderAdapter, tmp_path: Path) -> None:
    # run_python runs inside the warm Blender, which is not confined per call (see docs/blender.md): it can
    # write where Blender can, as here. What it must not find is an API key or token of the ASIL process.
    seen = tmp_path / "env.txt"
    code = f"import os\nopen({str(seen)!r}, 'w').write('\\n'.join(sorted(os.environ)))"
    assert warm.execute(fn("run_python", code=code)).ok
    names = set(seen.read_text().split())
    assert "PATH" in names and names <= CLEAN_ENV, names - CLEAN_ENV
    assert not names & set(os.environ) - CLEAN_ENV  # none of this test process's own variables


def test_run_python_is_refused_without_permission(scene_file: Path, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    shutil.copyfile(scene_file, tmp_path / "scene.blend")
    adapter = BlenderAdapter(ws, "scene.blend")
    result = adapter.validate_action(fn("run_python", code="import os"))
    assert result is not None and result.code == "code_not_allowed" and "allow_code" in result.message
    assert adapter.session is None  # refused before any Blender started
    adapter.close()


def test_a_blender_killed_mid_request_gives_an_error_result_and_restarts_with_the_scene(
        scene_file: Path, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    shutil.copyfile(scene_file, tmp_path / "scene.blend")
    with BlenderAdapter(ws, "scene.blend", allow_code=True) as adapter:
        assert adapter.execute(fn("set_transform", object="Lamp", scale=[3.0, 3.0, 3.0])).ok
        assert adapter.session is not None
        first = adapter.session.process
        threading.Timer(1.0, first.kill).start()
        started = time.monotonic()
        crashed = adapter.execute(fn("run_python", code="import time\ntime.sleep(30)", timeout_s=60.0), observe=False)
        assert time.monotonic() - started < 20  # an error result, not a hang
        assert crashed.status == "error" and crashed.error is not None and crashed.error.code == "blender_crashed"
        assert element(adapter, "Lamp").value["scale"] == [3.0, 3.0, 3.0]  # the last good state came back
        assert adapter.restarts == 1 and adapter.session.process is not first
        adapter.session.process.kill()  # died while idle: the next action restarts Blender quietly
        assert adapter.execute(fn("set_transform", object="Lamp", location=[0.0, 0.0, 0.0])).ok
        assert adapter.restarts == 2
        pid = adapter.session.process.pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_save_is_atomic_and_leaves_no_backup(scene_file: Path, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    shutil.copyfile(scene_file, tmp_path / "scene.blend")
    with BlenderAdapter(ws, "scene.blend") as adapter:
        adapter.execute(fn("delete_object", object="Lamp"), observe=False)
        adapter.save()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".asil") == ["scene.blend"]
    assert list((tmp_path / ".asil").iterdir()) == []
    with BlenderAdapter(ws, "scene.blend") as reopened:
        assert "Lamp" not in reopened.scene_data()["object_names"]


def test_a_damaged_blend_is_refused_with_one_sentence(scene_file: Path, tmp_path: Path) -> None:
    from asil.protocol import DocumentError

    ws = Workspace(tmp_path)
    (tmp_path / "junk.blend").write_bytes(b"this is not a blend file")
    with pytest.raises(DocumentError, match="not a Blender file"):
        BlenderAdapter(ws, "junk.blend")
    (tmp_path / "cut.blend").write_bytes(scene_file.read_bytes()[:300])
    before = digest(tmp_path / "cut.blend")
    adapter = BlenderAdapter(ws, "cut.blend")
    with pytest.raises(DocumentError, match="could not read 'cut.blend'"):
        adapter.observe()
    adapter.close()
    assert digest(tmp_path / "cut.blend") == before


def test_checkpoints_and_the_raw_validator_fail_closed(scene_file: Path, tmp_path: Path) -> None:
    from asil.adapters.blender.validator import raw_judge
    from asil.evaluate.checkpoints import Checkpoint
    from asil.evaluate.evaluator import evaluate_paths

    ws = Workspace(tmp_path)
    shutil.copyfile(scene_file, tmp_path / "scene.blend")
    (tmp_path / "broken.blend").write_bytes(b"BLENDER-v304" + b"\0" * 64)
    good = Checkpoint(type="blender_object_value", app="blender", document="scene.blend", target="Box.location",
                      expected=[1, 2, 3], tolerance=0.001)
    ghost = good.model_copy(update={"target": "Ghost.location"})
    broken = good.model_copy(update={"document": "broken.blend"})
    verdicts = evaluate_paths([[good], [ghost], [broken]], ws)
    assert [p.success for p in verdicts.paths] == [True, False, False]
    assert [raw_judge(cp, ws) for cp in (good, ghost, broken)] == [True, False, False]


def test_the_render_hook_works_without_a_camera_and_puts_the_settings_back(tmp_path: Path) -> None:
    from tests.png import pixels

    ws = Workspace(tmp_path)
    build_blend(tmp_path / "bare.blend", {"objects": [{"name": "Rock", "kind": "ico_sphere"},
                                                      {"name": "Sun", "kind": "light", "light_type": "SUN"}]})
    with BlenderAdapter(ws, "bare.blend") as adapter:
        before = adapter.scene_data()
        refused = adapter.execute(fn("render_frame", path="out.png"))
        assert refused.status == "invalid" and refused.error is not None and "no active camera" in refused.error.message
        shot = adapter.render(tmp_path / "shot.png")
        assert adapter.scene_data() == before  # no camera left behind, render settings as they were
    width, height, rows = pixels(shot)
    assert (width, height) == (160, 120) and len({bytes(r) for r in rows}) > 10
    assert not (tmp_path / "out.png").exists()
