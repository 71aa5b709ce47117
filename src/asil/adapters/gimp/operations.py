"""The GIMP functions and how each checked call becomes Script-Fu (a builder per image edit).

An operation checks the action against the current canvas (raising InvalidAction before
anything reaches GIMP) and returns the Scheme text to run. Every number in that text comes
from a validated pydantic field and every string goes through ``scheme_string``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.gimp import actions as act
from asil.adapters.gimp.xcf import LAYER_MODES
from asil.adapters.params import NoParams
from asil.apps.gimp import scheme_string
from asil.protocol import InvalidAction

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
    folder: Path | None = None  # the workspace, where place_image finds its (already checked) files

    @classmethod
    def from_state(cls, image: int, state: dict[str, Any], folder: Path | None = None) -> Canvas:
        return cls(image, state["width"], state["height"], state["names"], state["ids"], state["parents"],
                   set(state["groups"]), folder)

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
        if name in RESERVED_IDS:  # a layer so named would share its element id with the image or the selection
            raise InvalidAction(f"The name {name!r} is the id of the {name[1:]} itself, not a free layer name.",
                                hint="Choose a name that does not start with '@'.")
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
# Every GIMP function, in the order of the published schema. An edit's handler builds its Script-Fu
# call; the two that write files (export_image, save) have none: the adapter writes them itself.
FUNCTIONS = FunctionTable[Builder]("GIMP")
RESERVED_IDS = ("@image", "@selection")  # the element ids of the image and the selection
function = FUNCTIONS.function

INTERPOLATION = {"none": 0, "linear": 1, "cubic": 2, "nohalo": 3, "lohalo": 4}
ROTATION = {90: 0, 180: 1, 270: 2}
ORIENTATION = {"horizontal": 0, "vertical": 1}
HISTOGRAM_CHANNEL = {"value": 0, "red": 1, "green": 2, "blue": 3, "alpha": 4}
DESATURATE = {"lightness": 0, "luma": 1, "average": 2, "luminance": 3, "value": 4}
CHANNEL_OP = {"add": 0, "subtract": 1, "replace": 2, "intersect": 3}
MODE_NUMBER = {name: number for number, name in LAYER_MODES.items()}


def num(value: float) -> str:
    """A validated finite number as a Scheme literal."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def rgb(color: list[int]) -> str:
    return "(list " + " ".join(str(int(c)) for c in color) + ")"


def _layer_op(params: Any, canvas: Canvas, call: str) -> Operation:
    layer = canvas.painted(params.layer)
    return Operation(call.format(L=layer, img=canvas.image), [params.layer], "layer", layer)


@function("scale_image", act.ScaleImage, "Scale the whole image (every layer) to width x height pixels.", acts_on="image")
def scale_image(p: act.ScaleImage, c: Canvas) -> Operation:
    return Operation(f"(begin (gimp-context-set-interpolation {INTERPOLATION[p.interpolation]}) "
                     f"(gimp-image-scale {c.image} {p.width} {p.height}))", ["@image"], "all")


@function("crop_image", act.CropImage, "Crop the image to the rectangle x, y, width, height.", destructive=True, acts_on="image")
def crop_image(p: act.CropImage, c: Canvas) -> Operation:
    if p.x + p.width > c.width or p.y + p.height > c.height:
        raise InvalidAction(f"The crop rectangle {p.x},{p.y} {p.width}x{p.height} reaches outside the "
                            f"{c.width}x{c.height} image.", hint="Keep x + width and y + height within the image.")
    return Operation(f"(gimp-image-crop {c.image} {p.width} {p.height} {p.x} {p.y})", ["@image"], "all")


@function("rotate_image", act.RotateImage, "Rotate the whole image by 90, 180 or 270 degrees clockwise.", acts_on="image")
def rotate_image(p: act.RotateImage, c: Canvas) -> Operation:
    return Operation(f"(gimp-image-rotate {c.image} {ROTATION[p.angle]})", ["@image"], "all")


@function("rotate_layer", act.RotateLayer, "Rotate one layer by any angle about its centre (the layer grows to fit).",
          acts_on="layer")
def rotate_layer(p: act.RotateLayer, c: Canvas) -> Operation:
    radians = num(p.angle * math.pi / 180)
    layer = c.layer(p.layer)  # a group rotates with everything in it
    changed = [p.layer, *c.descendants(layer)] if layer in c.groups else [p.layer]
    return Operation(f"(begin (gimp-context-set-interpolation 2) (gimp-item-transform-rotate {layer} {radians} TRUE 0 0))",
                     changed, "all" if layer in c.groups else "layer", layer)


@function("flip_image", act.FlipImage, "Mirror the whole image horizontally or vertically.", acts_on="image")
def flip_image(p: act.FlipImage, c: Canvas) -> Operation:
    return Operation(f"(gimp-image-flip {c.image} {ORIENTATION[p.direction]})", ["@image"], "all")


