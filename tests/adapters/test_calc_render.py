"""Calc renders its current window as a PNG drawn by the real LibreOffice."""

from __future__ import annotations

import zipfile
from pathlib import Path

from PIL import Image, ImageChops

from asil.adapters.calc.adapter import CalcAdapter
from asil.protocol import parse_action
from asil.workspace import Workspace


def on_white(path: Path) -> Image.Image:
    """The render as a viewer shows it: the transparent surround over a white page."""
    with Image.open(path) as image:
        rgba = image.convert("RGBA")
    return Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("L")


def dark_pixels(path: Path) -> int:
    return sum(on_white(path).histogram()[:128])


def test_render_shows_the_window_and_follows_edits(workspace: Workspace, sales: Path, tmp_path: Path) -> None:
    original = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        first = calc.render(tmp_path / "shots" / "first.png")
        assert calc.dirty is False  # rendering changes nothing in the document
        with Image.open(first) as image:
            assert image.format == "PNG"
            width, height = image.size
        assert 300 <= width <= 4000 and 150 <= height <= 4000
        assert dark_pixels(first) > 2000  # grid, headers and the cell text, not a blank page
        calc.execute(parse_action({"action_type": "set_value", "target": "Sales!E3", "params": {"value": 88888888}}))
        second = calc.render(tmp_path / "second.png")
        changed = ImageChops.difference(on_white(first), on_white(second)).getbbox()
        assert changed is not None and dark_pixels(second) > dark_pixels(first)
    assert sales.read_bytes() == original  # nothing was saved
    assert sorted(p.name for p in workspace.root.iterdir()) == ["sales.ods"]  # no debris beside the document


def test_render_leaves_no_trace_in_the_saved_file(workspace: Workspace, sales: Path, tmp_path: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        calc.execute(parse_action({"action_type": "set_value", "target": "Sales!D1", "params": {"value": "x"}}))
        calc.save()
        styles_before = zipfile.ZipFile(sales).read("styles.xml")
        calc.execute(parse_action({"action_type": "navigate", "target": "Notes"}))
        calc.render(tmp_path / "notes.png")
        calc.execute(parse_action({"action_type": "set_value", "target": "Sales!D1", "params": {"value": "y"}}))
        calc.save()
        assert zipfile.ZipFile(sales).read("styles.xml") == styles_before  # page style restored exactly
        assert dark_pixels(tmp_path / "notes.png") > 500
