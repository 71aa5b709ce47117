"""Blender primitives with their real shape parameters, objects matched by properties, and the factory scene
(issue 14, item 4), against a real headless Blender."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.blender.adapter import BlenderAdapter
from asil.adapters.blender.query import QueryError, matching_names, parse_query
from asil.adapters.blender.scene import build_blend
from asil.adapters.blender.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.protocol import Action
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("blender") is None, reason="needs blender (scripts/install-system.sh)")]


def add(**params: Any) -> Action:
    return Action(action_type="invoke_function", target="add_object", params=params)


def objects(adapter: BlenderAdapter) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in adapter.scene_data()["objects"]}


@pytest.fixture
def empty_scene(tmp_path: Path) -> Workspace:
    build_blend(tmp_path / "scene.blend", {"objects": []})
    return Workspace(tmp_path)


def test_primitives_take_blenders_shape_parameters(empty_scene: Workspace) -> None:
    with BlenderAdapter(empty_scene, "scene.blend") as blender:
        actions = [add(kind="cylinder", name="Pillar", radius=0.25, depth=3, vertices=12, location=[2, 0, 1.5]),
                   add(kind="uv_sphere", name="Planet", radius=2, segments=12, ring_count=6),
                   add(kind="cone", name="Roof", radius1=1.5, radius2=0, depth=1, vertices=4, rotation=[0, 0, 45]),
                   add(kind="cube", name="Die", size=0.5), add(kind="ico_sphere", name="Ico", subdivisions=1),
                   add(kind="torus", name="Ring", major_radius=2, minor_radius=0.5, major_segments=24,
                       minor_segments=8)]
        for action in actions:
            result = blender.execute(action, observe=False)
            assert result.ok, result.error
        found = objects(blender)
        blender.save()
    assert found["Pillar"]["dimensions"] == pytest.approx([0.5, 0.5, 3]) and found["Pillar"]["mesh"]["vertices"] == 24
    assert found["Pillar"]["location"] == [2, 0, 1.5]
    assert found["Planet"]["dimensions"] == pytest.approx([4, 4, 4], abs=1e-3)
    assert found["Planet"]["mesh"] == {"vertices": 12 * 5 + 2, "polygons": 12 * 6}
    assert found["Roof"]["mesh"]["vertices"] == 5 and found["Roof"]["rotation"] == pytest.approx([0, 0, 45])
    assert found["Die"]["dimensions"] == pytest.approx([0.5, 0.5, 0.5]) and found["Ico"]["mesh"]["vertices"] == 12
    assert found["Ring"]["mesh"]["vertices"] == 24 * 8 and found["Ring"]["dimensions"][0] == pytest.approx(5)
    with BlenderAdapter(empty_scene, "scene.blend") as reopened:  # a new Blender reads the saved shapes back
        again = objects(reopened)
    assert {name: again[name]["mesh"] for name in found} == {name: found[name]["mesh"] for name in found}
    assert again["Pillar"]["dimensions"] == found["Pillar"]["dimensions"]


@pytest.mark.parametrize(("params", "message"), [
    ({"kind": "cube", "radius": 1}, "kind 'cube' does not take radius; it takes only size"),
    ({"kind": "cylinder", "segments": 8}, "kind 'cylinder' does not take segments; it takes only radius, depth, vertices"),
    ({"kind": "empty", "size": 2}, "kind 'empty' does not take size; it takes no shape parameters"),
    ({"kind": "uv_sphere", "segments": 2}, "Parameter 'segments' of add_object is wrong"),
    ({"kind": "cone", "depth": 0}, "Parameter 'depth' of add_object is wrong"),
])
def test_a_shape_parameter_the_kind_does_not_take_is_refused(empty_scene: Workspace, params: dict[str, Any],
                                                             message: str) -> None:
    before = (empty_scene.root / "scene.blend").read_bytes()
    with BlenderAdapter(empty_scene, "scene.blend") as blender:
        result = blender.execute(add(**params), observe=False)
        assert blender.scene_data()["total"] == 0
        blender.save()
    assert result.status == "invalid" and message in result.error.message
    assert result.error.message.count(". ") == 0 and "Parameters of add_object" in (result.error.hint or "")
    assert (empty_scene.root / "scene.blend").read_bytes() == before


def test_the_factory_scene_is_kept_when_the_setup_asks(tmp_path: Path) -> None:
    build_blend(tmp_path / "scene.blend", {"factory_scene": True,
                                           "objects": [{"name": "Floor", "kind": "plane", "size": 10}]})
    with BlenderAdapter(Workspace(tmp_path), "scene.blend") as blender:
        data = blender.scene_data()
    names = {o["name"]: o for o in data["objects"]}
    assert set(names) == {"Cube", "Light", "Camera", "Floor"}
    assert names["Cube"]["materials"] == ["Material"] and names["Cube"]["dimensions"] == [2, 2, 2]
    assert data["settings"]["camera"] == "Camera" and data["settings"]["render"]["engine"] == "BLENDER_EEVEE"
    assert names["Floor"]["dimensions"] == pytest.approx([10, 10, 0])


def test_matching_objects_by_properties_agrees_with_the_raw_validator(tmp_path: Path) -> None:
    build_blend(tmp_path / "scene.blend", {"objects": [
        {"name": "Beam A", "kind": "cube", "size": 1, "scale": [4, 0.5, 0.5], "material": {"material": "Steel"}},
        {"name": "Beam B", "kind": "cube", "size": 1, "scale": [4, 0.5, 0.5], "material": {"material": "Wood"}},
        {"name": "Crate 1", "kind": "cube", "collection": "Props"}, {"name": "Lamp", "kind": "light"}]})
    ws = Workspace(tmp_path)

    def cp(query: str, expected: int) -> Checkpoint:
        return Checkpoint(type="blender_matching_objects", app="blender", document="scene.blend", target=query,
                          expected=expected, tolerance=0.001)

    checks = [cp("type=MESH; dimensions~4,0.5,0.5; materials=Steel", 1), cp("dimensions~4,0.5,0.5", 2),
              cp("name^=Crate; collections=Props; mesh.vertices=8", 1), cp("type=LIGHT", 1), cp("type=MESH", 3),
              cp("materials=Brass", 0)]
    wrong = [cp("type=MESH", 2), cp("dimension~1", 1), cp("type MESH", 1)]
    verdicts = evaluate_paths([[c] for c in checks + wrong], ws)
    assert [p.success for p in verdicts.paths] == [True] * len(checks) + [False] * len(wrong)
    assert [raw_judge(c, ws) for c in checks + wrong] == [True] * len(checks) + [False] * len(wrong)


def test_queries_are_parsed_strictly() -> None:
    assert [c.op for c in parse_query("name^=A; dimensions~1,2,3; type=MESH")] == ["^=", "~", "="]
    for bad in ("", "colour=red", "type MESH"):
        with pytest.raises(QueryError):
            parse_query(bad)
    with pytest.raises(QueryError):
        matching_names({"A": {"dimensions": [1, 1, 1]}}, "dimensions~a,b", 0.1)
