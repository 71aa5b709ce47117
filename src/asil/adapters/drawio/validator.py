"""The independent raw validator for draw.io tasks: judges checkpoints straight from the saved file.

It shares no code with the adapter's reader: stdlib ElementTree (after refusing any DOCTYPE),
its own base64/zlib/URL decoding of compressed pages, and regular expressions for HTML labels.
It fails closed — anything it cannot read, or does not know, is a failed checkpoint. Tests run
it beside the evaluator on every draw.io task; the two must agree.
"""

from __future__ import annotations

import base64
import html
import re
import urllib.parse
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

INFLATE_LIMIT = 32 << 20
BLOCK = re.compile(r"<\s*/?\s*(br|div|p|li|tr|h[1-6])\b[^>]*>", re.IGNORECASE)
TAG = re.compile(r"<[^>]*>")


class RawReadError(Exception):
    pass


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw file; False when in doubt."""
    try:
        actual = _read(cp, Path(workspace.root, str(cp.document)))
    except (RawReadError, ET.ParseError, KeyError, ValueError, OSError, zlib.error):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


# ---------------------------------------------------------------- reading the file


def _pages(path: Path) -> list[tuple[str, ET.Element, bool]]:
    """(name, <root> element, compressed) for every page of the file."""
    data = path.read_bytes()
    _no_declarations(data.decode("utf-8"))
    top = ET.fromstring(data)
    if top.tag == "mxGraphModel":
        return [("Page-1", _root_of(top), False)]
    pages = []
    for diagram in top.iter("diagram"):
        model = diagram.find("mxGraphModel")
        compressed = model is None
        if model is None:
            model = ET.fromstring(_unpack(diagram.text or ""))
        pages.append((diagram.get("name", ""), _root_of(model), compressed))
    if not pages:
        raise RawReadError("no pages")
    return pages


def _unpack(text: str) -> str:
    packed = base64.b64decode(re.sub(r"\s+", "", text), validate=True)
    stream = zlib.decompressobj(wbits=-15)
    xml = stream.decompress(packed, INFLATE_LIMIT)
    if stream.unconsumed_tail:
        raise RawReadError("compressed page too large")
    return _no_declarations(urllib.parse.unquote(xml.decode("ascii")))


def _no_declarations(text: str) -> str:
    """ElementTree would expand internal entities; a draw.io file never declares any."""
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise RawReadError("declarations are not allowed")
    return text


def _root_of(model: ET.Element) -> ET.Element:
    root = model.find("root")
    if root is None or model.tag != "mxGraphModel":
        raise RawReadError("no <root>")
    return root


def _cells(root: ET.Element) -> dict[str, dict[str, Any]]:
    """id -> facts about each cell: parent, kind flags, label text, style, geometry."""
    cells: dict[str, dict[str, Any]] = {}
    for node in root:
        inner = node if node.tag == "mxCell" else node.find("mxCell")
        if inner is None:
            continue
        raw = node.get("value" if node is inner else "label") or ""
        style = inner.get("style") or ""
        geometry = inner.find("mxGeometry")
        cells[node.get("id", "")] = {
            "parent": inner.get("parent"), "vertex": inner.get("vertex") == "1", "edge": inner.get("edge") == "1",
            "source": inner.get("source"), "target": inner.get("target"), "style": style,
            "text": _text(raw, "html=1" in style.split(";")),
            "geometry": [float(geometry.get(k, 0)) if geometry is not None else 0.0 for k in ("x", "y", "width", "height")],
        }
    return cells


def _text(raw: str, is_html: bool) -> str:
    if is_html:
        raw = html.unescape(TAG.sub("", BLOCK.sub("\n", raw)))
    return "\n".join(" ".join(line.split()) for line in raw.replace("\xa0", " ").splitlines() if line.strip())


def _key(text: str) -> str:
    return " ".join(text.split()).lower()


# ---------------------------------------------------------------- checkpoint types


def _read(cp: Checkpoint, path: Path) -> Any:
    pages = _pages(path)
    if cp.type == "drawio_page_names":
        return [name for name, _, _ in pages]
    if cp.type == "drawio_page_count":
        return len(pages)
    if cp.type in PAGE_READERS:
        chosen = pages[0] if cp.target is None else next((p for p in pages if p[0] == cp.target), None)
        if chosen is None:
            raise RawReadError("no such page")
        return PAGE_READERS[cp.type](chosen)
    head, bang, rest = str(cp.target).partition("!")
    named = next((p for p in pages if p[0] == head), None) if bang else None
    _, root, _ = named or pages[0]
    item = rest if named else str(cp.target)
    if cp.type not in ITEM_READERS:
        raise RawReadError(f"unknown checkpoint type {cp.type}")
    return ITEM_READERS[cp.type](_cells(root), item, cp)


def _root_id(cells: dict[str, dict[str, Any]]) -> str:
    return next(cid for cid, c in cells.items() if c["parent"] is None)


def _layers(root: ET.Element) -> list[str]:
    cells = _cells(root)
    top = _root_id(cells)
    return [c["text"] for c in cells.values() if c["parent"] == top]


PAGE_READERS: dict[str, Any] = {
    "drawio_layer_names": lambda page: _layers(page[1]),
    "drawio_vertex_labels": lambda page: [" ".join(c["text"].split()) for c in _cells(page[1]).values()
                                          if c["vertex"] and c["text"]],
    "drawio_compressed": lambda page: page[2],
}


def _with_label(cells: dict[str, dict[str, Any]], label: str) -> list[str]:
    return [cid for cid, c in cells.items() if c["vertex"] and _key(c["text"]) == _key(label)]


def _edges_between(cells: dict[str, dict[str, Any]], spec: str) -> list[str]:
    if " -> " in spec:
        a, b = spec.split(" -> ", 1)
        directed = True
    elif " -- " in spec:
        a, b = spec.split(" -- ", 1)
        directed = False
    else:
        raise RawReadError("bad edge spec")

    def name(ref: str | None) -> str | None:
        return _key(cells[ref]["text"]) if ref in cells else None

    found = []
    for cid, c in cells.items():
        if not c["edge"]:
            continue
        ends = (name(c["source"]), name(c["target"]))
        if ends == (_key(a), _key(b)) or (not directed and ends == (_key(b), _key(a))):
            found.append(cid)
    return found


def _single(ids: list[str]) -> str:
    if len(ids) != 1:
        raise RawReadError("not exactly one match")
    return ids[0]


def _thing(cells: dict[str, dict[str, Any]], item: str) -> str:
    is_edge = " -> " in item or " -- " in item
    return _single(_edges_between(cells, item) if is_edge else _with_label(cells, item))


def _style(cells: dict[str, dict[str, Any]], item: str, cp: Checkpoint) -> dict[str, Any]:
    if not isinstance(cp.expected, dict) or not cp.expected:
        raise RawReadError("expected must be a dict")
    pairs: dict[str, Any] = {}
    for token in cells[_thing(cells, item)]["style"].split(";"):
        token = token.strip()
        if token:
            key, eq, value = token.partition("=")
            pairs[key] = value if eq else True
    return {key: pairs.get(key) for key in cp.expected}


def _shape(cells: dict[str, dict[str, Any]], item: str, cp: Checkpoint) -> str:
    style: str = cells[_single(_with_label(cells, item))]["style"]
    tokens = [t.strip() for t in style.split(";") if t.strip()]
    explicit = [t[len("shape="):] for t in tokens if t.startswith("shape=") and len(t) > len("shape=")]
    bare = [t for t in tokens if "=" not in t]
    return (explicit or bare or ["rectangle"])[-1 if explicit else 0]


def _edge_label(cells: dict[str, dict[str, Any]], item: str, cp: Checkpoint) -> str:
    edge = _single(_edges_between(cells, item))
    texts = [cells[edge]["text"]] + [c["text"] for c in cells.values() if c["parent"] == edge and c["vertex"]]
    return " ".join(t for t in texts if t)


def _layer_name(cells: dict[str, dict[str, Any]], item: str, cp: Checkpoint) -> str:
    top, current, hops = _root_id(cells), _thing(cells, item), 0
    while cells[current]["parent"] != top:
        current, hops = cells[current]["parent"], hops + 1
        if current not in cells or hops > 1000:
            raise RawReadError("no layer")
    return str(cells[current]["text"])


def _count_kind(cells: dict[str, dict[str, Any]], kind: str, cp: Checkpoint) -> int:
    top = _root_id(cells)

    def kind_of(c: dict[str, Any]) -> str:
        if c["edge"]:
            return "edge"
        if c["vertex"]:
            return "vertex"
        return "layer" if c["parent"] == top else "other"

    if kind not in ("vertex", "edge", "layer"):
        raise RawReadError("bad kind")
    return sum(1 for c in cells.values() if kind_of(c) == kind)


def _label_by_id(cells: dict[str, dict[str, Any]], item: str, cp: Checkpoint) -> str:
    return str(cells[item]["text"])


ITEM_READERS: dict[str, Any] = {
    "drawio_vertex_count": lambda cells, item, cp: len(_with_label(cells, item)),
    "drawio_edge_count": lambda cells, item, cp: len(_edges_between(cells, item)),
    "drawio_style": _style,
    "drawio_edge_label": _edge_label,
    "drawio_shape": _shape,
    "drawio_label": _label_by_id,
    "drawio_geometry": lambda cells, item, cp: cells[_single(_with_label(cells, item))]["geometry"],
    "drawio_cell_layer": _layer_name,
    "drawio_cell_count": _count_kind,
}
