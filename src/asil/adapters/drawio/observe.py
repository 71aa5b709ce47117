"""Turning a page into observation elements: one window of cells, bounded in size."""

from __future__ import annotations

import json
from typing import Any

from asil.adapters.drawio.codec import norm_label, shape_of, style_dict
from asil.adapters.drawio.model import WRAPPERS, Cell, Page
from asil.protocol import Element

MAX_TEXT = 200  # characters of a label or custom attribute shown
MAX_STYLE_VALUE = 60  # style values such as embedded images are cut
MAX_STYLE_KEYS = 24
ELEMENTS_CHAR_BUDGET = 26_000  # ~6.5k tokens of elements; the rest of the observation stays well under 8k
DEFAULT_LIMIT = 50


def _short(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…(+{len(text) - limit} chars)"


def _number(value: float) -> float | int:
    return int(value) if value.is_integer() else round(value, 2)


def style_view(style: str) -> dict[str, Any]:
    items = list(style_dict(style).items())
    shown: dict[str, Any] = {k: (_short(v, MAX_STYLE_VALUE) if v is not None else True) for k, v in items[:MAX_STYLE_KEYS]}
    if len(items) > MAX_STYLE_KEYS:
        shown["…"] = f"{len(items) - MAX_STYLE_KEYS} more keys"
    return shown


def cell_element(page: Page, cell: Cell) -> Element:
    kind = page.kind(cell)
    meta: dict[str, Any] = {}
    label = cell.label
    if cell.is_html and cell.raw_label and cell.raw_label != label:
        meta["html"] = _short(cell.raw_label)
    if cell.style:
        meta["style"] = style_view(cell.style)
    parent = page.cells.get(cell.parent or "")
    if parent is not None and kind in ("vertex", "edge"):
        meta["layer" if page.kind(parent) == "layer" else "parent"] = parent.id
    if kind == "vertex":
        meta["geometry"] = {k: _number(cell.number(k)) for k in ("x", "y", "width", "height")}
    elif kind == "edge":
        meta.update(_edge_meta(page, cell))
    elif kind == "layer":
        meta["visible"] = cell.cell.get("visible") != "0"
    if cell.node.tag in WRAPPERS:
        meta["data"] = {k: _short(v) for k, v in cell.node.attrib.items() if k not in ("id", "label", "placeholders")}
    if cell.cell.get("visible") == "0" and kind != "layer":
        meta["visible"] = False
    shape = shape_of(style_dict(cell.style)) if kind == "vertex" else None
    # value is the mxCell value, i.e. the label, shown as plain text (raw HTML in meta.html)
    return Element(id=cell.id, type=kind, value=_short(label), data_type=shape, meta=meta)


def _edge_meta(page: Page, cell: Cell) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for end in ("source", "target"):
        ref = cell.cell.get(end)
        if ref is None:
            meta[end] = None  # a dangling end, drawn at a fixed point
            continue
        meta[end] = ref
        other = page.cells.get(ref)
        if other is not None and other.label:
            meta[f"{end}_label"] = _short(other.label, 60)
    geometry = cell.geometry
    array = next((a for a in geometry.findall("Array") if a.get("as") == "points"), None) if geometry is not None else None
    if array is not None:
        meta["points"] = [[_number(float(p.get("x", 0))), _number(float(p.get("y", 0)))] for p in array.findall("mxPoint")]
    return meta


def listed_cells(page: Page, find: str | None) -> list[Cell]:
    """The cells an observation pages through: everything but the root, in document (z) order."""
    cells = [c for c in page.cells.values() if c.parent is not None]
    if find:
        wanted = norm_label(find)
        cells = [c for c in cells if wanted in norm_label(c.label) or wanted == norm_label(c.id)]
    return cells


def window(cells: list[Cell], page: Page, offset: int, limit: int) -> list[Element]:
    """Elements for ``cells[offset:offset+limit]``, cut short when they would pass the size budget."""
    shown: list[Element] = []
    used = 0
    for cell in cells[offset : offset + limit]:
        element = cell_element(page, cell)
        used += len(json.dumps(element.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False))
        if shown and used > ELEMENTS_CHAR_BUDGET:
            break
        shown.append(element)
    return shown


def counts(page: Page) -> dict[str, int]:
    tally = {"vertex": 0, "edge": 0, "layer": 0}
    for cell in page.cells.values():
        kind = page.kind(cell)
        if kind in tally:
            tally[kind] += 1
    return tally
