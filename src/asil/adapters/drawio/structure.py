"""Planners for pages (``<diagram>`` elements) and layers (children of a page's root cell), declared
in :data:`FUNCTIONS` after the cell functions of :mod:`asil.adapters.drawio.ops`; ``save`` comes last."""

from __future__ import annotations

import itertools
from xml.etree import ElementTree as ET

from asil.adapters.drawio import actions as act
from asil.adapters.drawio.codec import norm_label, parse_xml
from asil.adapters.drawio.model import Document, Page
from asil.adapters.drawio.ops import FUNCTIONS as FUNCTIONS  # completed here: the adapter takes it from this module
from asil.adapters.drawio.ops import (
    Plan,
    append_cell,
    find_page,
    new_cell_id,
    num,
    page_key,
    resolve,
    touch,
)
from asil.adapters.params import NoParams
from asil.protocol import InvalidAction

EMPTY_ROOT = '<root><mxCell id="0"/><mxCell id="1" parent="0"/></root>'


def _pages_of(doc: Document) -> None:
    if doc.is_bare:
        raise InvalidAction("This file is a bare <mxGraphModel> with a single page; it has no pages to add, rename or delete.",
                            hint="Open a .drawio file saved by draw.io (an <mxfile> of <diagram> pages).",
                            code="single_page_file")


def _free_page_name(doc: Document, name: str, ignore: Page | None = None) -> None:
    if any(p is not ignore and norm_label(p.name) == norm_label(name) for p in doc.pages):
        raise InvalidAction(f"A page named {name!r} already exists.", hint="Pick another name.", code="page_exists")


def _diagram_index(doc: Document, page: Page) -> int:
    assert page.diagram is not None
    return list(doc.top).index(page.diagram)


@FUNCTIONS.function("add_page", act.AddPage, "Add an empty page (diagram tab).", acts_on="page")
def plan_add_page(doc: Document, view: str, p: act.AddPage) -> Plan:
    _pages_of(doc)
    _free_page_name(doc, p.name)
    position = min(p.position or len(doc.pages) + 1, len(doc.pages) + 1)
    ids = {page.id for page in doc.pages}
    page_id = next(f"page-{n}" for n in itertools.count(len(doc.pages) + 1) if f"page-{n}" not in ids)
    template = doc.pages[0].model
    compressed = any(page.compressed for page in doc.pages)
    keep = {k: v for k, v in template.attrib.items() if k not in ("dx", "dy")}

    def apply() -> None:
        diagram = ET.Element("diagram", {"id": page_id, "name": p.name})
        model = ET.Element("mxGraphModel", keep)
        model.append(parse_xml(EMPTY_ROOT))
        if not compressed:
            diagram.append(model)
        at = _diagram_index(doc, doc.pages[position - 1]) if position <= len(doc.pages) else len(doc.top)
        doc.top.insert(at, diagram)
        page = Page(diagram, model, compressed)
        page.touched = True
        doc.pages.insert(position - 1, page)

    return Plan([page_id], apply)


@FUNCTIONS.function("rename_page", act.RenamePage, "Rename a page.", acts_on="page")
def plan_rename_page(doc: Document, view: str, p: act.RenamePage) -> Plan:
    _pages_of(doc)
    page = find_page(doc, p.page, view)
    _free_page_name(doc, p.new_name, ignore=page)
    assert page.diagram is not None
    diagram = page.diagram
    return Plan([page_key(page)], lambda: diagram.set("name", p.new_name))


@FUNCTIONS.function("delete_page", act.DeletePage, "Delete a page and everything on it.", destructive=True, acts_on="page")
def plan_delete_page(doc: Document, view: str, p: act.DeletePage) -> Plan:
    _pages_of(doc)
    page = find_page(doc, p.page, view)
    if len(doc.pages) == 1:
        raise InvalidAction(f"{page.name!r} is the only page; a draw.io file needs at least one.",
                            hint="Add another page first, or delete the cells instead.", code="last_page")

    def apply() -> None:
        assert page.diagram is not None
        doc.top.remove(page.diagram)
        doc.pages.remove(page)

    return Plan([page_key(page)], apply)


def _free_layer_name(page: Page, name: str) -> None:
    if any(norm_label(layer.label) == norm_label(name) for layer in page.layers()):
        raise InvalidAction(f"Page {page.name!r} already has a layer named {name!r}.", hint="Pick another name.",
                            code="layer_exists")


@FUNCTIONS.function("add_layer", act.AddLayer, "Add a layer on top of a page's layers.", acts_on="layer")
def plan_add_layer(doc: Document, view: str, p: act.AddLayer) -> Plan:
    page = find_page(doc, p.page, view)
    _free_layer_name(page, p.name)
    root_id = page.root_id
    if root_id is None:
        raise InvalidAction(f"The page {page.name!r} has no root cell to hold layers.", hint="The page is malformed.")
    new_id = new_cell_id(page, p.id)
    node = ET.Element("mxCell", {"id": new_id, "value": p.name, "parent": root_id})
    return Plan([new_id], touch(page, lambda: append_cell(page, node)))


@FUNCTIONS.function("rename_layer", act.RenameLayer, "Rename a layer.", acts_on="layer")
def plan_rename_layer(doc: Document, view: str, p: act.RenameLayer) -> Plan:
    page = find_page(doc, p.page, view)
    layer = resolve(page, p.layer, ("layer",))
    if norm_label(layer.label) != norm_label(p.new_name):
        _free_layer_name(page, p.new_name)
    return Plan([layer.id], touch(page, lambda: layer.node.set(layer.label_attr, p.new_name)))


@FUNCTIONS.function("move_to_layer", act.MoveToLayer, "Move cells (and their contents) to another layer of the same page.",
                    acts_on="cells")
def plan_move_to_layer(doc: Document, view: str, p: act.MoveToLayer) -> Plan:
    page = find_page(doc, p.page, view)
    layer = resolve(page, p.layer, ("layer",))
    cells = [resolve(page, ref) for ref in p.cells]
    shifts = {c.id: page.origin(c) for c in cells}  # nested cells keep their place on the canvas

    def apply() -> None:
        for cell in cells:
            dx, dy = shifts[cell.id]
            geometry = cell.geometry
            if (dx or dy) and geometry is not None and geometry.get("relative") != "1":
                geometry.set("x", num(cell.number("x") + dx))
                geometry.set("y", num(cell.number("y") + dy))
            cell.cell.set("parent", layer.id)

    return Plan([c.id for c in cells], touch(page, apply))


# The adapter writes the file when it applies save; planning it checks nothing and changes nothing.
@FUNCTIONS.function("save", NoParams, "Write the file now (it is also saved when the episode ends).", batch=False,
                    acts_on="file")
def plan_save(doc: Document, view: str, p: NoParams) -> Plan:
    return Plan([], lambda: None)
