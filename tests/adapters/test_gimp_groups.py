"""Layer groups in a real GIMP: their children are shown with paths and every layer action edits them.

One warm adapter on an image with a nested group serves the module; the saved .xcf is then read
by the checkpoints' XCF reader and by the raw validator's own GIMP dump, which must agree.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.gimp.adapter import GimpAdapter
from asil.adapters.gimp.builders import build_image
from asil.adapters.gimp.validator import dump_xcf
from asil.adapters.gimp.xcf import read_xcf
from asil.protocol import Action, Element
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("gimp-console") is None, reason="needs gimp (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {
    "width": 64, "height": 48, "background": [200, 200, 200],
    "layers": [
        {"name": "Box", "x": 8, "y": 8, "width": 16, "height": 12, "color": [255, 0, 0]},
        {"name": "Badges", "opacity": 80, "group": [  # children bottom to top, like the top level
            {"name": "Star", "x": 2, "y": 2, "width": 6, "height": 6, "color": [250, 200, 0]},
            {"name": "Inner", "group": [
                {"name": "Dot", "x": 30, "y": 30, "width": 8, "height": 8, "color": [0, 0, 255]}]},
            {"name": "Seal", "x": 40, "y": 4, "width": 10, "height": 10, "color": [0, 128, 0]}]}]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GimpAdapter]:
    root = tmp_path_factory.mktemp("groups")
    build_image(root / "art.xcf", SPEC)
    adapter = GimpAdapter(Workspace(root), "art.xcf")
    yield adapter
    adapter.close()


def layers(adapter: GimpAdapter) -> dict[str, Element]:
    return {e.id: e for e in adapter.observe().elements if not e.id.startswith("@")}


def test_children_follow_their_group_with_parent_path_and_position(warm: GimpAdapter) -> None:
    shown = layers(warm)
    assert list(shown) == ["Badges", "Seal", "Inner", "Dot", "Star", "Box", "Background"]
    assert shown["Badges"].type == "group" and "parent" not in shown["Badges"].meta
    assert shown["Badges"].meta["children"] == 3 and shown["Inner"].meta["children"] == 1
    assert shown["Dot"].meta | {"stats": None} == {"position": 0, "parent": "Inner", "path": "Badges/Inner/Dot",
                                                   "depth": 2, "stats": None}
    assert [shown[n].meta["position"] for n in ("Seal", "Inner", "Star", "Box")] == [0, 1, 2, 1]
    assert shown["Star"].meta["stats"]["mean"][:3] == [250, 200, 0]


def test_every_layer_action_edits_a_child_of_a_group(warm: GimpAdapter, tmp_path: Path) -> None:
    assert warm.execute(fn("rename_layer", layer="Star", name="Gold Star"), observe=False).ok
    assert warm.execute(fn("set_layer", layer="Gold Star", opacity=50.0, visible=False, offset_x=12, offset_y=3),
                        observe=False).ok
    assert warm.execute(fn("move_layer", layer="Gold Star", position=0), observe=False).ok
    assert warm.execute(fn("invert", layer="Dot"), observe=False).ok
    assert warm.execute(fn("add_layer", name="Note", group="Inner", fill="white", width=4, height=4), observe=False).ok
    assert warm.execute(fn("add_text_layer", text="Hi", name="Tag", group="Badges", position=3, size=8.0),
                        observe=False).ok
    assert warm.execute(fn("delete_layer", layer="Seal"), observe=False).ok
    shown = layers(warm)
    assert list(shown) == ["Badges", "Gold Star", "Inner", "Note", "Dot", "Tag", "Box", "Background"]
    star = shown["Gold Star"]
    assert star.value == {"width": 6, "height": 6, "offset_x": 12, "offset_y": 3, "opacity": 50, "visible": False}
    assert star.meta["path"] == "Badges/Gold Star" and shown["Tag"].meta["position"] == 2
    assert shown["Dot"].meta["stats"]["mean"][:3] == [255, 255, 0]
    group_x, dot_x = shown["Inner"].value["offset_x"], shown["Dot"].value["offset_x"]
    moved = warm.execute(fn("set_layer", layer="Inner", offset_x=group_x + 7), observe=False)  # children move along
    assert moved.ok and set(moved.changed) == {"Inner", "Note", "Dot"}
    assert layers(warm)["Dot"].value["offset_x"] == dot_x + 7

    assert warm.execute(fn("add_group", name="Empty", group="Badges", position=1), observe=False).ok
    assert layers(warm)["Empty"].meta | {"stats": None} == {"position": 1, "children": 0, "parent": "Badges",
                                                            "path": "Badges/Empty", "depth": 1, "stats": None}
    assert warm.execute(fn("delete_layer", layer="Empty"), observe=False).ok
    into = warm.execute(fn("move_layer", layer="Box", group="Inner", position=1), observe=False)
    out = warm.execute(fn("move_layer", layer="Tag", group="@image", position=0), observe=False)
    assert into.ok and out.ok and layers(warm)["Box"].meta["path"] == "Badges/Inner/Box"

    saved = tmp_path / "saved.xcf"
    warm._call(f'(asil-save-xcf {warm.image} "{saved}")')  # the checkpoints' reader and the raw dump agree
    xcf = [(layer.name, layer.parent, layer.position, layer.visible) for layer in read_xcf(saved).layers]
    dumped = [(layer["name"], layer["parent"], layer["position"], layer["visible"]) for layer in dump_xcf(saved)["layers"]]
    assert xcf == dumped
    assert ("Gold Star", "Badges", 0, False) in xcf and ("Note", "Inner", 0, True) in xcf
    assert ("Box", "Inner", 1, True) in xcf and ("Tag", None, 0, True) in xcf


def test_group_mistakes_are_refused_with_one_sentence_and_change_nothing(warm: GimpAdapter) -> None:
    before = warm.observe().model_dump()
    refused = {
        "invert": fn("invert", layer="Badges"),  # a group has no pixels of its own
        "move": fn("move_layer", layer="Dot", position=5),  # past the bottom of its group
        "not a group": fn("add_layer", name="X", group="Box"),
        "into itself": fn("move_layer", layer="Badges", group="Inner", position=0),
        "taken": fn("rename_layer", layer="Box", name="Dot"),  # names are unique across groups
    }
    for what, action in refused.items():
        result = warm.execute(action, observe=False)
        assert result.status == "invalid" and result.error is not None, what
        assert result.error.message.count(". ") == 0 and result.error.hint, what
    batch = Action(action_type="batch", params={"actions": [fn("rename_layer", layer="Dot", name="Spot").model_dump(),
                                                            fn("fill", layer="Badges", color=[1, 2, 3]).model_dump()]})
    assert not warm.execute(batch, observe=False).ok
    assert warm.observe().model_dump() | {"metadata": None} == before | {"metadata": None}
