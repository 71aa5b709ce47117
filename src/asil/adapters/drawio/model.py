"""A draw.io document in memory: the original XML tree, edited in place, plus an index of cells.

Keeping the parsed tree (rather than a lossy model) preserves everything ASIL does not know
about — ``mxfile`` attributes, custom ``<object>`` attributes, waypoints, plugins' data — and
cells keep their ids because edits change attributes instead of recreating elements.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from xml.etree import ElementTree as ET

from asil.adapters.drawio.codec import (
    MAX_FILE_BYTES,
    UnsafeDocument,
    deflate,
    inflate,
    parse_xml,
    plain_text,
    style_dict,
    to_xml,
)

WRAPPERS = ("object", "UserObject")  # elements that wrap an mxCell and carry its id, label and custom data
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


class Cell:
    """One mxCell, addressed through the element that carries its id (the wrapper if any)."""

    __slots__ = ("node", "cell", "_label")

    def __init__(self, node: ET.Element, cell: ET.Element):
        self.node = node
        self.cell = cell
        self._label: tuple[str, str, str] | None = None  # (raw label, style, plain text): stripping HTML is slow

    @property
    def id(self) -> str:
        return self.node.get("id", "")

    @property
    def parent(self) -> str | None:
        return self.cell.get("parent")

    @property
    def is_vertex(self) -> bool:
        return self.cell.get("vertex") == "1"

    @property
    def is_edge(self) -> bool:
        return self.cell.get("edge") == "1"

    @property
    def label_attr(self) -> str:
        return "label" if self.node is not self.cell else "value"

    @property
    def raw_label(self) -> str:
        return self.node.get(self.label_attr) or ""

    @property
    def style(self) -> str:
        return self.cell.get("style") or ""

    @property
    def is_html(self) -> bool:
        return style_dict(self.style).get("html") == "1"

    @property
    def label(self) -> str:
        raw, style = self.raw_label, self.style
        if self._label is None or self._label[:2] != (raw, style):
            self._label = (raw, style, plain_text(raw, style_dict(style).get("html") == "1"))
        return self._label[2]

    @property
    def geometry(self) -> ET.Element | None:
        return self.cell.find("mxGeometry")

    def number(self, key: str, default: float = 0.0) -> float:
        geometry = self.geometry
        try:
            return float(geometry.get(key, default)) if geometry is not None else default
        except ValueError:
            return default


class Page:
    """One ``<diagram>``: its mxGraphModel and an index of its cells in document order."""

    def __init__(self, diagram: ET.Element | None, model: ET.Element, compressed: bool):
        self.diagram = diagram
        self.model = model
        self.compressed = compressed
        self.touched = False  # re-encode on save only pages that changed
        root = model.find("root")
        if root is None:
            root = ET.SubElement(model, "root")
        self.root = root
        self.cells: dict[str, Cell] = {}
        for node in root:
            cell = node.find("mxCell") if node.tag in WRAPPERS else node
            if cell is None or cell.tag != "mxCell":
                continue
            item = Cell(node, cell)
            if item.id in self.cells:
                raise UnsafeDocument(f"the page {self.name!r} uses the cell id {item.id!r} twice")
            self.cells[item.id] = item
        # the root cell (no parent, normally "0"); layers are its children. ASIL never removes it.
        self.root_id = next((c.id for c in self.cells.values() if c.parent is None), None)

    @property
    def name(self) -> str:
        return self.diagram.get("name", "") if self.diagram is not None else "Page-1"

    @property
    def id(self) -> str:
        return self.diagram.get("id", "") if self.diagram is not None else ""

    def kind(self, cell: Cell) -> str:
        if cell.is_edge:
            return "edge"
        if cell.is_vertex:
            return "vertex"
        if cell.parent is None:
            return "root"
        return "layer" if cell.parent == self.root_id else "cell"

    def layers(self) -> list[Cell]:
        root_id = self.root_id
        return [c for c in self.cells.values() if c.parent == root_id and root_id is not None]

    def layer_of(self, cell: Cell) -> Cell | None:
        root_id, seen = self.root_id, set()
        while cell.parent is not None and cell.parent != root_id and cell.id not in seen:
            seen.add(cell.id)
            parent = self.cells.get(cell.parent)
            if parent is None:
                return None
            cell = parent
        return cell if cell.parent == root_id else None

    def children(self, cell_id: str) -> list[Cell]:
        return [c for c in self.cells.values() if c.parent == cell_id]

    def descendants(self, cell_id: str) -> list[Cell]:
        found, frontier = [], [cell_id]
        while frontier:
            kids = [c for c in self.cells.values() if c.parent in frontier]
            found += kids
            frontier = [c.id for c in kids]
        return found

    def edges_of(self, ids: set[str]) -> list[Cell]:
        return [c for c in self.cells.values() if c.is_edge and (c.cell.get("source") in ids or c.cell.get("target") in ids)]

    def origin(self, cell: Cell) -> tuple[float, float]:
        """Where the coordinate system of ``cell``'s geometry starts (its ancestors' offsets)."""
        x = y = 0.0
        parent = self.cells.get(cell.parent or "")
        while parent is not None and parent.is_vertex:
            x, y = x + parent.number("x"), y + parent.number("y")
            parent = self.cells.get(parent.parent or "")
        return x, y

    def add(self, node: ET.Element) -> Cell:
        cell = node.find("mxCell") if node.tag in WRAPPERS else node
        assert cell is not None
        self.root.append(node)
        item = Cell(node, cell)
        self.cells[item.id] = item
        return item

    def remove(self, cell_id: str) -> None:
        item = self.cells.pop(cell_id)
        self.root.remove(item.node)

    def new_id(self, prefix: str = "asil-") -> str:
        return next(f"{prefix}{n}" for n in itertools.count(1) if f"{prefix}{n}" not in self.cells)

    def vertices(self) -> Iterator[Cell]:
        return (c for c in self.cells.values() if c.is_vertex)

    def edges(self) -> Iterator[Cell]:
        return (c for c in self.cells.values() if c.is_edge)


class Document:
    """A whole ``.drawio`` file: an ``<mxfile>`` of pages, or a bare ``<mxGraphModel>``."""

    def __init__(self, top: ET.Element, pages: list[Page], declaration: bool):
        self.top = top
        self.pages = pages
        self.declaration = declaration

    @property
    def is_bare(self) -> bool:
        return self.top.tag == "mxGraphModel"

    @classmethod
    def parse(cls, data: bytes) -> Document:
        """Read a file's bytes; raise UnsafeDocument with the reason when it cannot be used."""
        if len(data) > MAX_FILE_BYTES:
            raise UnsafeDocument(f"it is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        top = parse_xml(data)
        declaration = data.lstrip().startswith(b"<?xml")
        if top.tag == "mxGraphModel":
            return cls(top, [Page(None, top, compressed=False)], declaration)
        if top.tag != "mxfile":
            raise UnsafeDocument(f"its top element is <{top.tag}>, not <mxfile> or <mxGraphModel>")
        pages = [_read_page(diagram) for diagram in top.findall("diagram")]
        if not pages:
            raise UnsafeDocument("it has no <diagram> pages")
        return cls(top, pages, declaration)

    def to_bytes(self) -> bytes:
        for page in self.pages:
            if page.compressed and page.touched and page.diagram is not None:
                page.diagram.text = deflate(to_xml(page.model))
        text = to_xml(self.top)
        return ((XML_DECLARATION if self.declaration else "") + text).encode("utf-8")

    def page(self, ref: str) -> Page | None:
        """A page by name, else by id."""
        return next((p for p in self.pages if p.name == ref), None) or next(
            (p for p in self.pages if p.diagram is not None and p.id == ref), None)

    def copy(self) -> Document:
        top = copy.deepcopy(self.top)
        diagrams = top.findall("diagram") if not self.is_bare else [None]
        pages = []
        for old, diagram in zip(self.pages, diagrams, strict=True):
            model = top if diagram is None else (copy.deepcopy(old.model) if old.compressed else diagram.find("mxGraphModel"))
            assert model is not None
            page = Page(diagram, model, old.compressed)
            page.touched = old.touched
            pages.append(page)
        return Document(top, pages, self.declaration)


def _read_page(diagram: ET.Element) -> Page:
    model = diagram.find("mxGraphModel")
    if model is not None:
        return Page(diagram, model, compressed=False)
    text = (diagram.text or "").strip()
    if not text:
        empty = parse_xml('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>')
        diagram.append(empty)
        return Page(diagram, empty, compressed=False)
    model = parse_xml(inflate(text))
    if model.tag != "mxGraphModel":
        raise UnsafeDocument(f"the page {diagram.get('name', '')!r} holds <{model.tag}>, not <mxGraphModel>")
    return Page(diagram, model, compressed=True)
