"""Hostile files, bad input, and round trips through the real Inkscape (export, --query-all, render)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.adapters.inkscape.validator import raw_judge
from asil.agents.oracle import OracleAgent
from asil.apps.inkscape import query_all
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action, DocumentError
from asil.runner.episode import run_episode
from asil.tasks import get_task
from asil.workspace import Workspace
from tests.adapters.inkscape_helpers import DRAWING, HEAD, fn, open_drawing, png_pixels, write_svg

XXE = """<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg"><text id="t">&secret;</text></svg>
"""
NETWORK_XXE = """<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/evil.dtd"> %remote;]>
<svg xmlns="http://www.w3.org/2000/svg"/>
"""
LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY a "lol">'
          + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9))
          + ']>\n<svg xmlns="http://www.w3.org/2000/svg"><text id="t">&j;</text></svg>\n')
PLAIN_DOCTYPE = ('<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
                 '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
                 '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect id="r" width="5" height="5"/></svg>\n')


@pytest.mark.parametrize("text", [XXE, NETWORK_XXE, LAUGHS], ids=["file-xxe", "network-xxe", "billion-laughs"])
def test_entity_declarations_are_refused_without_expansion(workspace: Workspace, text: str) -> None:
    name = write_svg(workspace, text)
    with pytest.raises(DocumentError, match="declares XML entities"):
        InkscapeAdapter(workspace, name)
    assert workspace.resolve(name).read_text() == text  # never rewritten
    cp = Checkpoint(type="svg_count", app="inkscape", document=name, target="//svg:text", expected=1)
    assert raw_judge(cp, workspace) is False  # the raw validator fails closed on them too


@pytest.mark.parametrize(("text", "message"), [
    ("<svg", "not well-formed XML"),
    ('<html xmlns="http://www.w3.org/1999/xhtml"/>', "not SVG"),
    ("", "not well-formed XML"),
])
def test_broken_or_foreign_files_get_one_clear_sentence(workspace: Workspace, text: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        InkscapeAdapter(workspace, write_svg(workspace, text))


def test_a_plain_doctype_without_entities_is_fine_and_never_fetched(workspace: Workspace) -> None:
    adapter = InkscapeAdapter(workspace, write_svg(workspace, PLAIN_DOCTYPE))
    assert [e.id for e in adapter.observe().elements] == ["r"]


BAD_ACTIONS = [
    ({"action_type": "invoke_function", "target": "add_rect", "params": {"x": 1, "y": 1, "width": -5, "height": 2}},
     "Parameter 'width' of add_rect is wrong"),
    ({"action_type": "invoke_function", "target": "add_rect", "params": {"x": "1", "y": 1, "width": 5, "height": 2}},
     "Parameter 'x' of add_rect is wrong"),
    ({"action_type": "invoke_function", "target": "add_circle", "params": {"cx": 1, "cy": 1, "r": 2, "colour": "red"}},
     "add_circle does not take the parameter 'colour'."),
    ({"action_type": "invoke_function", "target": "add_path", "params": {"d": "L 10 10"}}, "cannot be read"),
    ({"action_type": "invoke_function", "target": "edit_element", "params": {"id": "egg", "attributes": {"width": 3}}},
     "A ellipse has no editable attribute 'width'."),
    ({"action_type": "invoke_function", "target": "edit_element",
      "params": {"id": "egg", "attributes": {"transform": "spin(3)"}}}, "The transform 'spin(3)' cannot be read"),
    ({"action_type": "invoke_function", "target": "restyle", "params": {"ids": ["egg"], "style": {"fill": "red;x:y"}}},
     "Parameter 'style.fill' of restyle is wrong"),
    ({"action_type": "invoke_function", "target": "group", "params": {"ids": ["egg", "paper"]}},
     "must share one parent"),
    ({"action_type": "invoke_function", "target": "rename_layer", "params": {"layer": "egg", "label": "x"}},
     "'egg' is not a layer."),
    ({"action_type": "invoke_function", "target": "add_rect",
      "params": {"id": "paper", "x": 1, "y": 1, "width": 5, "height": 2}}, "The id 'paper' is already used."),
    ({"action_type": "invoke_function", "target": "export_png", "params": {"path": "../out.png"}}, "climbs out"),
    ({"action_type": "set_value", "target": "paper", "params": {"value": "x"}}, "'paper' is a rect, not a text"),
    ({"action_type": "navigate", "target": "egg"}, "'egg' is not a layer."),
    ({"action_type": "modify_file", "params": {"operations": [{"op": "export_png", "params": {"path": "x.png"}}]}},
     "Operation 1 (export_png) is not an operation of inkscape's modify_file."),
    ({"action_type": "api_call", "params": {"request": "x"}}, "does not support api_call"),
    ({"action_type": "batch", "params": {"actions": [
        {"action_type": "invoke_function", "target": "save", "params": {}}]}}, "Batch action 1: A batch cannot contain save."),
]


@pytest.mark.parametrize(("raw", "message"), BAD_ACTIONS, ids=[str(i) for i in range(len(BAD_ACTIONS))])
def test_malformed_actions_are_refused_and_the_file_is_unchanged(workspace: Workspace, raw: dict[str, object],
                                                                  message: str) -> None:
    adapter = open_drawing(workspace)
    before = workspace.resolve("drawing.svg").read_bytes()
    result = adapter.execute(Action.model_validate(raw))
    assert result.status == "invalid" and result.error is not None
    assert message in result.error.message, result.error.message
    assert result.error.message.count(". ") <= 1 and result.error.hint
    assert workspace.resolve("drawing.svg").read_bytes() == before


@pytest.mark.slow
def test_files_written_by_the_adapter_export_and_match_inkscape_geometry(workspace: Workspace) -> None:
    adapter = open_drawing(workspace)
    assert fn(adapter, "add_ellipse", id="oval", cx=300, cy=60, rx=40, ry=20, parent="pair",
              style={"fill": "#ff00ff", "stroke": "#000000", "stroke-width": "2"}).ok
    assert fn(adapter, "move", ids=["pair"], dx=-20, dy=15).ok
    assert fn(adapter, "move_to_layer", ids=["oval", "curve"], layer="bg").ok
    assert fn(adapter, "ungroup", id="pair").ok
    adapter.save()
    path = workspace.resolve("drawing.svg")
    out = workspace.root / "check.png"
    subprocess.run(["inkscape", "--export-type=png", f"--export-filename={out}", str(path)], check=True,
                   capture_output=True, timeout=120)
    width, height, _ = png_pixels(out)
    assert (width, height) == (400, 300)
    inkscape_boxes = query_all(path)
    observed = {e.id: e.meta["bbox"] for e in adapter.observe(limit=100).elements
                if e.type in ("rect", "circle", "ellipse", "path", "line")}
    assert len(observed) >= 6
    for element_id, box in observed.items():
        assert list(inkscape_boxes[element_id]) == pytest.approx(box, abs=0.05), element_id


def _ink_pixels(png: Path) -> tuple[int, int, set[bytes]]:
    width, height, rows = png_pixels(png)
    colours = {row[x:x + 4] for row in rows[::7] for x in range(0, len(row), 28)}
    return width, height, colours


@pytest.mark.slow
def test_oracle_run_with_render_writes_real_pictures(tmp_path: Path) -> None:
    task = get_task("ink-recolor-logo")
    result = run_episode(task, OracleAgent(), tmp_path, render=True)
    assert result.success
    folder = tmp_path / task.id
    pictures = sorted(folder.glob("step_*.png"))
    assert pictures, "no renders written"
    info = json.loads((folder / f"{pictures[-1].stem}.render.json").read_text())
    assert info["app"] == "inkscape" and info["bytes"] > 0
    width, height, colours = _ink_pixels(pictures[-1])
    assert (width, height) == (800, 600)
    assert len(colours) > 2, "the render is blank"
    assert any(c[0] > 200 and c[1] < 80 and c[2] < 80 and c[3] == 255 for c in colours), "no red logo in the render"


def test_render_of_the_sample_has_the_page_size_and_content(workspace: Workspace) -> None:
    adapter = InkscapeAdapter(workspace, InkscapeAdapter.create_sample(workspace))
    png = adapter.render(workspace.root / "shot.png")
    width, height, colours = _ink_pixels(png)
    assert (width, height) == (400, 200)
    assert bytes([0x33, 0x66, 0xCC, 0xFF]) in colours  # the blue box


def test_drawing_fixture_parses_with_the_header() -> None:
    assert DRAWING.startswith(HEAD.format(w=400, h=300))
