"""An SVG document held in lxml: safe parsing, stable ids, styles, layers and geometry.

Parsing is hardened: entity declarations are refused before lxml sees the bytes, and lxml
runs with entity resolution, network access and huge trees off. Elements without an ``id``
get a stable one when the document is opened; it is written with the next save.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asil.adapters.inkscape import geometry as geo
from asil.protocol import DocumentError

if TYPE_CHECKING:
    from lxml.etree import _Element, _ElementTree

SVG = "http://www.w3.org/2000/svg"
INKSCAPE = "http://www.inkscape.org/namespaces/inkscape"
SODIPODI = "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
XLINK = "http://www.w3.org/1999/xlink"
NS = {"svg": SVG, "inkscape": INKSCAPE, "sodipodi": SODIPODI, "xlink": XLINK}
MAX_BYTES = 64 * 1024 * 1024
ITEM_TAGS = {"g", "rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "text", "image", "use", "a",
             "switch"}
ITEM_CLARK = tuple(f"{{{SVG}}}{tag}" for tag in sorted(ITEM_TAGS))
CONTAINER_CLARK = {f"{{{SVG}}}{tag}" for tag in ("g", "a", "switch")}
# Properties SVG inherits from the parent when an element does not set them.
INHERITED = {"fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-dasharray",
             "stroke-linecap", "stroke-linejoin", "font-family", "font-size", "font-weight", "font-style",
             "text-anchor", "visibility", "color"}
PRESENTATION = INHERITED | {"opacity", "display", "stop-color", "filter", "clip-path", "mask"}
INITIAL = {"fill": "#000000", "stroke": "none", "stroke-width": "1", "opacity": "1", "display": "inline",
           "visibility": "visible", "fill-opacity": "1", "stroke-opacity": "1"}
_ENTITY = re.compile(rb"<!ENTITY", re.IGNORECASE)
VALID_SVG = "Give an SVG document (an XML file whose root is <svg xmlns=\"http://www.w3.org/2000/svg\">)."


def q(prefix: str, name: str) -> str:
    return f"{{{NS[prefix]}}}{name}"


LABEL = q("inkscape", "label")
GROUPMODE = q("inkscape", "groupmode")


def local(el: _Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def is_svg(el: _Element, *names: str) -> bool:
    return isinstance(el.tag, str) and el.tag.startswith(f"{{{SVG}}}") and (not names or local(el) in names)


def is_layer(el: _Element) -> bool:
    return is_svg(el, "g") and el.get(GROUPMODE) == "layer"


def parse_svg_bytes(data: bytes, shown: str) -> _ElementTree:
    """Parse untrusted SVG bytes without expanding entities or touching the network."""
    from lxml import etree

    if len(data) > MAX_BYTES:
        raise DocumentError(f"{shown!r} is larger than {MAX_BYTES // 2**20} MB.", hint="Open a smaller SVG.")
    if _ENTITY.search(data):
        raise DocumentError(f"{shown!r} declares XML entities, which ASIL refuses to expand (entity expansion "
                            "and external entities are an attack vector).", hint="Remove the <!DOCTYPE ...> block.")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                             remove_blank_text=False)
    try:
        tree = etree.ElementTree(etree.fromstring(data, parser))
    except etree.XMLSyntaxError as exc:
        raise DocumentError(f"{shown!r} is not well-formed XML ({exc.msg}).", hint=VALID_SVG) from None
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):  # type: ignore[attr-defined]
        raise DocumentError(f"{shown!r} declares XML entities, which ASIL refuses to expand.",
                            hint="Remove the <!DOCTYPE ...> block.")
    if tree.getroot().tag != q("svg", "svg"):
        raise DocumentError(f"{shown!r} is XML but not SVG (its root is {tree.getroot().tag!r}).", hint=VALID_SVG)
    return tree


def parse_style(text: str | None) -> dict[str, str]:
    """``"fill:#f00; stroke : none"`` -> ``{"fill": "#f00", "stroke": "none"}`` (order kept)."""
    style: dict[str, str] = {}
    for part in (text or "").split(";"):
        name, sep, value = part.partition(":")
        if sep and name.strip():
            style[name.strip().lower()] = value.strip()
    return style


def format_style(style: dict[str, str]) -> str:
    return ";".join(f"{k}:{v}" for k, v in style.items())


class SvgDocument:
    """The parsed document plus the ids ASIL assigned to elements that had none."""

    def __init__(self, tree: _ElementTree):
        self.tree = tree
        self.root = tree.getroot()
        self.assigned: set[str] = set()
        self._index: dict[str, _Element] | None = None
        self.assign_ids()

    @classmethod
    def load(cls, path: Path, shown: str) -> SvgDocument:
        if path.suffix.lower() != ".svg":
            raise DocumentError(f"{shown!r} is not an .svg file.", hint=VALID_SVG)
        if not path.is_file():
            raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=VALID_SVG)
        return cls(parse_svg_bytes(path.read_bytes(), shown))

    def serialize(self) -> bytes:
        from lxml import etree

        data: bytes = etree.tostring(self.tree, xml_declaration=True, encoding="UTF-8", standalone=False)
        return data + b"\n"

    # ------------------------------------------------------------ ids
    def items(self, under: _Element | None = None) -> Iterator[_Element]:
        """Drawable elements in document order (defs, metadata and text spans excluded)."""
        start = self.root if under is None else under
        containers = {start}  # items are reachable from ``start`` through containers only
        for el in start.iter(*ITEM_CLARK):
            if el is not start and el.getparent() in containers:
                if el.tag in CONTAINER_CLARK:
                    containers.add(el)
                yield el

    def child_items(self, el: _Element) -> list[_Element]:
        return list(_children_xpath()(el))

    def assign_ids(self) -> None:
        taken = self.index()
        counters: dict[str, int] = {}
        for el in self.items():
            if el.get("id"):
                continue
            kind = "layer" if is_layer(el) else local(el)
            n = counters.get(kind, 0)
            while True:
                n += 1
                candidate = f"{kind}{n}"
                if candidate not in taken:
                    break
            counters[kind] = n
            el.set("id", candidate)
            taken[candidate] = el
            self.assigned.add(candidate)

    def index(self) -> dict[str, _Element]:
        if self._index is None:
            self._index = {el.get("id") or "": el for el in self.root.iter() if isinstance(el.tag, str) and el.get("id")}
        return self._index

    def touched(self) -> None:
        """Forget cached lookups after a structural change."""
        self._index = None

    def get(self, element_id: str) -> _Element | None:
        return self.index().get(element_id)

    def fresh_id(self, kind: str) -> str:
        taken = self.index()
        n = 1
        while f"{kind}{n}" in taken:
            n += 1
        return f"{kind}{n}"

    # ------------------------------------------------------------ structure
    def layers(self) -> list[_Element]:
        return [el for el in self.root.iter(f"{{{SVG}}}g") if el.get(GROUPMODE) == "layer"]

    def layer_of(self, el: _Element) -> _Element | None:
        for parent in el.iterancestors():
            if is_layer(parent):
                return parent
        return None

    def canvas(self) -> dict[str, object]:
        root = self.root
        info: dict[str, object] = {"width": root.get("width"), "height": root.get("height"),
                                   "viewBox": root.get("viewBox")}
        try:
            box = [float(v) for v in re.split(r"[\s,]+", (root.get("viewBox") or "").strip())] or []
            info["viewBox"] = box if len(box) == 4 else root.get("viewBox")
        except ValueError:
            pass
        return {k: v for k, v in info.items() if v is not None}

    def page(self) -> tuple[float, float, float, float]:
        """The page as (x, y, width, height) in user units: the viewBox, else width and height."""
        box = self.canvas().get("viewBox")
        if isinstance(box, list):
            return box[0], box[1], box[2], box[3]
        try:
            return 0.0, 0.0, geo.length(self.root.get("width"), 0.0), geo.length(self.root.get("height"), 0.0)
        except geo.GeometryError:
            return 0.0, 0.0, 0.0, 0.0

    # ------------------------------------------------------------ style
    @staticmethod
    def own_style(el: _Element) -> dict[str, str]:
        """Presentation attributes overridden by the ``style`` attribute, as SVG specifies."""
        style = {name: str(el.get(name)) for name in PRESENTATION if el.get(name) is not None}
        style.update(parse_style(el.get("style")))
        return style

    def computed(self, el: _Element, prop: str) -> str | None:
        """The value in effect: own style, then (for inherited properties) the ancestors', then SVG's initial."""
        node: _Element | None = el
        while node is not None and is_svg(node):
            value = self.own_style(node).get(prop)
            if value is not None and value != "inherit":
                return value
            if prop not in INHERITED:
                break
            node = node.getparent()
        return INITIAL.get(prop)

    def hidden(self, el: _Element) -> bool:
        own = self.own_style(el)
        return own.get("display") == "none" or own.get("visibility") == "hidden"

    # ------------------------------------------------------------ geometry
    def ctm(self, el: _Element) -> geo.Matrix:
        """The element's own transform composed with every ancestor's (root first)."""
        chain = [el, *el.iterancestors()]
        matrix = geo.IDENTITY
        for node in reversed(chain):
            matrix = matrix @ geo.parse_transform(node.get("transform"))
        return matrix

    def bbox(self, el: _Element, visual: bool = True, matrix: geo.Matrix | None = None) -> geo.Box | None:
        """The element's box in document units (visual: grown by half the stroke), None if empty or hidden."""
        if self.hidden(el):
            return None
        m = self.ctm(el) if matrix is None else matrix
        kind = local(el)
        if kind in ("g", "a", "switch"):
            return geo.union(self.bbox(c, visual, m @ geo.parse_transform(c.get("transform")))
                             for c in el if is_svg(c) and local(c) in ITEM_TAGS)
        box = self.shape_box(el, m)
        if box is None or not visual or kind in ("text", "image"):
            return box
        stroke = self.computed(el, "stroke")
        if stroke in (None, "none"):
            return box
        half = geo.length(self.computed(el, "stroke-width"), 1.0) * m.scale / 2
        cap = self.computed(el, "stroke-linecap") or "butt"
        if kind == "line" and cap != "round":
            ends = [m.apply(geo.length(el.get(a), 0), geo.length(el.get(b), 0)) for a, b in (("x1", "y1"), ("x2", "y2"))]
            return geo.line_stroke_box(ends[0], ends[1], half, cap == "square")
        # exact for rectangles, circles and ellipses; paths and polylines are bounded from above
        return geo.grow(box, half)

    def shape_box(self, el: _Element, m: geo.Matrix) -> geo.Box | None:
        kind, get = local(el), el.get
        if kind in ("rect", "image"):
            return geo.rect_box(geo.length(get("x"), 0), geo.length(get("y"), 0), geo.length(get("width"), 0),
                                geo.length(get("height"), 0), m)
        if kind == "circle":
            r = geo.length(get("r"), 0)
            return geo.ellipse_box(geo.length(get("cx"), 0), geo.length(get("cy"), 0), r, r, m)
        if kind == "ellipse":
            return geo.ellipse_box(geo.length(get("cx"), 0), geo.length(get("cy"), 0), geo.length(get("rx"), 0),
                                   geo.length(get("ry"), 0), m)
        if kind == "line":
            return geo.points_box([m.apply(geo.length(get("x1"), 0), geo.length(get("y1"), 0)),
                                   m.apply(geo.length(get("x2"), 0), geo.length(get("y2"), 0))])
        if kind in ("polyline", "polygon"):
            return geo.points_box(m.apply(*p) for p in geo.polyline_points(get("points") or ""))
        if kind == "path":
            return geo.path_box(get("d") or "", m)
        if kind == "text":
            return self._text_box(el, m)
        return None

    def _text_box(self, el: _Element, m: geo.Matrix) -> geo.Box | None:
        """An estimate (fonts are not measured): 0.55 em per character, ascent 0.75 em."""
        text = text_of(el)
        if not text:
            return None
        size = geo.length(re.sub(r"px$", "", self.computed(el, "font-size") or "16"), 16.0)
        x, y = geo.length((el.get("x") or "0").split()[0], 0), geo.length((el.get("y") or "0").split()[0], 0)
        width = 0.55 * size * len(text)
        anchor = self.computed(el, "text-anchor")
        x -= width / 2 if anchor == "middle" else (width if anchor == "end" else 0)
        return geo.rect_box(x, y - 0.75 * size, width, size, m)


_ITEM_TEST = " or ".join(f"self::svg:{tag}" for tag in sorted(ITEM_TAGS))


@functools.cache
def _children_xpath() -> Any:
    from lxml import etree

    return etree.XPath(f"svg:*[{_ITEM_TEST}]", namespaces=NS)


def text_of(el: _Element) -> str:
    """A text element's characters, spans joined, whitespace collapsed."""
    return re.sub(r"\s+", " ", "".join(str(t) for t in el.itertext())).strip()
