"""The semantic edits of an SVG document. Each ``plan_*`` checks everything first and returns a
``Commit`` that mutates; so a checked action never half-applies, and ``_check`` can plan without
committing. Each planner is declared with its function in :data:`FUNCTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from asil.adapters.functions import FunctionTable
from asil.adapters.inkscape import actions as act
from asil.adapters.inkscape import geometry as geo
from asil.adapters.inkscape.svgdoc import (
    GROUPMODE,
    INHERITED,
    ITEM_TAGS,
    LABEL,
    SvgDocument,
    format_style,
    is_layer,
    is_svg,
    local,
    parse_style,
    q,
)
from asil.adapters.params import NoParams
from asil.protocol import InvalidAction
from asil.workspace import Workspace

if TYPE_CHECKING:
    from lxml.etree import _Element

Commit = Callable[[], list[str]]  # makes a checked change; returns the ids it changed
Planner = Callable[["Editor", Any], Commit]  # (editor, parsed params) -> Commit
FUNCTIONS: FunctionTable[Planner] = FunctionTable("inkscape")
FILE = "file"  # what export_png and save act on: the adapter writes nothing back after them
GEOMETRY = {
    "rect": {"x", "y", "width", "height", "rx", "ry"}, "image": {"x", "y", "width", "height"},
    "circle": {"cx", "cy", "r"}, "ellipse": {"cx", "cy", "rx", "ry"}, "line": {"x1", "y1", "x2", "y2"},
    "text": {"x", "y"}, "path": {"d"}, "polyline": {"points"}, "polygon": {"points"}, "use": {"x", "y"},
}
TEXT_ATTRS = {"d", "points", "transform", "label"}
NON_NEGATIVE = {"width", "height", "r", "rx", "ry"}
POSITION = {"rect": ("x", "y"), "image": ("x", "y"), "circle": ("cx", "cy"), "ellipse": ("cx", "cy"),
            "text": ("x", "y")}


class DocumentFile(Protocol):
    """What export_png and save need from the adapter: its workspace, the exporter and the writer."""

    workspace: Workspace

    def export_png(self, p: act.ExportPng) -> None: ...

    def save(self) -> None: ...


class Editor:
    """Plans edits against one document; ``current_layer`` is where new shapes go by default."""

    def __init__(self, doc: SvgDocument, current_layer: Callable[[], str | None], file: DocumentFile):
        self.doc = doc
        self.current_layer = current_layer
        self.file = file

    # ------------------------------------------------------------ lookups
    def element(self, element_id: str, what: str = "element") -> _Element:
        el = self.doc.get(element_id)
        if el is None or el is self.doc.root or not is_svg(el) or local(el) not in ITEM_TAGS:
            raise InvalidAction(f"There is no {what} with id {element_id!r}.",
                                hint="Use an id from the observation's elements (navigate to page through them).",
                                code="no_element")
        return el

    def layer(self, layer_id: str) -> _Element:
        el = self.element(layer_id, "layer")
        if not is_layer(el):
            names = ", ".join(f"{x.get('id')} ({x.get(LABEL)})" for x in self.doc.layers()) or "none"
            raise InvalidAction(f"{layer_id!r} is not a layer.", hint=f"Layers: {names}.", code="not_a_layer")
        return el

    def elements(self, ids: list[str]) -> list[_Element]:
        found = [self.element(i) for i in dict.fromkeys(ids)]
        chosen = set(found)
        # an element inside another listed element moves with it; acting on both would apply twice
        return [el for el in found if not any(a in chosen for a in el.iterancestors())]

    def container(self, parent: str | None) -> _Element:
        if parent is not None:
            el = self.element(parent, "layer or group")
            if local(el) != "g":
                raise InvalidAction(f"{parent!r} is a {local(el)}, not a layer or group.",
                                    hint="Give a layer or group id as parent.", code="not_a_container")
            return el
        current = self.current_layer()
        layers = self.doc.layers()
        chosen = self.doc.get(current) if current else None
        return chosen if chosen is not None else (layers[-1] if layers else self.doc.root)

    def free_id(self, requested: str | None, kind: str) -> str:
        if requested is None:
            return self.doc.fresh_id(kind)
        if self.doc.get(requested) is not None:
            raise InvalidAction(f"The id {requested!r} is already used.", hint="Pick another id or omit it.",
                                code="id_taken")
        return requested

    # ------------------------------------------------------------ drawing
    def _new(self, tag: str, attrs: dict[str, str], p: act._NewShape, text: str | None = None) -> Commit:
        parent = self.container(p.parent)
        new_id = self.free_id(p.id, tag)
        style = {k: v for k, v in (p.style or {}).items() if v is not None}

        def commit() -> list[str]:
            from lxml import etree

            el = etree.SubElement(parent, q("svg", tag))
            el.set("id", new_id)
            for key, value in attrs.items():
                el.set(key, value)
            if style:
                el.set("style", format_style(style))
            if p.label:
                el.set(LABEL, p.label)
            if text is not None:
                el.text = text
            self.doc.touched()
            return [new_id, str(parent.get("id") or "")]

        return commit

    @FUNCTIONS.function("add_rect", act.AddRect, "Draw a rectangle.", acts_on="elements")
    def plan_add_rect(self, p: act.AddRect) -> Commit:
        attrs = {"x": geo.num(p.x), "y": geo.num(p.y), "width": geo.num(p.width), "height": geo.num(p.height)}
        if p.rx is not None:
            attrs["rx"] = geo.num(p.rx)
        return self._new("rect", attrs, p)

    @FUNCTIONS.function("add_circle", act.AddCircle, "Draw a circle.", acts_on="elements")
    def plan_add_circle(self, p: act.AddCircle) -> Commit:
        return self._new("circle", {"cx": geo.num(p.cx), "cy": geo.num(p.cy), "r": geo.num(p.r)}, p)

    @FUNCTIONS.function("add_ellipse", act.AddEllipse, "Draw an ellipse.", acts_on="elements")
    def plan_add_ellipse(self, p: act.AddEllipse) -> Commit:
        return self._new("ellipse", {"cx": geo.num(p.cx), "cy": geo.num(p.cy), "rx": geo.num(p.rx),
                                     "ry": geo.num(p.ry)}, p)

    @FUNCTIONS.function("add_line", act.AddLine, "Draw a straight line (give it a stroke to see it).", acts_on="elements")
    def plan_add_line(self, p: act.AddLine) -> Commit:
        return self._new("line", {k: geo.num(getattr(p, k)) for k in ("x1", "y1", "x2", "y2")}, p)

    @FUNCTIONS.function("add_path", act.AddPath, "Draw a path from SVG path data.", acts_on="elements")
    def plan_add_path(self, p: act.AddPath) -> Commit:
        _check_path(p.d)
        return self._new("path", {"d": p.d}, p)

    @FUNCTIONS.function("add_text", act.AddText, "Write a text element.", acts_on="elements")
    def plan_add_text(self, p: act.AddText) -> Commit:
        if p.font_size is not None:
            p = p.model_copy(update={"style": {"font-size": f"{geo.num(p.font_size)}px", **(p.style or {})}})
        return self._new("text", {"x": geo.num(p.x), "y": geo.num(p.y)}, p, text=p.text)

    # ------------------------------------------------------------ editing
    @FUNCTIONS.function("edit_element", act.EditElement, "Set geometry, path data, transform or label of an element.",
                        acts_on="elements")
    def plan_edit_element(self, p: act.EditElement) -> Commit:
        el = self.element(p.id)
        kind = local(el)
        allowed = GEOMETRY.get(kind, set()) | {"transform", "label"}
        values: dict[str, str | None] = {}
        for name, value in p.attributes.items():
            if name not in allowed:
                raise InvalidAction(f"A {kind} has no editable attribute {name!r}.",
                                    hint=f"Editable on a {kind}: {', '.join(sorted(allowed))}.", code="bad_attribute")
            values[name] = _attribute_value(name, value)

        def commit() -> list[str]:
            for name, text in values.items():
                key = LABEL if name == "label" else name
                if text is None:
                    _drop(el, key)
                else:
                    el.set(key, text)
            return [p.id]

        return commit

    @FUNCTIONS.function("set_text", act.SetText, "Replace the characters of a text element (its spans are merged).",
                        acts_on="elements")
    def plan_set_text(self, p: act.SetText) -> Commit:
        el = self.element(p.id)
        if local(el) != "text":
            raise InvalidAction(f"{p.id!r} is a {local(el)}, not a text element.", hint="set_text edits text elements.",
                                code="not_text")
        return lambda: _replace_text(el, p.text, p.id)

    @FUNCTIONS.function("delete_elements", act.ElementIds, "Delete elements and everything inside them.", destructive=True,
                        acts_on="elements")
    def plan_delete_elements(self, p: act.ElementIds) -> Commit:
        chosen = self.elements(p.ids)

        def commit() -> list[str]:
            for el in chosen:
                el.getparent().remove(el)  # type: ignore[union-attr]
            self.doc.touched()
            return list(dict.fromkeys(p.ids))

        return commit

    @FUNCTIONS.function("group", act.Group, "Put elements that share a parent into a new group, keeping their order.",
                        acts_on="elements")
    def plan_group(self, p: act.Group) -> Commit:
        chosen = self.elements(p.ids)
        parents = {el.getparent() for el in chosen}
        if len(parents) != 1:
            raise InvalidAction("Elements to group must share one parent layer or group.",
                                hint="Move them into the same layer first (move_to_layer).", code="mixed_parents")
        if any(is_layer(el) for el in chosen):
            raise InvalidAction("Layers cannot be grouped.", hint="Group the elements inside a layer instead.")
        parent = parents.pop()
        assert parent is not None
        new_id = self.free_id(p.id, "g")

        def commit() -> list[str]:
            from lxml import etree

            ordered = sorted(chosen, key=parent.index)
            group = etree.Element(q("svg", "g"))
            group.set("id", new_id)
            if p.label:
                group.set(LABEL, p.label)
            parent.insert(parent.index(ordered[0]), group)
            for el in ordered:
                group.append(el)
            self.doc.touched()
            return [new_id, *(str(el.get("id")) for el in ordered)]

        return commit

    @FUNCTIONS.function("ungroup", act.OneElement, "Dissolve a group; its transform and style pass to the children.",
                        acts_on="elements")
    def plan_ungroup(self, p: act.OneElement) -> Commit:
        group = self.element(p.id)
        if local(group) != "g" or is_layer(group):
            raise InvalidAction(f"{p.id!r} is not a group.", hint="ungroup dissolves a group (not a layer).",
                                code="not_a_group")
        return lambda: _dissolve(self.doc, group)

    @FUNCTIONS.function("move", act.Move, "Shift elements by dx, dy in document units.", acts_on="elements")
    def plan_move(self, p: act.Move) -> Commit:
        chosen = self.elements(p.ids)
        shifts = [(el, _local_delta(self.doc, el, p.dx, p.dy)) for el in chosen]

        def commit() -> list[str]:
            for el, (dx, dy) in shifts:
                _shift(el, dx, dy)
            return [str(el.get("id")) for el in chosen]

        return commit

    @FUNCTIONS.function("restyle", act.Restyle, "Set or remove CSS style properties (fill, stroke, stroke-width, opacity, ...).",
                        acts_on="elements")
    def plan_restyle(self, p: act.Restyle) -> Commit:
        chosen = [self.element(i) for i in dict.fromkeys(p.ids)]

        def commit() -> list[str]:
            for el in chosen:
                _merge_style(el, p.style)
            return [str(el.get("id")) for el in chosen]

        return commit

    @FUNCTIONS.function("set_visibility", act.SetVisibility, "Hide (display:none) or show elements.", acts_on="elements")
    def plan_set_visibility(self, p: act.SetVisibility) -> Commit:
        change: dict[str, str | None] = {"display": None if p.visible else "none"}
        if p.visible:
            change["visibility"] = None
        return self.plan_restyle(act.Restyle(ids=p.ids, style=change))

    @FUNCTIONS.function("reorder", act.Reorder, "Change stacking order: to front/back of the parent, or raise/lower one step.",
                        acts_on="elements")
    def plan_reorder(self, p: act.Reorder) -> Commit:
        el = self.element(p.id)
        parent = el.getparent()
        assert parent is not None
        siblings = [c for c in parent if is_svg(c) and local(c) in ITEM_TAGS]
        k = siblings.index(el)
        target = {"front": len(siblings) - 1, "back": 0, "raise": min(k + 1, len(siblings) - 1),
                  "lower": max(k - 1, 0)}[p.to]

        def commit() -> list[str]:
            if target != k:
                anchor = siblings[target]
                if target > k:
                    anchor.addnext(el)
                else:
                    anchor.addprevious(el)
            return [p.id]

        return commit

    # ------------------------------------------------------------ layers
    @FUNCTIONS.function("add_layer", act.AddLayer, "Add an empty layer at the top or bottom.", acts_on="layers")
    def plan_add_layer(self, p: act.AddLayer) -> Commit:
        new_id = self.free_id(p.id, "layer")

        def commit() -> list[str]:
            from lxml import etree

            layer = etree.Element(q("svg", "g"))
            layer.set("id", new_id)
            layer.set(GROUPMODE, "layer")
            layer.set(LABEL, p.label)
            items = [c for c in self.doc.root if is_svg(c) and local(c) in ITEM_TAGS]
            if p.position == "bottom" and items:
                items[0].addprevious(layer)
            else:
                self.doc.root.append(layer)
            self.doc.touched()
            return [new_id]

        return commit

    @FUNCTIONS.function("rename_layer", act.RenameLayer, "Change a layer's label.", acts_on="layers")
    def plan_rename_layer(self, p: act.RenameLayer) -> Commit:
        layer = self.layer(p.layer)

        def commit() -> list[str]:
            layer.set(LABEL, p.label)
            return [p.layer]

        return commit

    @FUNCTIONS.function("delete_layer", act.DeleteLayer, "Delete a layer and everything on it.", destructive=True,
                        acts_on="layers")
    def plan_delete_layer(self, p: act.DeleteLayer) -> Commit:
        return self.plan_delete_elements(act.ElementIds(ids=[self.layer(p.layer).get("id") or p.layer]))

    @FUNCTIONS.function("move_to_layer", act.MoveToLayer,
                        "Move elements into a layer (on top of it), keeping where they appear.", acts_on="elements")
    def plan_move_to_layer(self, p: act.MoveToLayer) -> Commit:
        layer = self.layer(p.layer)
        chosen = self.elements(p.ids)
        for el in chosen:
            if el is layer or el in layer.iterancestors():
                raise InvalidAction(f"{el.get('id')!r} cannot move into itself.", hint="Choose another layer.")
        target_inverse = self.doc.ctm(layer).inverse()
        moves = [(el, target_inverse @ self.doc.ctm(el)) for el in chosen]

        def commit() -> list[str]:
            for el, matrix in moves:
                layer.append(el)
                _set_transform(el, matrix)
            self.doc.touched()
            return [p.layer, *(str(el.get("id")) for el in chosen)]

        return commit

    # ------------------------------------------------------------ align
    @FUNCTIONS.function("align", act.Align, "Align elements' visual bounding boxes on an edge or centre line.",
                        acts_on="elements")
    def plan_align(self, p: act.Align) -> Commit:
        chosen = self.elements(p.ids)
        boxes = {}
        for el in chosen:
            box = self.doc.bbox(el)
            if box is None:
                raise InvalidAction(f"{el.get('id')!r} has no visible extent to align.",
                                    hint="Align visible shapes, texts or groups.", code="empty_box")
            boxes[el] = box
        anchor, reference = self._reference(p.relative_to, chosen, boxes)
        shifts = []
        for el in chosen:
            if el is anchor:
                continue
            dx, dy = _edge_shift(p.edge, boxes[el], reference)
            shifts.append((el, _local_delta(self.doc, el, dx, dy)))

        def commit() -> list[str]:
            for el, (dx, dy) in shifts:
                _shift(el, dx, dy)
            return [str(el.get("id")) for el, _ in shifts]

        return commit

    def _reference(self, mode: str, chosen: list[_Element], boxes: dict[_Element, geo.Box]
                   ) -> tuple[_Element | None, geo.Box]:
        if mode == "page":
            x, y, w, h = self.doc.page()
            return None, (x, y, x + w, y + h)
        if mode == "selection":
            box = geo.union(boxes.values())
            assert box is not None
            return None, box
        pick = {"first": chosen[0], "last": chosen[-1],
                "biggest": max(chosen, key=lambda e: (boxes[e][2] - boxes[e][0]) * (boxes[e][3] - boxes[e][1]))}[mode]
        return pick, boxes[pick]


# ---------------------------------------------------------------- helpers


    # ------------------------------------------------------------ the file (not edits: a batch holds neither)
    @FUNCTIONS.function("export_png", act.ExportPng, "Export the page, the drawing or one element to PNG with Inkscape.",
                        batch=False, acts_on=FILE)
    def plan_export_png(self, p: act.ExportPng) -> Commit:
        self.file.workspace.resolve(p.path)
        if p.id is not None:
            self.element(p.id)

        def commit() -> list[str]:
            self.file.export_png(p)
            return []

        return commit

    @FUNCTIONS.function("save", NoParams, "Write the document now (every change is already written back).",
                        batch=False, acts_on=FILE)
    def plan_save(self, p: NoParams) -> Commit:
        def commit() -> list[str]:
            self.file.save()
            return []

        return commit

def _check_path(d: str) -> None:
    try:
        if not geo.path_segments(d):
            raise geo.GeometryError("it has no segments")
    except geo.GeometryError as exc:
        raise InvalidAction(f"The path data {d[:60]!r} cannot be read: {exc}.",
                            hint="Use SVG path commands, e.g. 'M 10 10 L 90 10 L 50 80 Z'.", code="bad_path") from None


def _attribute_value(name: str, value: float | str | None) -> str | None:
    if value is None:
        return None
    if name in TEXT_ATTRS:
        if not isinstance(value, str):
            raise InvalidAction(f"{name} must be text.", hint=f"e.g. {name}: 'translate(10,0)'", code="bad_params")
        if name == "transform":
            try:
                geo.parse_transform(value)
            except geo.GeometryError as exc:
                raise InvalidAction(f"The transform {value!r} cannot be read: {exc}.",
                                    hint="e.g. 'translate(10,5) rotate(45)'.", code="bad_params") from None
        if name == "d":
            _check_path(value)
        if name == "points":
            try:
                geo.polyline_points(value)
            except geo.GeometryError as exc:
                raise InvalidAction(f"The points {value!r} cannot be read: {exc}.", hint="e.g. '0,0 10,0 5,8'.",
                                    code="bad_params") from None
        return value
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidAction(f"{name} must be a number, not {value!r}.", hint=f"e.g. {name}: 120", code="bad_params")
    if name in NON_NEGATIVE and value < 0:
        raise InvalidAction(f"{name} cannot be negative ({value}).", hint="Use 0 or a positive number.",
                            code="bad_params")
    return geo.num(float(value))


def _drop(el: _Element, key: str) -> None:
    if key in el.attrib:
        del el.attrib[key]


def _replace_text(el: _Element, text: str, element_id: str) -> list[str]:
    for child in list(el):
        if local(child) in ("tspan", "textPath") or not is_svg(child):
            el.remove(child)
    el.text = text
    return [element_id]


def _merge_style(el: _Element, change: dict[str, str | None]) -> None:
    style = parse_style(el.get("style"))
    for name, value in change.items():
        _drop(el, name)  # a presentation attribute would be shadowed or resurface
        if value is None:
            style.pop(name, None)
        else:
            style[name] = value
    if style:
        el.set("style", format_style(style))
    else:
        _drop(el, "style")


def _set_transform(el: _Element, matrix: geo.Matrix) -> None:
    if matrix.is_identity:
        _drop(el, "transform")
    else:
        el.set("transform", geo.format_matrix(matrix))


def _local_delta(doc: SvgDocument, el: _Element, dx: float, dy: float) -> tuple[float, float]:
    """A document-space shift expressed in the element's parent coordinates."""
    parent = el.getparent()
    inverse = (doc.ctm(parent) if parent is not None else geo.IDENTITY).inverse()
    return dx * inverse.a + dy * inverse.c, dx * inverse.b + dy * inverse.d


