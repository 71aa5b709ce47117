"""The Inkscape action vocabulary: parameter models, and what an agent is told besides the functions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, Vocabulary, navigate_page
from asil.adapters.params import Params

MAX_LIMIT = 100
IdText = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.:\-]{0,99}$")]
Ids = Annotated[list[IdText], Field(min_length=1, max_length=500)]
Number = Annotated[float, Field(ge=-1e7, le=1e7)]
Positive = Annotated[float, Field(ge=0, le=1e7)]
StyleValue = Annotated[str, Field(max_length=200, pattern=r"^[^;:{}<>]*$")]
Style = dict[Annotated[str, Field(pattern=r"^-?[a-z][a-z\-]{0,40}$")], StyleValue | None]


class _Params(Params):
    """Strict parameters: unknown fields, coercion and NaN are refused."""


class _NewShape(_Params):
    parent: IdText | None = Field(None, description="Layer or group id to draw into; the current layer when omitted.")
    id: IdText | None = Field(None, description="Id for the new element; generated when omitted.")
    label: str | None = Field(None, max_length=200, description="Inkscape label (inkscape:label).")
    style: Style | None = Field(None, description="CSS properties, e.g. {\"fill\": \"#ff0000\", \"stroke\": \"none\"}.")


class AddRect(_NewShape):
    x: Number
    y: Number
    width: Positive
    height: Positive
    rx: Positive | None = Field(None, description="Corner radius.")


class AddCircle(_NewShape):
    cx: Number
    cy: Number
    r: Positive


class AddEllipse(_NewShape):
    cx: Number
    cy: Number
    rx: Positive
    ry: Positive


class AddLine(_NewShape):
    x1: Number
    y1: Number
    x2: Number
    y2: Number


class AddPath(_NewShape):
    d: str = Field(min_length=1, max_length=100_000, description="SVG path data, e.g. 'M 10 10 L 90 10 L 50 80 Z'.")


class AddText(_NewShape):
    x: Number
    y: Number = Field(description="Baseline of the first line.")
    text: str = Field(min_length=1, max_length=10_000)
    font_size: Positive | None = Field(None, description="Font size in px.")


class EditElement(_Params):
    id: IdText
    attributes: Annotated[dict[str, float | str | None], Field(min_length=1)] = Field(
        description="Attributes to set (null removes): geometry (x, y, width, height, cx, cy, r, rx, ry, x1, y1, "
        "x2, y2 as numbers), d, points, transform, label.")


class SetText(_Params):
    id: IdText
    text: str = Field(max_length=10_000)


class ElementIds(_Params):
    ids: Ids


class Group(_Params):
    ids: Ids
    id: IdText | None = None
    label: str | None = Field(None, max_length=200)


class OneElement(_Params):
    id: IdText


class Move(_Params):
    ids: Ids
    dx: Number = Field(description="Document units to the right (negative: left).")
    dy: Number = Field(description="Document units down (negative: up).")


class Restyle(_Params):
    ids: Ids
    style: Annotated[Style, Field(min_length=1)] = Field(description="Properties to set; null removes one.")


class SetVisibility(_Params):
    ids: Ids
    visible: bool


class Reorder(_Params):
    id: IdText
    to: Literal["front", "back", "raise", "lower"] = Field(description="front/back of its parent, or one step.")


class AddLayer(_Params):
    label: str = Field(min_length=1, max_length=200)
    id: IdText | None = None
    position: Literal["top", "bottom"] = "top"


class RenameLayer(_Params):
    layer: IdText
    label: str = Field(min_length=1, max_length=200)


class DeleteLayer(_Params):
    layer: IdText


class MoveToLayer(_Params):
    ids: Ids
    layer: IdText


class Align(_Params):
    ids: Ids
    edge: Literal["left", "right", "top", "bottom", "center_x", "center_y"]
    relative_to: Literal["selection", "page", "first", "last", "biggest"] = Field(
        "selection", description="The box aligned to: all listed elements together, the page, or one of them.")


class ExportPng(_Params):
    path: str = Field(pattern=r"(?i)^[^\x00]+\.png$", description="Workspace-relative .png path.")
    dpi: Annotated[float, Field(gt=0, le=1200)] | None = None
    width: Annotated[int, Field(ge=1, le=10_000)] | None = Field(None, description="Pixel width.")
    height: Annotated[int, Field(ge=1, le=10_000)] | None = Field(None, description="Pixel height.")
    area: Literal["page", "drawing"] = "page"
    id: IdText | None = Field(None, description="Export only this element.")


class SetValue(_Params):
    value: str = Field(max_length=10_000, description="New text of a text element.")


def _fn(name: str, **params: Any) -> dict[str, Any]:
    return {"action_type": "invoke_function", "target": name, "params": params}


VOCABULARY = Vocabulary(
    app="inkscape",
    action_types=FILE_ACTION_TYPES,
    finish="with these actions",
    target_format="modify_file: the open document (or none); "
    "set_value: a text element id; invoke_function: a function name; "
    "navigate: 'document' or a layer id",
    set_value_params=SetValue,
    navigate_params=navigate_page(MAX_LIMIT),
    batch_hint="Put only set_value and invoke_function edits in a batch.",
    examples=[
        _fn("add_rect", x=20, y=20, width=120, height=60, id="button", style={"fill": "#3366cc", "stroke": "none"}),
        _fn("add_circle", cx=300, cy=80, r=30, style={"fill": "#ff9900"}),
        _fn("add_text", x=30, y=60, text="Sign up", font_size=18, id="caption", style={"fill": "#ffffff"}),
        {"action_type": "set_value", "target": "caption", "params": {"value": "Join now"}},
        _fn("edit_element", id="button", attributes={"width": 160, "height": 48}),
        _fn("restyle", ids=["button"], style={"fill": "#cc3333", "stroke": "#000000", "stroke-width": "2"}),
        _fn("move", ids=["button", "caption"], dx=10, dy=-5),
        _fn("align", ids=["button", "caption"], edge="center_x", relative_to="first"),
        _fn("group", ids=["button", "caption"], id="cta", label="Call to action"),
        _fn("add_layer", label="Notes", id="notes"),
        _fn("move_to_layer", ids=["cta"], layer="notes"),
        _fn("reorder", id="cta", to="back"),
        _fn("export_png", path="preview.png", dpi=48),
        {"action_type": "navigate", "target": "document", "params": {"offset": 0, "limit": 40}},
        {"action_type": "batch", "params": {"actions": [
            _fn("restyle", ids=["button"], style={"fill": "#228833"}),
            _fn("rename_layer", layer="notes", label="Annotations")]}},
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "restyle", "params": {"ids": ["button"], "style": {"fill": "#112233"}}},
            {"op": "move", "params": {"ids": ["button"], "dx": 5, "dy": 5}}]}},
    ],
    tips=[
        "Element ids are the SVG id attributes (elements without one got a stable id when the file was opened). "
        "Layers are groups with type 'layer'; navigate to a layer id to list only its elements.",
        "Coordinates are document user units (px when the viewBox matches the page size); y grows downwards.",
        "meta.bbox is [x, y, width, height] of what you see (stroke included, text estimated) in document units.",
        "meta.style lists the element's own style; fill/stroke are inherited from groups and layers when unset.",
        "Colours are '#rrggbb'. Use restyle with null to remove a property, set_visibility to hide or show.",
        "Every change is written back to the file; a batch is atomic (all or nothing).",
        MODIFY_FILE_TIP,
    ],
)
