"""From checked GIMP actions to Script-Fu calls: a registry of operations, one per function.

An operation checks the action against the current canvas (raising InvalidAction before
anything reaches GIMP) and returns the Scheme text to run. Every number in that text comes
from a validated pydantic field and every string goes through ``scheme_string``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from asil.adapters.gimp import actions as act
from asil.apps.gimp import scheme_string
from asil.protocol import InvalidAction
from asil.registry import Registry

Pixels = Literal["none", "layer", "all"]  # whose cached pixel statistics an operation makes stale


@dataclass
class Canvas:
    """What operations need to know about the open image.

    Layers are listed in stack order with each group followed by its children; GIMP keeps layer
    names unique across the whole image (groups included), so a name is an unambiguous id.
    """

    image: int
    width: int
    height: int
    names: list[str]  # top first, a group's children right after it
    ids: list[int]
    parents: list[int] = field(default_factory=list)  # each layer's group id, 0 at the top level
    groups: set[int] = field(default_factory=set)  # ids of the layer groups

    @classmethod
    def from_state(cls, image: int, state: dict[str, Any]) -> Canvas:
        return cls(image, state["width"], state["height"], state["names"], state["ids"], state["parents"],
                   set(state["groups"]))

    def layer(self, name: str) -> int:
        if name not in self.names:
            shown = ", ".join(repr(n) for n in self.names[:10]) + (" ..." if len(self.names) > 10 else "")
            raise InvalidAction(f"There is no layer {name!r}.", hint=f"Layers: {shown}.", code="unknown_layer")
        return self.ids[self.names.index(name)]

    def painted(self, name: str) -> int:
        """A layer with its own pixels (not a group)."""
        layer = self.layer(name)
        if layer in self.groups:
            raise InvalidAction(f"{name!r} is a layer group; its pixels come from the layers inside it.",
                                hint="Name one of its child layers instead.", code="group_layer")
        return layer

    def group(self, name: str | None) -> int:
        """The id of the group called ``name``, or 0 (the top level) when no name is given."""
        if name is None:
            return 0
        layer = self.layer(name)
        if layer not in self.groups:
            groups = ", ".join(repr(self.names[self.ids.index(g)]) for g in sorted(self.groups)[:10]) or "none"
            raise InvalidAction(f"{name!r} is not a layer group.", hint=f"Layer groups: {groups}.")
        return layer

    def parent(self, layer: int) -> int:
        return self.parents[self.ids.index(layer)]

    def descendants(self, group: int) -> list[str]:
        """The names of every layer inside ``group``, however deep."""
        inside = {group}
        for layer, parent in zip(self.ids, self.parents, strict=True):
            if parent in inside:
                inside.add(layer)
        return [self.names[self.ids.index(layer)] for layer in self.ids if layer in inside - {group}]

    def free_name(self, name: str) -> None:
        if name in self.names:
            raise InvalidAction(f"A layer named {name!r} already exists (names are unique across all groups).",
                                hint="Choose a name no layer has.")

    def position(self, position: int, adding: bool, parent: int = 0) -> int:
        """``position`` checked against the stack of ``parent`` (a group id, or 0 for the top level)."""
        count = self.parents.count(parent)
        last = count if adding else count - 1
        where = "the stack" if parent == 0 else f"the group {self.names[self.ids.index(parent)]!r}"
        if position > last:
            raise InvalidAction(f"Position {position} is past the bottom of {where}.",
                                hint=f"Positions run from 0 (top) to {last}.")
        return position


@dataclass
class Operation:
    scheme: str
    changed: list[str]
    pixels: Pixels = "none"
    layer_id: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[Any, Canvas], Operation]
OPERATIONS: Registry[Builder] = Registry("GIMP function")
operation = OPERATIONS.register

INTERPOLATION = {"none": 0, "linear": 1, "cubic": 2, "nohalo": 3, "lohalo": 4}
ROTATION = {90: 0, 180: 1, 270: 2}
ORIENTATION = {"horizontal": 0, "vertical": 1}
HISTOGRAM_CHANNEL = {"value": 0, "red": 1, "green": 2, "blue": 3, "alpha": 4}
DESATURATE = {"lightness": 0, "luma": 1, "average": 2, "luminance": 3, "value": 4}
CHANNEL_OP = {"add": 0, "subtract": 1, "replace": 2, "intersect": 3}


def num(value: float) -> str:
    """A validated finite number as a Scheme literal."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def rgb(color: list[int]) -> str:
    return "(list " + " ".join(str(int(c)) for c in color) + ")"