def _shift(el: _Element, dx: float, dy: float) -> None:
    """Move by editing coordinates when the element is plain, otherwise by its transform."""
    kind = local(el)
    plain = not el.get("transform") and not (kind == "text" and any(c.get("x") or c.get("y") for c in el.iter()
                                                                      if c is not el))
    try:
        if plain and kind in POSITION:
            for name, delta in zip(POSITION[kind], (dx, dy), strict=True):
                el.set(name, geo.num(geo.length(el.get(name), 0) + delta))
            return
        if plain and kind == "line":
            for name, delta in (("x1", dx), ("x2", dx), ("y1", dy), ("y2", dy)):
                el.set(name, geo.num(geo.length(el.get(name), 0) + delta))
            return
    except geo.GeometryError:
        pass  # a length with a unit we do not rewrite: fall back to the transform
    own = el.get("transform")
    if own and own.lstrip().startswith("translate("):  # fold into the existing translation
        _set_transform(el, geo.translate(dx, dy) @ geo.parse_transform(own))
    elif own:
        el.set("transform", f"translate({geo.num(dx, 8)},{geo.num(dy, 8)}) {own.strip()}")
    else:
        _set_transform(el, geo.translate(dx, dy))


def _edge_shift(edge: str, box: geo.Box, ref: geo.Box) -> tuple[float, float]:
    return {
        "left": (ref[0] - box[0], 0.0), "right": (ref[2] - box[2], 0.0),
        "top": (0.0, ref[1] - box[1]), "bottom": (0.0, ref[3] - box[3]),
        "center_x": ((ref[0] + ref[2] - box[0] - box[2]) / 2, 0.0),
        "center_y": (0.0, (ref[1] + ref[3] - box[1] - box[3]) / 2),
    }[edge]


def _dissolve(doc: SvgDocument, group: _Element) -> list[str]:
    parent = group.getparent()
    assert parent is not None
    own = geo.parse_transform(group.get("transform"))
    group_style = doc.own_style(group)
    position = parent.index(group)
    moved: list[str] = []
    for child in list(group):
        if is_svg(child) and local(child) in ITEM_TAGS:
            _set_transform(child, own @ geo.parse_transform(child.get("transform")))
            _inherit_style(child, group_style, doc)
            moved.append(str(child.get("id")))
        parent.insert(position, child)
        position += 1
    parent.remove(group)
    doc.touched()
    return [str(group.get("id")), *moved]


def _inherit_style(child: _Element, group_style: dict[str, str], doc: SvgDocument) -> None:
    """Pass the dissolved group's look on: inherited properties, display, and multiplied opacity."""
    own = doc.own_style(child)
    change: dict[str, str | None] = {k: v for k, v in group_style.items() if k in INHERITED and k not in own}
    if group_style.get("display") == "none":
        change["display"] = "none"
    if "opacity" in group_style:
        try:
            change["opacity"] = geo.num(float(group_style["opacity"]) * float(own.get("opacity", "1")))
        except ValueError:
            pass
    if change:
        _merge_style(child, change)
