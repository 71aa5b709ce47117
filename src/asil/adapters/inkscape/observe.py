"""How SVG items look to an agent: one compact Element each, and a one-paragraph summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from asil.adapters.inkscape import geometry as geo
from asil.adapters.inkscape.ops import GEOMETRY
from asil.adapters.inkscape.svgdoc import LABEL, SvgDocument, is_layer, local, text_of
from asil.protocol import Element

if TYPE_CHECKING:
    from lxml.etree import _Element

MAX_CHILDREN = 30
MAX_TEXT = 200
MAX_ATTR = 160
MAX_STYLE_VALUE = 80
# Whole-layer boxes would touch every element of a large drawing on each observation.
BOX_SKIPPED_FOR = ("layer",)


def kind_of(el: _Element) -> str:
    if is_layer(el):
        return "layer"
    return "group" if local(el) == "g" else local(el)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"…(+{len(text) - limit} chars)"


def element_of(doc: SvgDocument, el: _Element) -> Element:
    kind = kind_of(el)
    meta: dict[str, Any] = {}
    parent = el.getparent()
    if parent is not None and parent is not doc.root:
        meta["parent"] = parent.get("id")
    layer = doc.layer_of(el)
    if layer is not None and layer is not parent:
        meta["layer"] = layer.get("id")
    meta.update(_geometry(el))
    style = doc.own_style(el)
    if style:
        meta["style"] = {k: _clip(v, MAX_STYLE_VALUE) for k, v in style.items()}
    if el.get("transform"):
        meta["transform"] = _clip(str(el.get("transform")), MAX_ATTR)
    if doc.hidden(el):
        meta["hidden"] = True
    if kind not in BOX_SKIPPED_FOR:
        try:
            box = doc.bbox(el)
            if box is not None:
                meta["bbox"] = geo.box_to_xywh(box)
        except geo.GeometryError as exc:
            meta["geometry_error"] = str(exc)
    children = [str(c.get("id")) for c in doc.child_items(el)] if kind != "text" else []
    if len(children) > MAX_CHILDREN:
        meta["children_total"] = len(children)
        children = children[:MAX_CHILDREN]
    value = _clip(text_of(el), MAX_TEXT) if kind == "text" else None
    return Element(id=str(el.get("id")), type=kind, label=el.get(LABEL), value=value, data_type=f"svg:{local(el)}",
                   children=children, meta=meta)


def _geometry(el: _Element) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name in sorted(GEOMETRY.get(local(el), ())):
        raw = el.get(name)
        if raw is None:
            continue
        if name in ("d", "points"):
            found[name] = _clip(raw, MAX_ATTR)
            continue
        try:
            found[name] = float(geo.num(geo.length(raw)))
        except geo.GeometryError:
            found[name] = _clip(raw, MAX_ATTR)
    for key, value in found.items():
        if isinstance(value, float) and value.is_integer():
            found[key] = int(value)
    return found


def describe(doc: SvgDocument, view: str, offset: int, shown: int, total: int, layers: list[_Element]) -> str:
    x, y, w, h = doc.page()
    names = ", ".join(f"{layer.get('id')} '{layer.get(LABEL) or ''}'" for layer in layers) or "none"
    where = "the whole document" if view == "document" else f"layer {view}"
    text = (f"SVG page {geo.num(w)}x{geo.num(h)} at ({geo.num(x)},{geo.num(y)}); layers (bottom to top): {names}. "
            f"Showing {shown} of {total} elements in {where}" + (f" from #{offset}" if offset else "") + ".")
    if offset + shown < total:
        text += f" {total - offset - shown} more: navigate with params.offset={offset + shown}."
    return text