def _layer_op(params: Any, canvas: Canvas, call: str) -> Operation:
    layer = canvas.painted(params.layer)
    return Operation(call.format(L=layer, img=canvas.image), [params.layer], "layer", layer)


@operation("scale_image")
def scale_image(p: act.ScaleImage, c: Canvas) -> Operation:
    return Operation(f"(begin (gimp-context-set-interpolation {INTERPOLATION[p.interpolation]}) "
                     f"(gimp-image-scale {c.image} {p.width} {p.height}))", ["@image"], "all")


@operation("crop_image")
def crop_image(p: act.CropImage, c: Canvas) -> Operation:
    if p.x + p.width > c.width or p.y + p.height > c.height:
        raise InvalidAction(f"The crop rectangle {p.x},{p.y} {p.width}x{p.height} reaches outside the "
                            f"{c.width}x{c.height} image.", hint="Keep x + width and y + height within the image.")
    return Operation(f"(gimp-image-crop {c.image} {p.width} {p.height} {p.x} {p.y})", ["@image"], "all")


@operation("rotate_image")
def rotate_image(p: act.RotateImage, c: Canvas) -> Operation:
    return Operation(f"(gimp-image-rotate {c.image} {ROTATION[p.angle]})", ["@image"], "all")


@operation("rotate_layer")
def rotate_layer(p: act.RotateLayer, c: Canvas) -> Operation:
    radians = num(p.angle * math.pi / 180)
    layer = c.layer(p.layer)  # a group rotates with everything in it
    changed = [p.layer, *c.descendants(layer)] if layer in c.groups else [p.layer]
    return Operation(f"(begin (gimp-context-set-interpolation 2) (gimp-item-transform-rotate {layer} {radians} TRUE 0 0))",
                     changed, "all" if layer in c.groups else "layer", layer)


@operation("flip_image")
def flip_image(p: act.FlipImage, c: Canvas) -> Operation:
    return Operation(f"(gimp-image-flip {c.image} {ORIENTATION[p.direction]})", ["@image"], "all")


@operation("resize_canvas")
def resize_canvas(p: act.ResizeCanvas, c: Canvas) -> Operation:
    grow = f" (asil-layers-to-image {c.image})" if p.resize_layers else ""
    return Operation(f"(begin (gimp-image-resize {c.image} {p.width} {p.height} {p.offset_x} {p.offset_y}){grow})",
                     ["@image"], "all")


@operation("brightness_contrast")
def brightness_contrast(p: act.BrightnessContrast, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-brightness-contrast {{L}} {num(p.brightness)} {num(p.contrast)})")


@operation("hue_saturation")
def hue_saturation(p: act.HueSaturation, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-hue-saturation {{L}} 0 {num(p.hue)} {num(p.lightness)} "
                           f"{num(p.saturation)} 0)")


@operation("levels")
def levels(p: act.Levels, c: Canvas) -> Operation:
    span = " ".join(num(v / 255) for v in (p.low_input, p.high_input))
    out = " ".join(num(v / 255) for v in (p.low_output, p.high_output))
    return _layer_op(p, c, f"(gimp-drawable-levels {{L}} {HISTOGRAM_CHANNEL[p.channel]} {span} TRUE "
                           f"{num(p.gamma)} {out} TRUE)")


@operation("desaturate")
def desaturate(p: act.Desaturate, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-desaturate {{L}} {DESATURATE[p.mode]})")


@operation("invert")
def invert(p: act.LayerOnly, c: Canvas) -> Operation:
    return _layer_op(p, c, "(gimp-drawable-invert {L} FALSE)")


@operation("blur")
def blur(p: act.Blur, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-blur {{img}} {{L}} {num(p.radius)})")


@operation("sharpen")
def sharpen(p: act.Sharpen, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-sharpen {{img}} {{L}} {num(p.radius)} {num(p.amount)})")


@operation("fill")
def fill(p: act.Fill, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-fill {{img}} {{L}} {rgb(p.color)})")


@operation("add_layer")
def add_layer(p: act.AddLayer, c: Canvas) -> Operation:
    c.free_name(p.name)
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-add-layer {c.image} {scheme_string(p.name)} {p.width or c.width} "
                     f"{p.height or c.height} {p.offset_x} {p.offset_y} {num(p.opacity)} {scheme_string(p.fill)} "
                     f"{rgb(p.color or [0, 0, 0])} {parent} {position})", [p.name])


