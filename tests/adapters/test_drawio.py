"""The draw.io adapter on real .drawio files: both forms, stable ids, labels, layers, pages, paging, batch."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from asil.adapters.drawio.adapter import DrawioAdapter
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.drawio_files import big_file, decompress, edge, flow_file, model, mxfile, vertex
from tests.conftest import run_cli


def fn(function: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def open_file(workspace: Workspace, text: str, name: str = "d.drawio") -> DrawioAdapter:
    workspace.resolve(name).write_text(text, encoding="utf-8")
    return DrawioAdapter(workspace, name)


def run(adapter: DrawioAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def by_id(adapter: DrawioAdapter) -> dict[str, dict[str, object]]:
    return {e.id: e.model_dump() for e in adapter.observe().elements}


def test_plain_file_keeps_its_form_and_mxfile_attributes(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    run(adapter, fn("relabel", cell="Ship", label="Dispatch"))
    adapter.save()
    top = ET.parse(workspace.resolve("d.drawio")).getroot()
    assert top.attrib == {"host": "app.diagrams.net", "modified": "2024-05-02T09:14:27.512Z", "agent": "test",
                          "etag": "abc123", "version": "24.4.0"}
    diagrams = top.findall("diagram")
    assert [(d.get("id"), d.get("name")) for d in diagrams] == [("p1", "Flow"), ("p2", "Notes")]
    assert all(d.find("mxGraphModel") is not None for d in diagrams)
    assert diagrams[0].find(".//mxCell[@id='c']").get("value") == "Dispatch"  # type: ignore[union-attr]


def test_compressed_file_stays_compressed_and_untouched_pages_keep_their_bytes(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file(compressed=True))
    assert adapter.observe().app_state.details["form"] == "compressed"
    before = [d.text for d in ET.parse(workspace.resolve("d.drawio")).getroot().findall("diagram")]
    run(adapter, fn("relabel", page="Notes", cell="n", label="Remember the milk"))
    adapter.save()
    diagrams = ET.parse(workspace.resolve("d.drawio")).getroot().findall("diagram")
    assert all(d.find("mxGraphModel") is None for d in diagrams)
    assert diagrams[0].text == before[0]
    assert diagrams[1].text != before[1]
    page2 = ET.fromstring(decompress(diagrams[1].text or ""))  # decoded independently of the adapter
    assert page2.find(".//mxCell[@id='n']").get("value") == "Remember the milk"  # type: ignore[union-attr]
    assert DrawioAdapter(workspace, "d.drawio").observe(view="Notes").elements[1].value == "Remember the milk"


def test_edits_keep_cell_ids_and_unrelated_style_keys(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    ids = list(by_id(adapter))
    run(adapter, fn("relabel", cell="c", label="Dispatch"))
    run(adapter, fn("restyle", cells=["Dispatch"], set={"fillColor": "#f8cecc", "strokeWidth": 2}, remove=["dashed"]))
    run(adapter, fn("move", cell="c", dx=10, dy=-5))
    run(adapter, fn("resize", cell="c", width=200))
    run(adapter, fn("reconnect", edge="e2", source="a"))
    after = by_id(adapter)
    assert list(after) == ids
    ship = after["c"]
    assert ship["value"] == "Dispatch"
    assert ship["meta"]["style"] == {"rounded": "0", "whiteSpace": "wrap", "html": "1", "fillColor": "#f8cecc",  # type: ignore[index]
                                     "strokeWidth": "2"}
    assert ship["meta"]["geometry"] == {"x": 250, "y": 135, "width": 200, "height": 60}  # type: ignore[index]
    assert after["e2"]["meta"]["source"] == "a" and after["e2"]["meta"]["source_label"] == "Start"  # type: ignore[index]


def test_html_labels_are_shown_as_text_and_kept_as_html(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    check = by_id(adapter)["b"]
    assert check["value"] == "Check\nstock"
    assert check["meta"]["html"] == "<b>Check</b><br>stock"  # type: ignore[index]
    run(adapter, fn("relabel", cell="Check stock", label="A < B & C\nnext"))
    adapter.save()
    cell = ET.parse(workspace.resolve("d.drawio")).getroot().find(".//mxCell[@id='b']")
    assert cell is not None and cell.get("value") == "A &lt; B &amp; C<br>next"
    assert by_id(DrawioAdapter(workspace, "d.drawio"))["b"]["value"] == "A < B & C\nnext"


def test_connect_by_label_and_ambiguity(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    [new] = run(adapter, fn("connect", source="Ship", target="Start", label="loop"))
    edge_seen = by_id(adapter)[new]
    assert edge_seen["type"] == "edge" and edge_seen["meta"]["target"] == "a"  # type: ignore[index]
    run(adapter, fn("add_vertex", label="Start", x=500, y=40))
    result = adapter.execute(fn("connect", source="Ship", target="Start"))
    assert result.status == "invalid" and result.error is not None
    assert "2 cells" in result.error.message and "a" in (result.error.hint or "")


def test_deleting_a_vertex_deletes_its_edges(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    changed = run(adapter, fn("delete_cells", cells=["Check stock"]))
    assert sorted(changed) == ["b", "e1", "e2"]
    assert set(by_id(adapter)) == {"1", "a", "c"}


def test_layers_are_elements_and_cells_move_between_them(workspace: Workspace) -> None:
    group = vertex("g", "", 100, 100, "group;", w=300, h=200)
    inner = vertex("in", "Inside", 20, 30, parent="g")
    adapter = open_file(workspace, mxfile([("p", "P", model([group, inner]))]))
    [layer] = run(adapter, fn("add_layer", name="Notes"))
    run(adapter, fn("move_to_layer", cells=["Inside"], layer="Notes"))
    seen = by_id(adapter)
    assert seen[layer]["type"] == "layer" and seen[layer]["value"] == "Notes"
    assert seen["in"]["meta"]["layer"] == layer  # type: ignore[index]
    assert seen["in"]["meta"]["geometry"]["x"] == 120 and seen["in"]["meta"]["geometry"]["y"] == 130  # type: ignore[index]
    run(adapter, fn("rename_layer", layer="Notes", new_name="Annotations"))
    assert adapter.observe().app_state.details["layers"][-1] == {"id": layer, "name": "Annotations"}
    assert adapter.execute(fn("add_layer", name="annotations")).status == "invalid"


def test_pages_are_views(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    assert adapter.observe().navigation.views == ["Flow", "Notes"]
    run(adapter, fn("add_page", name="Extra", position=1))
    assert adapter.execute(Action(action_type="navigate", target="Notes")).ok
    run(adapter, fn("rename_page", page="Notes", new_name="Remarks"))
    observation = adapter.observe()
    assert observation.app_state.view == "Remarks"  # the view follows the page, not its old name
    assert observation.navigation.views == ["Extra", "Flow", "Remarks"]
    run(adapter, fn("delete_page", page="Remarks"))
    assert adapter.observe().app_state.view == "Extra"
    run(adapter, fn("delete_page", page="Flow"))
    last = adapter.execute(fn("delete_page", page="Extra"))
    assert last.status == "invalid" and "only page" in last.error.message  # type: ignore[union-attr]


def test_batch_is_atomic(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    original = workspace.resolve("d.drawio").read_bytes()
    before = adapter.observe().model_dump(exclude={"metadata"})
    bad = Action(action_type="batch", params={"actions": [
        fn("relabel", cell="Start", label="Begin").model_dump(),
        fn("add_vertex", label="X").model_dump(),
        fn("connect", source="X", target="Nowhere").model_dump()]})
    result = adapter.execute(bad)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 3:")
    assert adapter.observe().model_dump(exclude={"metadata"}) == before
    adapter.save()
    assert workspace.resolve("d.drawio").read_bytes() == original
    good = Action(action_type="batch", params={"actions": [
        fn("add_vertex", label="X", x=400, y=40).model_dump(), fn("connect", source="X", target="Start").model_dump()]})
    assert adapter.execute(good).ok
    assert sum(1 for e in adapter.observe().elements if e.type == "edge") == 3


def test_a_5000_cell_page_is_windowed(workspace: Workspace) -> None:
    adapter = open_file(workspace, big_file(5000))
    observation = adapter.observe()
    tokens = len(json.dumps(observation.to_agent_dict())) / 4
    assert tokens <= 8000
    paging = observation.navigation.paging
    assert paging is not None and paging.total == 5001 and 10 <= paging.limit < 200  # + the layer
    assert "more: navigate" in observation.summary
    assert adapter.execute(Action(action_type="navigate", params={"offset": 4000, "limit": 30})).ok
    window = adapter.observe()
    assert window.elements[0].id == "e666" and len(window.elements) == 30
    assert adapter.execute(Action(action_type="navigate", params={"find": "Server 3332"})).ok
    assert [e.id for e in adapter.observe().elements] == ["v3332"]


def test_set_value_relabels_and_save_function_writes(workspace: Workspace) -> None:
    adapter = open_file(workspace, flow_file())
    assert adapter.execute(Action(action_type="set_value", target="a", params={"value": "Begin"})).ok
    assert adapter.observe().app_state.dirty
    assert adapter.execute(fn("save")).ok
    assert 'value="Begin"' in workspace.resolve("d.drawio").read_text()
    assert not adapter.observe().app_state.dirty


def test_bare_mxgraphmodel_files_open_as_one_page(workspace: Workspace) -> None:
    adapter = open_file(workspace, model([vertex("x", "Alone")]))
    assert [e.value for e in adapter.observe().elements] == ["", "Alone"]
    assert adapter.execute(fn("add_page", name="Two")).error.code == "single_page_file"  # type: ignore[union-attr]
    run(adapter, fn("connect", source="Alone", target="x"))
    adapter.save()
    assert ET.parse(workspace.resolve("d.drawio")).getroot().tag == "mxGraphModel"


def test_cli_act_saves_good_actions_and_leaves_the_file_alone_on_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "d.drawio"
    path.write_text(flow_file(compressed=True), encoding="utf-8")
    original = path.read_bytes()
    bad = run_cli("act", str(path), "--app", "drawio", "--action",
                  json.dumps({"action_type": "invoke_function", "target": "restyle",
                              "params": {"cells": ["Ship"], "set": {"fill color": "red"}}}))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'fill color' is not a style key" in bad.stderr
    assert path.read_bytes() == original
    good = run_cli("act", str(path), "--action", json.dumps({"action_type": "set_value", "target": "c",
                                                               "params": {"value": "Dispatch"}}))
    assert good.returncode == 0, good.stderr
    assert "Dispatch" in run_cli("observe", str(path)).stdout


@pytest.mark.parametrize("edge_label", ["", "yes"])
def test_edges_without_a_target_are_shown_as_dangling(workspace: Workspace, edge_label: str) -> None:
    loose = edge("x", "a", "zz", edge_label).replace(' target="zz"', "")
    adapter = open_file(workspace, mxfile([("p", "P", model([vertex("a", "A"), loose]))]))
    seen = by_id(adapter)["x"]
    assert seen["meta"]["target"] is None and seen["value"] == edge_label  # type: ignore[index]
    run(adapter, fn("reconnect", edge="x", target="A"))
    assert by_id(adapter)["x"]["meta"]["target"] == "a"  # type: ignore[index]


def test_the_drawio_suite_has_variety() -> None:
    from asil.tasks import load_tasks

    tasks = load_tasks(suite="core", app="drawio")  # the multi suite mixes apps
    assert len(tasks) == 22
    assert sum(not t.feasible for t in tasks) >= 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    compressed = [t for t in tasks if any("<mxGraphModel" not in str(f.content) for f in t.setup.files)]
    assert len(compressed) >= 5 and all(f.kind == "text" for t in tasks for f in t.setup.files)
