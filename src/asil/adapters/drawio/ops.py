"""Planners for the draw.io functions: each checks its params against the document and returns
the ids it will change plus a closure that makes the change. Checking never mutates, so a
plan can be validated alone and applied later (``_check`` then ``_apply``).

Each planner is declared with its function in :data:`FUNCTIONS`: the cell functions here, then
the page and layer functions and ``save`` in :mod:`asil.adapters.drawio.structure`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.drawio import actions as act
from asil.adapters.drawio.codec import format_style, html_label, norm_label, parse_style, style_dict, valid_style_key
from asil.adapters.drawio.model import Cell, Document, Page
from asil.adapters.functions import FunctionTable
from asil.adapters.params import parse_params
from asil.protocol import InvalidAction

DEFAULT_VERTEX_STYLE = "rounded=1;whiteSpace=wrap;html=1;"
DEFAULT_EDGE_STYLE = "edgeStyle=orthogonalEdgeStyle;rounded=0;orthogonalLoop=1;jettySize=auto;html=1;"
CELL_KINDS = ("vertex", "edge")


@dataclass
class Plan:
    changed: list[str]
    apply: Callable[[], None]


Planner = Callable[[Document, str, Any], Plan]  # (document, page in view, parsed params) -> Plan
FUNCTIONS: FunctionTable[Planner] = FunctionTable("drawio")


# ---------------------------------------------------------------- lookups


def page_key(page: Page) -> str:
    """How the adapter remembers a page: its id (stable across renames), else its name."""
    return page.id or page.name


def find_page(doc: Document, ref: str | None, view: str) -> Page:
    page = doc.page(ref if ref is not None else view)
    if page is None:
        raise InvalidAction(f"There is no page named {ref!r}.", hint=f"Pages: {', '.join(p.name for p in doc.pages)}.",
                            code="no_page")
    return page


def resolve(page: Page, ref: str, kinds: tuple[str, ...] = CELL_KINDS) -> Cell:
    """A cell by id, else the one cell of the given kinds whose label matches ``ref``."""
    what = " or ".join(kinds)
    cell = page.cells.get(ref)
    if cell is not None:
        if page.kind(cell) not in kinds:
            raise InvalidAction(f"The cell {ref!r} is {_a(page.kind(cell))}, not {_a(what)}.", code="wrong_kind",
                                hint=f"Give the id or label of a {what}.")
        return cell
    wanted = norm_label(ref)
    matches = [c for c in page.cells.values() if page.kind(c) in kinds and norm_label(c.label) == wanted]
    if len(matches) == 1:
        return matches[0]
    if matches:
        ids = ", ".join(c.id for c in matches[:10])
        raise InvalidAction(f"{len(matches)} cells on page {page.name!r} are labelled {ref!r}.", code="ambiguous",
                            hint=f"Give one of their ids instead: {ids}.")
    examples = [f"{c.id} ({c.label[:30]!r})" for c in page.cells.values() if page.kind(c) in kinds][:8]
    raise InvalidAction(f"No {what} on page {page.name!r} has the id or label {ref!r}.", code="no_cell",
                        hint=f"Some {what}s: {', '.join(examples) or 'none'}.")


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def new_cell_id(page: Page, given: str | None) -> str:
    if given is None:
        return page.new_id()
    if given in page.cells:
        raise InvalidAction(f"The id {given!r} is already used on page {page.name!r}.", hint="Pick another id or omit it.",
                            code="id_exists")
    return given


def num(value: float) -> str:
    """Numbers the way draw.io writes them: no trailing '.0'."""
    return str(int(value)) if float(value).is_integer() else repr(round(value, 4))


def _style_text(style: str | dict[str, act.StyleValue] | None, default: str) -> str:
    if style is None:
        return default
    if isinstance(style, str):
        if any(ord(ch) < 32 for ch in style):
            raise InvalidAction("A style string cannot contain control characters.", hint="e.g. 'ellipse;fillColor=#dae8fc;'.")
        return style
    return format_style([(key, _style_value(key, value)) for key, value in style.items() if _check_key(key)])


def _check_key(key: str) -> bool:
    if not valid_style_key(key):
        raise InvalidAction(f"{key!r} is not a style key.", hint="Style keys are words like fillColor, strokeWidth, dashed.",
                            code="bad_style")
    return True


def _style_value(key: str, value: act.StyleValue) -> str:
    text = ("1" if value else "0") if isinstance(value, bool) else num(value) if isinstance(value, int | float) else value
    if ";" in text or any(ord(ch) < 32 for ch in text):
        raise InvalidAction(f"The value of style key {key!r} cannot contain ';' or control characters.",
                            hint="Give one value per key, e.g. {'fillColor': '#ffe6cc'}.", code="bad_style")
    return text


def _label_value(cell_style: str, text: str) -> str:
    return html_label(text) if style_dict(cell_style).get("html") == "1" else text


def _geometry(cell: Cell, relative: bool = False) -> ET.Element:
    geometry = cell.geometry
    if geometry is None:
        geometry = ET.SubElement(cell.cell, "mxGeometry", {"as": "geometry"})
        if relative:
            geometry.set("relative", "1")
    return geometry


def _layer(page: Page, ref: str | None) -> Cell:
    if ref is not None:
        return resolve(page, ref, ("layer",))
    layers = page.layers()
    if not layers:
        raise InvalidAction(f"The page {page.name!r} has no layer to put cells in.", hint="Add one with add_layer.")
    return layers[0]


def append_cell(page: Page, node: ET.Element) -> None:
    page.add(node)


def touch(page: Page, apply: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        apply()
        page.touched = True

    return run


# ---------------------------------------------------------------- cells


@FUNCTIONS.function("add_vertex", act.AddVertex, "Add a shape (vertex) with a label, position, size and style.", acts_on="vertex")
def plan_add_vertex(doc: Document, view: str, p: act.AddVertex) -> Plan:
    page = find_page(doc, p.page, view)
    if p.layer is not None and p.parent is not None:
        raise InvalidAction("add_vertex takes a layer or a parent, not both.", hint="A parent container sets the layer.")
    parent = resolve(page, p.parent, ("vertex",)) if p.parent is not None else _layer(page, p.layer)
    new_id, style = new_cell_id(page, p.id), _style_text(p.style, DEFAULT_VERTEX_STYLE)
    x, y = _free_spot(page) if p.x is None or p.y is None else (p.x, p.y)
    x, y = p.x if p.x is not None else x, p.y if p.y is not None else y
    node = ET.Element("mxCell", {"id": new_id, "value": _label_value(style, p.label), "style": style, "vertex": "1",
                                 "parent": parent.id})
    ET.SubElement(node, "mxGeometry", {"x": num(x), "y": num(y), "width": num(p.width), "height": num(p.height),
                                       "as": "geometry"})
    return Plan([new_id], touch(page, lambda: append_cell(page, node)))


def _free_spot(page: Page) -> tuple[float, float]:
    tops = [c for c in page.vertices() if page.kind(page.cells.get(c.parent or "", c)) == "layer"]
    if not tops:
        return 40.0, 40.0
    right = max(c.number("x") + c.number("width") for c in tops)
    return right + 40.0, min(c.number("y") for c in tops)


@FUNCTIONS.function("connect", act.Connect, "Add an edge from one vertex to another (by id or label).", acts_on="edge")
def plan_connect(doc: Document, view: str, p: act.Connect) -> Plan:
    page = find_page(doc, p.page, view)
    source, target = resolve(page, p.source, ("vertex",)), resolve(page, p.target, ("vertex",))
    layer = _layer(page, p.layer) if p.layer is not None else page.layer_of(source) or _layer(page, None)
    new_id, style = new_cell_id(page, p.id), _style_text(p.style, DEFAULT_EDGE_STYLE)
    node = ET.Element("mxCell", {"id": new_id, "value": _label_value(style, p.label), "style": style, "edge": "1",
                                 "parent": layer.id, "source": source.id, "target": target.id})
    ET.SubElement(node, "mxGeometry", {"relative": "1", "as": "geometry"})
    return Plan([new_id], touch(page, lambda: append_cell(page, node)))


def relabel(page: Page, cell: Cell, text: str, raw_html: bool = False) -> Plan:
    if raw_html and not cell.is_html:
        raise InvalidAction(f"The cell {cell.id!r} does not have an HTML label (style html=1).",
                            hint="Send plain text with html false, or restyle the cell with html=1 first.")
    value = text if raw_html else _label_value(cell.style, text)
    return Plan([cell.id], touch(page, lambda: cell.node.set(cell.label_attr, value)))


@FUNCTIONS.function("relabel", act.Relabel, "Change the label of a vertex or edge.", acts_on="cell")
def plan_relabel(doc: Document, view: str, p: act.Relabel) -> Plan:
    page = find_page(doc, p.page, view)
    return relabel(page, resolve(page, p.cell), p.label, p.html)


@FUNCTIONS.function("restyle", act.Restyle,
                    "Set and/or remove style keys of cells (fillColor, strokeColor, dashed, shape...).", acts_on="cells")
def plan_restyle(doc: Document, view: str, p: act.Restyle) -> Plan:
    page = find_page(doc, p.page, view)
    cells = [resolve(page, ref) for ref in p.cells]
    if not p.set and not p.remove:
        raise InvalidAction("restyle needs style keys to 'set' or 'remove'.", hint="e.g. {'set': {'dashed': 1}}.")
    values = {key: _style_value(key, value) for key, value in p.set.items() if _check_key(key)}
    both = set(values) & set(p.remove)
    if both:
        raise InvalidAction(f"restyle both sets and removes {sorted(both)[0]!r}.", hint="Do one or the other.")
    for key in p.remove:
        _check_key(key)

    def apply() -> None:
        for cell in cells:
            style = [(k, v) for k, v in parse_style(cell.style) if k not in p.remove]
            present = {k for k, _ in style}
            style = [(k, values.get(k, v)) for k, v in style] + [(k, v) for k, v in values.items() if k not in present]
            cell.cell.set("style", format_style(style))

    return Plan([c.id for c in cells], touch(page, apply))


@FUNCTIONS.function("move", act.Move, "Move a vertex to x/y, or by dx/dy.", acts_on="vertex")
def plan_move(doc: Document, view: str, p: act.Move) -> Plan:
    page = find_page(doc, p.page, view)
    cell = resolve(page, p.cell, ("vertex",))
    absolute, relative = (p.x, p.y) != (None, None), (p.dx, p.dy) != (None, None)
    if absolute == relative:
        raise InvalidAction("move takes either x/y (a new position) or dx/dy (a shift), not both and not neither.",
                            hint="e.g. {'cell': 'A', 'x': 200, 'y': 80} or {'cell': 'A', 'dx': 40}.")
    x = p.x if p.x is not None else cell.number("x") + (p.dx or 0.0)
    y = p.y if p.y is not None else cell.number("y") + (p.dy or 0.0)

    def apply() -> None:
        geometry = _geometry(cell)
        geometry.set("x", num(x))
        geometry.set("y", num(y))

    return Plan([cell.id], touch(page, apply))


@FUNCTIONS.function("resize", act.Resize, "Change a vertex's width and/or height.", acts_on="vertex")
def plan_resize(doc: Document, view: str, p: act.Resize) -> Plan:
    page = find_page(doc, p.page, view)
    cell = resolve(page, p.cell, ("vertex",))
    if p.width is None and p.height is None:
        raise InvalidAction("resize needs a width and/or a height.", hint="e.g. {'cell': 'A', 'width': 160}.")

    def apply() -> None:
        geometry = _geometry(cell)
        for key, value in (("width", p.width), ("height", p.height)):
            if value is not None:
                geometry.set(key, num(value))

    return Plan([cell.id], touch(page, apply))


@FUNCTIONS.function("delete_cells", act.DeleteCells, "Delete vertices/edges; edges attached to deleted vertices go too.",
                    destructive=True, acts_on="cells")
def plan_delete(doc: Document, view: str, p: act.DeleteCells) -> Plan:
    page = find_page(doc, p.page, view)
    doomed = {resolve(page, ref).id for ref in p.cells}
    while True:  # contents of deleted cells, edges attached to anything deleted, their labels...
        more = {c.id for c in page.cells.values() if c.id not in doomed and (
            c.parent in doomed or (c.is_edge and (c.cell.get("source") in doomed or c.cell.get("target") in doomed)))}
        if not more:
            break
        doomed |= more
    order = [cid for cid in page.cells if cid in doomed]

    def apply() -> None:
        for cid in order:
            page.remove(cid)

    return Plan(order, touch(page, apply))


@FUNCTIONS.function("reconnect", act.Reconnect, "Attach an edge to a different source and/or target vertex.", acts_on="edge")
def plan_reconnect(doc: Document, view: str, p: act.Reconnect) -> Plan:
    page = find_page(doc, p.page, view)
    edge = resolve(page, p.edge, ("edge",))
    if p.source is None and p.target is None:
        raise InvalidAction("reconnect needs a new source and/or target.", hint="e.g. {'edge': 'e1', 'target': 'Review'}.")
    ends = {key: resolve(page, ref, ("vertex",)).id for key, ref in (("source", p.source), ("target", p.target)) if ref}

    def apply() -> None:
        for key, value in ends.items():
            edge.cell.set(key, value)

    return Plan([edge.id], touch(page, apply))


@FUNCTIONS.function("set_waypoints", act.SetWaypoints, "Set the bend points an edge is routed through.", acts_on="edge")
def plan_waypoints(doc: Document, view: str, p: act.SetWaypoints) -> Plan:
    page = find_page(doc, p.page, view)
    edge = resolve(page, p.edge, ("edge",))

    def apply() -> None:
        geometry = _geometry(edge, relative=True)
        for old in [a for a in geometry.findall("Array") if a.get("as") == "points"]:
            geometry.remove(old)
        if p.points:
            array = ET.SubElement(geometry, "Array", {"as": "points"})
            for x, y in p.points:
                ET.SubElement(array, "mxPoint", {"x": num(x), "y": num(y)})

    return Plan([edge.id], touch(page, apply))


def set_value(doc: Document, view: str, target: str | None, params: dict[str, Any]) -> Plan:
    page = find_page(doc, None, view)
    parsed = parse_params(act.SetLabel, params, "set_value")
    if not target:
        raise InvalidAction("set_value needs a target: the id or label of a cell.", hint="e.g. target 'start'.")
    return relabel(page, resolve(page, target), parsed.value)