@function("resize_canvas", act.ResizeCanvas, "Change the canvas size without scaling; offsets place the old image.",
          acts_on="image")
def resize_canvas(p: act.ResizeCanvas, c: Canvas) -> Operation:
    grow = f" (asil-layers-to-image {c.image})" if p.resize_layers else ""
    return Operation(f"(begin (gimp-image-resize {c.image} {p.width} {p.height} {p.offset_x} {p.offset_y}){grow})",
                     ["@image"], "all")


@function("brightness_contrast", act.BrightnessContrast, "Change a layer's brightness and contrast (-1..1).", acts_on="layer")
def brightness_contrast(p: act.BrightnessContrast, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-brightness-contrast {{L}} {num(p.brightness)} {num(p.contrast)})")


@function("hue_saturation", act.HueSaturation, "Shift a layer's hue (degrees) and change lightness/saturation.", acts_on="layer")
def hue_saturation(p: act.HueSaturation, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-hue-saturation {{L}} 0 {num(p.hue)} {num(p.lightness)} "
                           f"{num(p.saturation)} 0)")


@function("levels", act.Levels, "Map a layer channel's input range to an output range (0..255) with gamma.", acts_on="layer")
def levels(p: act.Levels, c: Canvas) -> Operation:
    span = " ".join(num(v / 255) for v in (p.low_input, p.high_input))
    out = " ".join(num(v / 255) for v in (p.low_output, p.high_output))
    return _layer_op(p, c, f"(gimp-drawable-levels {{L}} {HISTOGRAM_CHANNEL[p.channel]} {span} TRUE "
                           f"{num(p.gamma)} {out} TRUE)")


@function("desaturate", act.Desaturate, "Turn a layer gray.", acts_on="layer")
def desaturate(p: act.Desaturate, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(gimp-drawable-desaturate {{L}} {DESATURATE[p.mode]})")


@function("invert", act.LayerOnly, "Invert a layer's colors.", acts_on="layer")
def invert(p: act.LayerOnly, c: Canvas) -> Operation:
    return _layer_op(p, c, "(gimp-drawable-invert {L} FALSE)")


@function("blur", act.Blur, "Gaussian-blur a layer (inside the selection, if any).", acts_on="layer")
def blur(p: act.Blur, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-blur {{img}} {{L}} {num(p.radius)})")


@function("sharpen", act.Sharpen, "Sharpen a layer with an unsharp mask.", acts_on="layer")
def sharpen(p: act.Sharpen, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-sharpen {{img}} {{L}} {num(p.radius)} {num(p.amount)})")


@function("add_layer", act.AddLayer, "Add a new layer (transparent, white or a color) at a stack position.", acts_on="layers")
def add_layer(p: act.AddLayer, c: Canvas) -> Operation:
    c.free_name(p.name)
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-add-layer {c.image} {scheme_string(p.name)} {p.width or c.width} "
                     f"{p.height or c.height} {p.offset_x} {p.offset_y} {num(p.opacity)} {scheme_string(p.fill)} "
                     f"{rgb(p.color or [0, 0, 0])} {parent} {position})", [p.name])


@function("add_text_layer", act.AddTextLayer, "Add a text layer at x, y.", acts_on="layers")
def add_text_layer(p: act.AddTextLayer, c: Canvas) -> Operation:
    if p.name is not None or p.text in RESERVED_IDS:  # GIMP names an unnamed text layer after its text
        c.free_name(p.name if p.name is not None else p.text)
    try:
        text = scheme_string(p.text)
    except ValueError:
        raise InvalidAction("The text contains control characters.",
                            hint="Use printable text; newlines and tabs are allowed.") from None
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-text-layer {c.image} {text} {p.x} {p.y} {num(p.size)} {scheme_string(p.font)} "
                     f"{rgb(p.color)} {scheme_string(p.name or '')} {parent} {position})", [p.name or "@image"])


@function("add_group", act.AddGroup, "Add an empty layer group; fill it with move_layer or add_layer's group.", acts_on="layers")
def add_group(p: act.AddGroup, c: Canvas) -> Operation:
    c.free_name(p.name)
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    return Operation(f"(asil-add-group {c.image} {scheme_string(p.name)} {parent} {position})", [p.name])


