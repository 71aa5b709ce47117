"""Checkpoint types that read an SVG through the Inkscape adapter (lxml, XPath 1.0, ASIL's geometry).

Targets are namespace-aware XPath in the subset both lxml and the raw validator's ElementTree
understand: start with ``//`` or ``.//``, prefixes ``svg``, ``inkscape``, ``sodipodi``, ``xlink``,
predicates ``[@a]``, ``[@a='v']``, ``[tag]``, ``[n]``, ``[last()]``. ``#id`` is short for
``//*[@id='id']``. Attribute checkpoints append ``/@name`` (``/@inkscape:label``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from asil.adapters.inkscape import geometry as geo
from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.adapters.inkscape.svgdoc import LABEL, NS, text_of
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require
from asil.evaluate.checkpoints import png_size as png_file_size

if TYPE_CHECKING:
    from lxml.etree import _Element

COLOR_PROPS = {"fill", "stroke", "color", "stop-color", "flood-color"}
NAMED = {"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000", "blue": "#0000ff",
         "yellow": "#ffff00", "orange": "#ffa500", "gray": "#808080", "grey": "#808080", "purple": "#800080"}


def selector(target: str | None) -> str:
    """The XPath of a target: ``#id`` expands to ``//*[@id='id']``."""
    text = require(target, "XPath target")
    if text.startswith("#"):
        return f"//*[@id='{text[1:]}']"
    if not text.startswith(("//", ".//", "./")):
        raise CheckpointUnreadable(f"the XPath {text!r} must start with // or .//")
    return text


def _adapter(ctx: EvalContext, cp: Checkpoint) -> InkscapeAdapter:
    adapter = ctx.adapter("inkscape", require(cp.document, "document (.svg path)"))
    assert isinstance(adapter, InkscapeAdapter)
    return adapter


def _select(root: _Element, path: str) -> list[_Element]:
    from lxml import etree

    try:
        found = root.xpath(path if path.startswith("/") else path, namespaces=NS)
    except etree.XPathError as exc:
        raise CheckpointUnreadable(f"bad XPath {path!r}: {exc}") from None
    if not isinstance(found, list):
        raise CheckpointUnreadable(f"the XPath {path!r} does not select elements")
    return [el for el in found if isinstance(el, etree._Element)]


def _one(root: _Element, path: str) -> _Element:
    found = _select(root, path)
    if len(found) != 1:
        raise CheckpointUnreadable(f"{path!r} selects {len(found)} elements, not exactly one")
    return found[0]


@checkpoint_type("svg_count")
def svg_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many elements the XPath target selects."""
    with _adapter(ctx, cp).as_saved() as root:
        return len(_select(root, selector(cp.target)))


@checkpoint_type("svg_exists")
def svg_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """Whether the XPath target selects at least one element."""
    return bool(svg_count(ctx, cp) > 0)


def split_attribute(target: str | None) -> tuple[str, str]:
    path, sep, name = require(target, "XPath/@attribute target").rpartition("/@")
    if not sep or not path or not re.fullmatch(r"(?:[a-z]+:)?[A-Za-z_][\w.\-]*", name):
        raise CheckpointUnreadable(f"{target!r} must end with /@attribute")
    return path, name


def clark(name: str) -> str:
    prefix, sep, rest = name.partition(":")
    if not sep:
        return name
    if prefix not in NS:
        raise CheckpointUnreadable(f"unknown namespace prefix {prefix!r}")
    return f"{{{NS[prefix]}}}{rest}"


@checkpoint_type("svg_attribute", default_compare="normalized")
def svg_attribute(ctx: EvalContext, cp: Checkpoint) -> Any:
    """An attribute of the one selected element; a number when ``expected`` is a number."""
    path, name = split_attribute(cp.target)
    with _adapter(ctx, cp).as_saved() as root:
        value = _one(root, selector(path)).get(clark(name))
    return as_expected(value, cp.expected)


def as_expected(value: str | None, expected: Any) -> Any:
    if value is None or not isinstance(expected, int | float) or isinstance(expected, bool):
        return value
    try:
        return geo.length(value)
    except geo.GeometryError:
        return value


def normalize_color(value: str) -> str:
    text = value.strip().lower()
    text = NAMED.get(text, text)
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        return "#" + "".join(c * 2 for c in text[1:])
    match = re.fullmatch(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", text)
    if match:
        return "#" + "".join(f"{min(int(v), 255):02x}" for v in match.groups())
    return text


@checkpoint_type("svg_style")
def svg_style(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """The style properties named in ``expected`` in effect on one element (inherited ones from its
    ancestors); colours as ``#rrggbb``, numbers as numbers when expected so."""
    if not isinstance(cp.expected, dict) or not cp.expected:
        raise CheckpointUnreadable("svg_style expects a dict of properties")
    adapter = _adapter(ctx, cp)
    with adapter.as_saved() as root:
        el = _one(root, selector(cp.target))
        found = {prop: adapter.doc.computed(el, prop) for prop in cp.expected}
    return {prop: _style_value(prop, value, cp.expected[prop]) for prop, value in found.items()}


def _style_value(prop: str, value: str | None, expected: Any) -> Any:
    if value is None:
        return None
    if prop in COLOR_PROPS:
        return normalize_color(value)
    return as_expected(value, expected)


@checkpoint_type("svg_bbox", default_compare="approx")
def svg_bbox(ctx: EvalContext, cp: Checkpoint) -> list[float]:
    """The visual bounding box ``[x, y, width, height]`` (stroke included) of an element with an id."""
    adapter = _adapter(ctx, cp)
    with adapter.as_saved() as root:
        el = _one(root, selector(cp.target))
        if not el.get("id"):
            raise CheckpointUnreadable("svg_bbox needs an element with an id in the file")
        box = adapter.doc.bbox(el)
    if box is None:
        raise CheckpointUnreadable(f"{cp.target!r} has no visible extent")
    return geo.box_to_xywh(box)


@checkpoint_type("svg_text", default_compare="normalized")
def svg_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """The characters of one element (spans joined, whitespace collapsed)."""
    with _adapter(ctx, cp).as_saved() as root:
        return text_of(_one(root, selector(cp.target)))


@checkpoint_type("svg_layers")
def svg_layers(ctx: EvalContext, cp: Checkpoint) -> list[str | None]:
    """Labels of the layers, bottom to top (document order)."""
    return [layer.get(LABEL) for layer in _adapter(ctx, cp).doc.layers()]


@checkpoint_type("png_size")
def png_size(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """``[width, height]`` of the PNG at ``target`` (from its header)."""
    return png_file_size(ctx.workspace.resolve(require(cp.target, "PNG path")), repr(cp.target))
