"""The GIMP action vocabulary: parameter models, examples and tips.

Every action is data. The functions are declared in ``asil.adapters.gimp.operations``, each with
the builder that turns a checked call into a call of one of ASIL's Script-Fu helpers with escaped
literal arguments; no agent text runs as code.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from asil.adapters.functions import Vocabulary, navigate_page
from asil.adapters.params import Params

MAX_SIDE = 8192
PLACEABLE = re.compile(r"(?i)\.(png|jpe?g)$")
LayerName = Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[^\x00-\x1f]+$")]
LayerRef = Annotated[str, Field(min_length=1, max_length=120,
                                description="A layer name (its element id), also of a layer inside a group.")]
GroupRef = Annotated[str, Field(min_length=1, max_length=120, description="The name of a layer group.")]
Side = Annotated[int, Field(ge=1, le=MAX_SIDE)]
Coord = Annotated[int, Field(ge=-MAX_SIDE, le=MAX_SIDE)]
Level = Annotated[float, Field(ge=0, le=255)]
Color = Annotated[list[Annotated[int, Field(ge=0, le=255)]], Field(min_length=3, max_length=3,
                                                                  description="RGB, 0..255 each")]
Position = Annotated[int, Field(ge=0, le=10_000, description="Stack position: 0 is the top layer (of the "
                                                           "layer's group, for a layer inside a group).")]
Operation = Literal["replace", "add", "subtract", "intersect"]
Font = Literal["Sans-serif", "Serif", "Monospace", "Sans-serif Bold", "Serif Bold", "Monospace Bold"]
# GIMP 2.10's layer modes by the names its Layers dialog shows (lower case, hyphenated); pass-through is for groups.
LayerModeName = Literal["normal", "multiply", "screen", "overlay", "difference", "addition", "subtract", "darken-only",
                        "lighten-only", "dodge", "burn", "hardlight", "softlight", "grain-extract", "grain-merge",
                        "divide", "hsv-hue", "hsv-saturation", "hsl-color", "hsv-value", "exclusion", "linear-burn",
                        "luminance", "pass-through"]


class _Params(Params):
    """Strict parameters: unknown fields, coercion and NaN are refused."""


class LayerOnly(_Params):
    layer: LayerRef


class ScaleImage(_Params):
    width: Side
    height: Side
    interpolation: Literal["none", "linear", "cubic", "nohalo", "lohalo"] = "cubic"


class CropImage(_Params):
    x: Annotated[int, Field(ge=0, le=MAX_SIDE)]
    y: Annotated[int, Field(ge=0, le=MAX_SIDE)]
    width: Side
    height: Side


class RotateImage(_Params):
    angle: Literal[90, 180, 270] = Field(description="Clockwise degrees.")


class RotateLayer(_Params):
    layer: LayerRef
    angle: Annotated[float, Field(ge=-360, le=360)] = Field(description="Clockwise degrees, about the layer's centre.")


class FlipImage(_Params):
    direction: Literal["horizontal", "vertical"]


class ResizeCanvas(_Params):
    width: Side
    height: Side
    offset_x: Coord = Field(0, description="Where the old image's left edge goes on the new canvas.")
    offset_y: Coord = 0
    resize_layers: bool = Field(False, description="Also grow every layer to the new canvas size.")


class BrightnessContrast(_Params):
    layer: LayerRef
    brightness: Annotated[float, Field(ge=-1, le=1)] = 0.0
    contrast: Annotated[float, Field(ge=-1, le=1)] = 0.0


class HueSaturation(_Params):
    layer: LayerRef
    hue: Annotated[float, Field(ge=-180, le=180)] = 0.0
    lightness: Annotated[float, Field(ge=-100, le=100)] = 0.0
    saturation: Annotated[float, Field(ge=-100, le=100)] = 0.0


class Levels(_Params):
    layer: LayerRef
    channel: Literal["value", "red", "green", "blue", "alpha"] = "value"
    low_input: Level = 0
    high_input: Level = 255
    gamma: Annotated[float, Field(ge=0.1, le=10)] = 1.0
    low_output: Level = 0
    high_output: Level = 255

    @model_validator(mode="after")
    def _ordered(self) -> Levels:
        if self.low_input >= self.high_input:
            raise ValueError("low_input must be below high_input")
        return self


class Desaturate(_Params):
    layer: LayerRef
    mode: Literal["luminance", "luma", "lightness", "average", "value"] = "luminance"


class Blur(_Params):
    layer: LayerRef
    radius: Annotated[float, Field(gt=0, le=500)] = Field(description="Gaussian blur radius in pixels.")


class Sharpen(_Params):
    layer: LayerRef
    radius: Annotated[float, Field(gt=0, le=100)] = 3.0
    amount: Annotated[float, Field(gt=0, le=10)] = 0.5


class AddLayer(_Params):
    name: LayerName
    width: Side | None = Field(None, description="Defaults to the image width.")
    height: Side | None = Field(None, description="Defaults to the image height.")
    offset_x: Coord = 0
    offset_y: Coord = 0
    opacity: Annotated[float, Field(ge=0, le=100)] = 100.0
    fill: Literal["transparent", "white", "color"] = "transparent"
    color: Color | None = Field(None, description="Fill color when fill is 'color'.")
    position: Position = 0
    group: GroupRef | None = Field(None, description="Put the layer inside this layer group (top level when omitted).")

    @model_validator(mode="after")
    def _color_given(self) -> AddLayer:
        if (self.fill == "color") != (self.color is not None):
            raise ValueError("give color exactly when fill is 'color'")
        return self


class AddTextLayer(_Params):
    text: Annotated[str, Field(min_length=1, max_length=1000)]
    x: Coord = 0
    y: Coord = 0
    size: Annotated[float, Field(ge=1, le=1000)] = Field(24.0, description="Font size in pixels.")
    font: Font = "Sans-serif"
    color: Color = Field(default_factory=lambda: [0, 0, 0])
    name: LayerName | None = Field(None, description="Layer name; GIMP names it after the text when omitted.")
    position: Position = 0
    group: GroupRef | None = Field(None, description="Put the layer inside this layer group (top level when omitted).")


class AddGroup(_Params):
    name: LayerName
    position: Position = 0
    group: GroupRef | None = Field(None, description="Nest it inside this layer group (top level when omitted).")


class RenameLayer(_Params):
    layer: LayerRef
    name: LayerName


class MoveLayer(_Params):
    layer: LayerRef
    position: Position
    group: Annotated[str, Field(min_length=1, max_length=120)] | None = Field(
        None, description="Move it into this layer group, or '@image' for the top level; it stays in its own "
        "group when omitted.")


class SetLayer(_Params):
    layer: LayerRef
    opacity: Annotated[float, Field(ge=0, le=100)] | None = None
    visible: bool | None = None
    offset_x: Coord | None = None
    offset_y: Coord | None = None
    mode: LayerModeName | None = Field(None, description="The layer mode (how it mixes with the layers below); "
                                       "'pass-through' only for a layer group.")

    @model_validator(mode="after")
    def _something(self) -> SetLayer:
        if all(value is None for value in (self.opacity, self.visible, self.offset_x, self.offset_y, self.mode)):
            raise ValueError("give at least one of opacity, visible, offset_x, offset_y, mode")
        return self


class PlaceImage(_Params):
    path: Annotated[str, Field(min_length=1, max_length=255)] = Field(
        description="Workspace-relative .png, .jpg or .jpeg image file to place.")
    name: LayerName | None = Field(None, description="Layer name; GIMP names it after the file when omitted.")
    x: Coord = Field(0, description="Where the new layer's top-left corner goes on the canvas.")
    y: Coord = 0
    width: Side | None = Field(None, description="Scale the placed image to this size (give width and height "
                               "together); its own size when omitted.")
    height: Side | None = None
    opacity: Annotated[float, Field(ge=0, le=100)] = 100.0
    position: Position = 0
    group: GroupRef | None = Field(None, description="Put the layer inside this layer group (top level when omitted).")

    @field_validator("path")
    @classmethod
    def _image_suffix(cls, path: str) -> str:
        if not PLACEABLE.search(path):
            raise ValueError(f"{path!r} is not a .png, .jpg or .jpeg file, the kinds of image place_image reads")
        return path

    @model_validator(mode="after")
    def _both_sides(self) -> PlaceImage:
        if (self.width is None) != (self.height is None):
            raise ValueError("give width and height together, or neither to keep the image's own size")
        return self


class SelectShape(_Params):
    x: Coord
    y: Coord
    width: Side
    height: Side
    operation: Operation = "replace"


class Fill(_Params):
    layer: LayerRef
    color: Color


class ExportImage(_Params):
    path: Annotated[str, Field(min_length=1, max_length=255, pattern=r"(?i)\.(png|jpe?g)$")] = Field(
        description="Workspace-relative .png, .jpg or .jpeg path to write.")
    quality: Annotated[int, Field(ge=1, le=100)] = Field(90, description="JPEG quality.")


EXAMPLES = [
    {"action_type": "invoke_function", "target": "scale_image", "params": {"width": 64, "height": 48}},
    {"action_type": "invoke_function", "target": "brightness_contrast",
     "params": {"layer": "Background", "brightness": 0.2, "contrast": 0.1}},
    {"action_type": "invoke_function", "target": "add_layer",
     "params": {"name": "Overlay", "fill": "color", "color": [255, 0, 0], "opacity": 50}},
    {"action_type": "invoke_function", "target": "select_rectangle",
     "params": {"x": 4, "y": 4, "width": 16, "height": 12}},
    {"action_type": "invoke_function", "target": "fill", "params": {"layer": "Overlay", "color": [0, 0, 255]}},
    {"action_type": "invoke_function", "target": "add_text_layer",
     "params": {"text": "Hello", "x": 2, "y": 2, "size": 12, "name": "Title"}},
    {"action_type": "invoke_function", "target": "set_layer", "params": {"layer": "Title", "opacity": 80}},
    {"action_type": "invoke_function", "target": "add_group", "params": {"name": "Decor", "position": 0}},
    {"action_type": "invoke_function", "target": "place_image",
     "params": {"path": "logo.png", "name": "Logo", "x": 10, "y": 10, "width": 32, "height": 32}},
    {"action_type": "invoke_function", "target": "set_layer", "params": {"layer": "Box", "mode": "multiply"}},
    {"action_type": "invoke_function", "target": "export_image", "params": {"path": "preview.png"}},
    {"action_type": "navigate", "params": {"offset": 0, "limit": 25}},
    {"action_type": "batch", "params": {"actions": [
        {"action_type": "invoke_function", "target": "add_layer", "params": {"name": "Frame", "fill": "white"}},
        {"action_type": "invoke_function", "target": "move_layer", "params": {"layer": "Frame", "position": 1}}]}},
]

TIPS = [
    "Layers are elements; a layer's id is its name (GIMP keeps names unique, across groups too). Position 0 is "
    "the top of the stack. '@image' holds the canvas size and mode; '@selection' the selection bounds "
    "[x1, y1, x2, y2].",
    "A layer group (type 'group') is followed by the layers inside it; their meta.parent names the group, "
    "meta.path is 'Group/Layer' and meta.position counts within the group. Every layer action works on them; "
    "color actions need a layer with pixels, not the group. move_layer with group moves a layer into a group "
    "('@image' for the top level); add_layer and add_text_layer take a group too.",
    "Each layer's meta.stats gives per-channel mean, std, median, min and max (0..255, channels in "
    "meta.channels); "
    "color channels are weighted by alpha; they always cover the whole layer, whatever is selected.",
    "Color actions (brightness_contrast, hue_saturation, levels, desaturate, invert, blur, sharpen, fill) "
    "work on one layer, inside the selection when there is one: use select_none to work on the whole layer.",
    "Coordinates are pixels from the top-left corner of the canvas. Colors are RGB lists of 0..255.",
    "place_image puts a workspace .png/.jpg file on the image as a new layer (like File > Open as Layers), at x, y, "
    "optionally scaled to width x height.",
    "A batch is atomic: if one action fails, the image is as before the batch.",
    "Large images are shown a page of layers at a time: navigate with params.offset/limit or a layer name.",
]


VOCABULARY = Vocabulary(
    app="gimp",
    action_types=("invoke_function", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name (the layer goes in params.layer); navigate: a layer "
    "name to show, or none",
    navigate_params=navigate_page(100),
    batch_hint="Put only image and layer edits in a batch; export or save after it.",
    max_batch=50,
    examples=EXAMPLES,
    tips=TIPS,
)
