"""The independent raw validator for Inkscape tasks: judges checkpoints from the saved .svg file.

It shares no read path with the adapter: XML is read with the standard library's ElementTree
(its own ElementPath engine instead of lxml's XPath), styles are resolved here, and bounding
boxes come from the real Inkscape (``inkscape --query-all``) instead of ASIL's geometry. It
fails closed: anything it cannot read or does not know is a failed checkpoint.
"""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.protocol import AsilError
from asil.workspace import Workspace

NS = {"svg": "http://www.w3.org/2000/svg", "inkscape": "http://www.inkscape.org/namespaces/inkscape",
      "sodipodi": "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd", "xlink": "http://www.w3.org/1999/xlink"}
LABEL = f"{{{NS['inkscape']}}}label"
INHERITED = {"fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
             "stroke-linecap", "stroke-linejoin", "font-family", "font-size", "font-weight", "font-style",
             "text-anchor", "visibility", "color"}
INITIAL = {"fill": "#000000", "stroke": "none", "stroke-width": "1", "opacity": "1", "display": "inline",
           "visibility": "visible", "fill-opacity": "1", "stroke-opacity": "1"}
HEX_NAMES = {"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000", "blue": "#0000ff",
             "yellow": "#ffff00", "orange": "#ffa500", "gray": "#808080", "grey": "#808080", "purple": "#800080"}
PX = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_QUERY_CACHE: dict[tuple[str, int, int], dict[str, tuple[float, float, float, float]]] = {}


class RawReadError(Exception):
    """The file or the checkpoint cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw file; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawReadError, AsilError, ET.ParseError, SyntaxError, KeyError, ValueError, OSError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    if cp.type == "png_size":
        return _png_size(Path(workspace.root, str(cp.target)))
    path = Path(workspace.root, str(cp.document))
    root = _load(path)
    parents = {child: parent for parent in root.iter() for child in parent}
    if cp.type in ("svg_count", "svg_exists"):
        count = len(_find(root, str(cp.target)))
        return count if cp.type == "svg_count" else count > 0
    if cp.type == "svg_layers":
        return [g.get(LABEL) for g in root.iter(f"{{{NS['svg']}}}g") if g.get(f"{{{NS['inkscape']}}}groupmode") == "layer"]
    if cp.type == "svg_attribute":
        where, _, name = str(cp.target).rpartition("/@")
        value = _only(root, where).get(_clark(name))
        return _number_if(value, cp.expected)
    if cp.type == "svg_text":
        return re.sub(r"\s+", " ", "".join(_only(root, str(cp.target)).itertext())).strip()
    if cp.type == "svg_style":
        el = _only(root, str(cp.target))
        return {prop: _style(el, prop, parents, want) for prop, want in dict(cp.expected).items()}
    if cp.type == "svg_bbox":
        element_id = _only(root, str(cp.target)).get("id")
        if not element_id:
            raise RawReadError("no id")
        box = _inkscape_boxes(path)[element_id]
        return [round(v, 3) for v in box]
    raise RawReadError(f"unknown checkpoint type {cp.type!r}")


def _load(path: Path) -> ET.Element:
    data = path.read_bytes()
    if b"<!ENTITY" in data.upper():
        raise RawReadError("entity declarations are refused")
    root = ET.fromstring(data)
    if root.tag != f"{{{NS['svg']}}}svg":
        raise RawReadError("not SVG")
    return root


def _find(root: ET.Element, target: str) -> list[ET.Element]:
    if target.startswith("#"):
        return [el for el in root.iter() if el.get("id") == target[1:]]
    if target.startswith("//"):
        target = "." + target
    if not target.startswith("./"):
        raise RawReadError("paths start with // or .//")
    return root.findall(target, NS)


def _only(root: ET.Element, target: str) -> ET.Element:
    found = _find(root, target)
    if len(found) != 1:
        raise RawReadError(f"{target!r} matches {len(found)} elements")
    return found[0]


def _clark(name: str) -> str:
    prefix, sep, rest = name.partition(":")
    return f"{{{NS[prefix]}}}{rest}" if sep else name


def _declared(el: ET.Element, prop: str) -> str | None:
    """The element's own value of a property: its style attribute wins over the presentation attribute."""
    found = el.get(prop)
    for part in (el.get("style") or "").split(";"):
        key, sep, value = part.partition(":")
        if sep and key.strip().lower() == prop:
            found = value.strip()
    return None if found is None or found == "inherit" else found


def _style(el: ET.Element, prop: str, parents: dict[ET.Element, ET.Element], expected: Any) -> Any:
    node: ET.Element | None = el
    value = None
    while node is not None:
        value = _declared(node, prop)
        if value is not None or prop not in INHERITED:
            break
        node = parents.get(node)
    value = value if value is not None else INITIAL.get(prop)
    if value is None:
        return None
    if prop in ("fill", "stroke", "color", "stop-color", "flood-color"):
        return _hex(value)
    return _number_if(value, expected)


def _hex(value: str) -> str:
    text = HEX_NAMES.get(value.strip().lower(), value.strip().lower())
    short = re.fullmatch(r"#([0-9a-f])([0-9a-f])([0-9a-f])", text)
    if short:
        return "#" + "".join(d + d for d in short.groups())
    rgb = re.fullmatch(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", text)
    if rgb:
        return "#" + "".join(f"{min(int(v), 255):02x}" for v in rgb.groups())
    return text


def _number_if(value: str | None, expected: Any) -> Any:
    if value is None or isinstance(expected, bool) or not isinstance(expected, int | float):
        return value
    match = re.fullmatch(r"\s*([-+]?[\d.]+(?:e[-+]?\d+)?)\s*([a-z]*)\s*", value, re.IGNORECASE)
    if not match or match.group(2) not in PX:
        return value
    return float(match.group(1)) * PX[match.group(2)]


def _inkscape_boxes(path: Path) -> dict[str, tuple[float, float, float, float]]:
    from asil.apps.inkscape import query_all

    info = path.stat()
    key = (str(path), info.st_mtime_ns, info.st_size)
    if key not in _QUERY_CACHE:
        _QUERY_CACHE.clear()
        _QUERY_CACHE[key] = query_all(path)
    return _QUERY_CACHE[key]


def _png_size(path: Path) -> list[int]:
    with path.open("rb") as handle:
        head = handle.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise RawReadError("not a PNG")
    return list(struct.unpack(">II", head[16:24]))
