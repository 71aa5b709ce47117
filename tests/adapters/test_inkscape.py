"""The Inkscape adapter on real SVG files: observation, stable ids, semantic edits, atomic batches."""

from __future__ import annotations

import json

import pytest

from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.inkscape_helpers import big_svg, fn, open_drawing, write_svg


def _element(adapter: InkscapeAdapter, element_id: str) -> dict[str, object]:
    adapter.observe(limit=100)
    found = [e for e in adapter.observe().elements if e.id == element_id]
    assert found, f"{element_id} not observed"
    return found[0].model_dump()


def test_observation_shows_layers_geometry_style_transform_and_canvas(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    obs = adapter.observe()
    assert obs.metadata.app == "inkscape" and obs.metadata.source == "file"
    assert obs.app_state.details["canvas"] == {"width": "400", "height": "300", "viewBox": [0.0, 0.0, 400.0, 300.0]}
    assert [layer["label"] for layer in obs.app_state.details["layers"]] == ["Background", "Art"]
    assert obs.navigation.views == ["document", "bg", "art"]
    types = {e.id: e.type for e in obs.elements}
    assert types["bg"] == "layer" and types["pair"] == "group" and types["egg"] == "ellipse"
    rect = _element(adapter, "rect1")  # had no id: one was assigned
    assert rect["meta"]["parent"] == "art"  # type: ignore[index]
    assert rect["meta"]["style"] == {"fill": "#ff0000", "stroke": "#000000", "stroke-width": "4"}  # type: ignore[index]
    assert rect["meta"]["bbox"] == [18.0, 28.0, 54.0, 34.0]  # type: ignore[index]  # layer shift + half stroke
    assert _element(adapter, "pair")["meta"]["transform"] == "rotate(30,200,150)"  # type: ignore[index]
    assert _element(adapter, "title")["value"] == "Hello world"
    assert _element(adapter, "circle1")["meta"]["style"] == {"fill": "#0000ff"}  # type: ignore[index]


def test_assigned_ids_are_stable_across_edits_and_reopening(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    before = [e.id for e in adapter.observe(limit=100).elements]
    assert "rect1" in before and "circle1" in before
    assert fn(adapter, "add_circle", cx=5, cy=5, r=2, parent="art").ok  # an edit elsewhere
    assert fn(adapter, "delete_elements", ids=["rect1"]).ok
    after = [e.id for e in adapter.observe(limit=100).elements]
    assert [i for i in before if i != "rect1"] == [i for i in after if i in before]
    assert "rect1" not in after and "circle1" in after and "circle2" in after
    reopened = InkscapeAdapter(workspace, "drawing.svg")
    assert [e.id for e in reopened.observe(limit=100).elements] == after


def test_untouched_file_keeps_its_bytes_until_something_changes(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    original = workspace.resolve("drawing.svg").read_bytes()
    adapter.observe()
    adapter.execute(Action(action_type="navigate", target="art"))
    assert workspace.resolve("drawing.svg").read_bytes() == original
    adapter.save()  # persists the assigned ids, nothing else
    saved = workspace.resolve("drawing.svg").read_text()
    assert 'id="rect1"' in saved and 'id="circle1"' in saved


def test_large_documents_are_paged_within_the_token_budget(workspace: Workspace) -> None:
    adapter = InkscapeAdapter(workspace, write_svg(workspace, big_svg(20_000)))
    obs = adapter.observe()
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 20_002
    assert len(obs.elements) == 40
    assert len(json.dumps(obs.to_agent_dict())) / 4 <= 8000
    layer = next(e for e in obs.elements if e.id == "one")
    assert len(layer.children) == 30 and layer.meta["children_total"] == 10_000
    result = adapter.execute(Action(action_type="navigate", target="two", params={"offset": 9_990, "limit": 20}))
    assert result.ok and result.observation is not None
    assert len(result.observation.elements) == 10 and result.observation.app_state.view == "two"
    assert result.observation.navigation.paging.total == 10_000  # type: ignore[union-attr]


def test_add_edit_restyle_and_text(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    assert fn(adapter, "add_rect", id="box", x=1, y=2, width=30, height=40, style={"fill": "#123456"}).ok
    assert fn(adapter, "edit_element", id="box", attributes={"width": 60, "label": "Box"}).ok
    assert fn(adapter, "restyle", ids=["box"], style={"fill": None, "stroke": "#000000"}).ok
    assert adapter.execute(Action(action_type="set_value", target="title", params={"value": "Bye"})).ok
    box = _element(adapter, "box")
    assert box["label"] == "Box" and box["meta"]["width"] == 60  # type: ignore[index]
    assert box["meta"]["style"] == {"stroke": "#000000"}  # type: ignore[index]
    assert box["meta"]["parent"] == "art"  # type: ignore[index]  # new shapes go to the top layer
    assert _element(adapter, "title")["value"] == "Bye"
    text = workspace.resolve("drawing.svg").read_text()
    assert 'id="box"' in text and ">Bye</text>" in text  # written back at once


def test_move_and_align_work_in_document_units_through_transforms(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    before = _element(adapter, "egg")["meta"]["bbox"]  # type: ignore[index]
    assert fn(adapter, "move", ids=["pair"], dx=10, dy=-5).ok
    after = _element(adapter, "egg")["meta"]["bbox"]  # type: ignore[index]
    assert after == pytest.approx([before[0] + 10, before[1] - 5, before[2], before[3]], abs=1e-3)
    assert fn(adapter, "align", ids=["rect1", "circle1", "rule"], edge="left", relative_to="selection").ok
    lefts = {i: _element(adapter, i)["meta"]["bbox"][0] for i in ("rect1", "circle1", "rule")}  # type: ignore[index]
    assert max(lefts.values()) - min(lefts.values()) < 1e-6
    assert fn(adapter, "align", ids=["circle1"], edge="center_y", relative_to="page").ok
    box = _element(adapter, "circle1")["meta"]["bbox"]  # type: ignore[index]
    assert box[1] + box[3] / 2 == pytest.approx(150)


def test_group_ungroup_and_layers_keep_what_you_see(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    boxes = {i: _element(adapter, i)["meta"]["bbox"] for i in ("egg", "curve", "rect1")}  # type: ignore[index]
    assert fn(adapter, "ungroup", id="pair").ok
    assert fn(adapter, "group", ids=["rect1", "egg"], id="g2", label="Two").ok
    assert fn(adapter, "move_to_layer", ids=["g2", "curve"], layer="bg").ok  # from a translated layer
    for element_id, box in boxes.items():
        assert _element(adapter, element_id)["meta"]["bbox"] == pytest.approx(box, abs=1e-3)
    assert _element(adapter, "curve")["meta"]["style"] == {"fill": "#00aa00"}  # type: ignore[index]
    assert fn(adapter, "add_layer", label="Top", id="top").ok
    assert fn(adapter, "rename_layer", layer="top", label="Notes").ok
    assert fn(adapter, "reorder", id="top", to="back").ok
    assert [x["label"] for x in adapter.observe().app_state.details["layers"]] == ["Notes", "Background", "Art"]
    assert fn(adapter, "delete_layer", layer="bg").ok
    ids = {e.id for e in adapter.observe(limit=100).elements}
    assert not ids & {"bg", "g2", "curve", "egg"}
    assert fn(adapter, "set_visibility", ids=["art"], visible=False).ok
    assert adapter.observe().app_state.details["layers"][1]["hidden"] is True


def test_a_failing_batch_changes_nothing(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    adapter.save()
    original = workspace.resolve("drawing.svg").read_bytes()
    result = adapter.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "restyle", "params": {"ids": ["rect1"], "style": {"fill": "#000"}}},
        {"action_type": "invoke_function", "target": "delete_elements", "params": {"ids": ["no-such-thing"]}},
    ]}))
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 2: There is no element with id 'no-such-thing'.")
    assert workspace.resolve("drawing.svg").read_bytes() == original
    assert _element(adapter, "rect1")["meta"]["style"]["fill"] == "#ff0000"  # type: ignore[index]
    ok = adapter.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "add_rect",
         "params": {"id": "n1", "x": 0, "y": 0, "width": 1, "height": 1}},
        {"action_type": "invoke_function", "target": "restyle", "params": {"ids": ["n1"], "style": {"fill": "#000"}}},
    ]}))
    assert ok.ok and ok.changed[:1] == ["n1"]