@operation("add_text_layer")
def add_text_layer(p: act.AddTextLayer, c: Canvas) -> Operation:
    if p.name is not None:
        c.free_name(p.name)
    try:
        text = scheme_string(p.text)
    except ValueError:
        raise InvalidAction("The text contains control characters.",
                            hint="Use printable text; newlines and tabs are allowed.") from None
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-text-layer {c.image} {text} {p.x} {p.y} {num(p.size)} {scheme_string(p.font)} "
                     f"{rgb(p.color)} {scheme_string(p.name or '')} {parent} {position})", [p.name or "@image"])


@operation("add_group")
def add_group(p: act.AddGroup, c: Canvas) -> Operation:
    c.free_name(p.name)
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-add-group {c.image} {scheme_string(p.name)} {parent} {position})", [p.name])


@operation("rename_layer")
def rename_layer(p: act.RenameLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    if p.name != p.layer:
        c.free_name(p.name)
    return Operation(f"(gimp-item-set-name {layer} {scheme_string(p.name)})", [p.layer, p.name])


@operation("delete_layer")
def delete_layer(p: act.LayerOnly, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    if c.parent(layer) == 0 and c.parents.count(0) == 1:
        raise InvalidAction(f"{p.layer!r} is the only top-level layer; an image needs at least one.",
                            hint="Add another layer first, or clear this one with fill.")
    return Operation(f"(gimp-image-remove-layer {c.image} {layer})", [p.layer, *c.descendants(layer)])


@operation("move_layer")
def move_layer(p: act.MoveLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    parent = c.parent(layer) if p.group is None else 0 if p.group == "@image" else c.group(p.group)
    inside = c.descendants(layer) if layer in c.groups else []
    if parent == layer or (parent and c.names[c.ids.index(parent)] in inside):
        raise InvalidAction(f"The group {p.layer!r} cannot be moved into itself.",
                            hint="Name a group outside it, or '@image' for the top level.")
    position = c.position(p.position, adding=parent != c.parent(layer), parent=parent)
    return Operation(f"(gimp-image-reorder-item {c.image} {layer} {parent} {position})", [p.layer, *inside])


@operation("set_layer")
def set_layer(p: act.SetLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    calls = []  # offsets of a group move the layers inside it
    if p.opacity is not None:
        calls.append(f"(gimp-layer-set-opacity {layer} {num(p.opacity)})")
    if p.visible is not None:
        calls.append(f"(gimp-item-set-visible {layer} {1 if p.visible else 0})")
    if p.offset_x is not None or p.offset_y is not None:
        x, y = ("#f" if v is None else str(v) for v in (p.offset_x, p.offset_y))
        calls.append(f"(asil-set-offsets {layer} {x} {y})")
    moved = p.offset_x is not None or p.offset_y is not None
    inside = c.descendants(layer) if moved and layer in c.groups else []
    return Operation(f"(begin {' '.join(calls)})", [p.layer, *inside])


def _select(p: act.SelectShape, c: Canvas, procedure: str) -> Operation:
    if p.x >= c.width or p.y >= c.height or p.x + p.width <= 0 or p.y + p.height <= 0:
        raise InvalidAction(f"The rectangle {p.x},{p.y} {p.width}x{p.height} lies outside the "
                            f"{c.width}x{c.height} canvas.", hint="Give a rectangle that overlaps the canvas.")
    return Operation(f"({procedure} {c.image} {CHANNEL_OP[p.operation]} {p.x} {p.y} {p.width} {p.height})",
                     ["@selection"])


@operation("select_rectangle")
def select_rectangle(p: act.SelectShape, c: Canvas) -> Operation:
    return _select(p, c, "gimp-image-select-rectangle")


@operation("select_ellipse")
def select_ellipse(p: act.SelectShape, c: Canvas) -> Operation:
    return _select(p, c, "gimp-image-select-ellipse")


@operation("select_all")
def select_all(p: act.NoParams, c: Canvas) -> Operation:
    return Operation(f"(gimp-selection-all {c.image})", ["@selection"])


@operation("select_none")
def select_none(p: act.NoParams, c: Canvas) -> Operation:
    return Operation(f"(gimp-selection-none {c.image})", ["@selection"])