@function("rename_layer", act.RenameLayer, "Rename a layer; its element id becomes the new name.", acts_on="layer")
def rename_layer(p: act.RenameLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    if p.name != p.layer:
        c.free_name(p.name)
    return Operation(f"(gimp-item-set-name {layer} {scheme_string(p.name)})", [p.layer, p.name])


@function("delete_layer", act.LayerOnly, "Delete a layer, or a group with everything in it (not the last top-level layer).",
          destructive=True, acts_on="layers")
def delete_layer(p: act.LayerOnly, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    if c.parent(layer) == 0 and c.parents.count(0) == 1:
        raise InvalidAction(f"{p.layer!r} is the only top-level layer; an image needs at least one.",
                            hint="Add another layer first, or clear this one with fill.")
    return Operation(f"(gimp-image-remove-layer {c.image} {layer})", [p.layer, *c.descendants(layer)])


@function("move_layer", act.MoveLayer, "Move a layer to a stack position (0 = top) in its group, or into another group.",
          acts_on="layers")
def move_layer(p: act.MoveLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    parent = c.parent(layer) if p.group is None else 0 if p.group == "@image" else c.group(p.group)
    inside = c.descendants(layer) if layer in c.groups else []
    if parent == layer or (parent and c.names[c.ids.index(parent)] in inside):
        raise InvalidAction(f"The group {p.layer!r} cannot be moved into itself.",
                            hint="Name a group outside it, or '@image' for the top level.")
    position = c.position(p.position, adding=parent != c.parent(layer), parent=parent)
    return Operation(f"(gimp-image-reorder-item {c.image} {layer} {parent} {position})", [p.layer, *inside])


@function("set_layer", act.SetLayer, "Set a layer's opacity (0..100), visibility, offsets or mode.", acts_on="layer")
def set_layer(p: act.SetLayer, c: Canvas) -> Operation:
    layer = c.layer(p.layer)
    calls = []  # offsets of a group move the layers inside it
    if p.mode == "pass-through" and layer not in c.groups:
        raise InvalidAction(f"{p.layer!r} is not a layer group; only a group can pass its layers through.",
                            hint="Give a layer mode such as 'normal' or 'multiply'.")
    if p.mode is not None:
        calls.append(f"(gimp-layer-set-mode {layer} {MODE_NUMBER[p.mode]})")
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


@function("place_image", act.PlaceImage, "Place a workspace image file as a new layer at x, y (optionally scaled), "
          "like File > Open as Layers.", acts_on="layers")
def place_image(p: act.PlaceImage, c: Canvas) -> Operation:
    if p.name is not None:
        c.free_name(p.name)
    parent = c.group(p.group)
    position = c.position(p.position, adding=True, parent=parent)
    if c.folder is None:
        raise InvalidAction("This image has no workspace to place files from.", hint="Open the image in a workspace.")
    source = scheme_string(str((c.folder / p.path).resolve()))
    size = f"{p.width} {p.height}" if p.width is not None else "0 0"
    return Operation(f"(asil-place-image {c.image} {source} {scheme_string(p.name or '')} {p.x} {p.y} {size} "
                     f"{num(p.opacity)} {parent} {position})", [p.name or "@image"])


def _select(p: act.SelectShape, c: Canvas, procedure: str) -> Operation:
    if p.x >= c.width or p.y >= c.height or p.x + p.width <= 0 or p.y + p.height <= 0:
        raise InvalidAction(f"The rectangle {p.x},{p.y} {p.width}x{p.height} lies outside the "
                            f"{c.width}x{c.height} canvas.", hint="Give a rectangle that overlaps the canvas.")
    return Operation(f"({procedure} {c.image} {CHANNEL_OP[p.operation]} {p.x} {p.y} {p.width} {p.height})",
                     ["@selection"])


@function("select_rectangle", act.SelectShape, "Select a rectangle (replace, add to, subtract from or intersect).",
          acts_on="selection")
def select_rectangle(p: act.SelectShape, c: Canvas) -> Operation:
    return _select(p, c, "gimp-image-select-rectangle")


@function("select_ellipse", act.SelectShape, "Select the ellipse inside a rectangle.", acts_on="selection")
def select_ellipse(p: act.SelectShape, c: Canvas) -> Operation:
    return _select(p, c, "gimp-image-select-ellipse")


@function("select_all", NoParams, "Select the whole canvas.", acts_on="selection")
def select_all(p: NoParams, c: Canvas) -> Operation:
    return Operation(f"(gimp-selection-all {c.image})", ["@selection"])


@function("select_none", NoParams, "Remove the selection.", acts_on="selection")
def select_none(p: NoParams, c: Canvas) -> Operation:
    return Operation(f"(gimp-selection-none {c.image})", ["@selection"])


@function("fill", act.Fill, "Fill the selection on a layer with a color (the whole layer when nothing is selected).",
          acts_on="layer")
def fill(p: act.Fill, c: Canvas) -> Operation:
    return _layer_op(p, c, f"(asil-fill {{img}} {{L}} {rgb(p.color)})")


FUNCTIONS.add("export_image", AppFunction(
    "export_image", act.ExportImage, "Write a flattened PNG or JPEG of the image into the workspace.", acts_on="file",
    batch=False))
FUNCTIONS.add("save", AppFunction(
    "save", NoParams, "Write the document now (it is also saved when the episode ends).", acts_on="file", batch=False))
