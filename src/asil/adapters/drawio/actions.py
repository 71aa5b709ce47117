"""The draw.io action vocabulary: parameter models, and what an agent is told besides the functions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, Vocabulary, navigate_page
from asil.adapters.params import Params

MAX_LIMIT = 200
StyleValue = str | int | float | bool
CellRef = Annotated[str, Field(min_length=1, max_length=500, description="A cell id, or a label naming exactly one cell.")]
PageRef = Annotated[str, Field(min_length=1, max_length=200, description="A page name or id; the page in view when omitted.")]
Number = Annotated[float, Field(ge=-1e7, le=1e7)]
Size = Annotated[float, Field(gt=0, le=1e6)]
NewName = Annotated[str, Field(min_length=1, max_length=200)]
NewId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f]+$")]


class _Params(Params):
    """Strict parameters: unknown fields, coercion and NaN are refused."""


class _OnPage(_Params):
    page: PageRef | None = None


class SetLabel(_Params):
    value: str = Field(max_length=10_000, description="The new label as plain text (line breaks allowed).")


class AddVertex(_OnPage):
    label: str = Field("", max_length=10_000)
    x: Number | None = Field(None, description="Left edge; right of the existing cells when omitted.")
    y: Number | None = Field(None, description="Top edge; level with the topmost cell when omitted.")
    width: Size = 120.0
    height: Size = 60.0
    style: str | dict[str, StyleValue] | None = Field(
        None, description="A draw.io style string ('ellipse;fillColor=#dae8fc;') or an object of style keys; "
        "a rounded rectangle when omitted.")
    layer: CellRef | None = Field(None, description="Layer id or name; the first layer when omitted.")
    parent: CellRef | None = Field(None, description="A group or container vertex to put the new vertex in.")
    id: NewId | None = Field(None, description="The new cell's id; generated when omitted.")


class Connect(_OnPage):
    source: CellRef
    target: CellRef
    label: str = Field("", max_length=10_000)
    style: str | dict[str, StyleValue] | None = Field(None, description="Edge style; an orthogonal connector when omitted.")
    layer: CellRef | None = Field(None, description="Layer id or name; the source's layer when omitted.")
    id: NewId | None = None


class Relabel(_OnPage):
    cell: CellRef
    label: str = Field(max_length=10_000, description="Plain text; escaped for HTML labels.")
    html: bool = Field(False, description="Treat 'label' as raw HTML (only for cells with html=1).")


class Restyle(_OnPage):
    cells: Annotated[list[CellRef], Field(min_length=1, max_length=500)]
    set: dict[str, StyleValue] = Field(default_factory=dict, description="Style keys to set, e.g. {'fillColor': '#f8cecc'}.")
    remove: list[str] = Field(default_factory=list, description="Style keys (or bare style names) to remove.")


class Move(_OnPage):
    cell: CellRef
    x: Number | None = None
    y: Number | None = None
    dx: Number | None = None
    dy: Number | None = None


class Resize(_OnPage):
    cell: CellRef
    width: Size | None = None
    height: Size | None = None


class DeleteCells(_OnPage):
    cells: Annotated[list[CellRef], Field(min_length=1, max_length=500)]


class Reconnect(_OnPage):
    edge: CellRef
    source: CellRef | None = None
    target: CellRef | None = None


class SetWaypoints(_OnPage):
    edge: CellRef
    points: Annotated[list[Annotated[list[Number], Field(min_length=2, max_length=2)]], Field(max_length=100)] = Field(
        description="Bend points [[x, y], ...]; [] removes them.")


class AddPage(_Params):
    name: NewName
    position: Annotated[int, Field(ge=1)] | None = Field(None, description="1-based position; last when omitted.")


class RenamePage(_Params):
    page: PageRef
    new_name: NewName


class DeletePage(_Params):
    page: PageRef


class AddLayer(_OnPage):
    name: NewName
    id: NewId | None = None


class RenameLayer(_OnPage):
    layer: CellRef
    new_name: NewName


class MoveToLayer(_OnPage):
    cells: Annotated[list[CellRef], Field(min_length=1, max_length=500)]
    layer: CellRef


class Navigate(navigate_page(MAX_LIMIT)):  # type: ignore[misc]  # the common page, and a label filter
    find: str | None = Field(None, max_length=200, description="Show only cells whose label contains this text; '' clears.")


VOCABULARY = Vocabulary(
    app="drawio",
    action_types=FILE_ACTION_TYPES,
    target_format="modify_file: the open document (or none); "
    "set_value: a cell id or label on the page in view (sets its label); invoke_function: "
    "a function name; navigate: a page name or id (or omitted for the page in view)",
    set_value_params=SetLabel,
    navigate_params=Navigate,
    examples=[
        {"action_type": "invoke_function", "target": "add_vertex",
         "params": {"label": "Review", "x": 300, "y": 40, "style": "rhombus;whiteSpace=wrap;html=1;"}},
        {"action_type": "invoke_function", "target": "connect",
         "params": {"source": "Start", "target": "Review", "label": "next"}},
        {"action_type": "set_value", "target": "start", "params": {"value": "Begin"}},
        {"action_type": "invoke_function", "target": "relabel", "params": {"cell": "Begin", "label": "Start here"}},
        {"action_type": "invoke_function", "target": "restyle",
         "params": {"cells": ["start"], "set": {"fillColor": "#d5e8d4", "strokeColor": "#82b366"}, "remove": ["dashed"]}},
        {"action_type": "invoke_function", "target": "move", "params": {"cell": "start", "dx": 20, "dy": 0}},
        {"action_type": "invoke_function", "target": "resize", "params": {"cell": "start", "width": 140}},
        {"action_type": "invoke_function", "target": "add_layer", "params": {"name": "Notes"}},
        {"action_type": "invoke_function", "target": "move_to_layer", "params": {"cells": ["Review"], "layer": "Notes"}},
        {"action_type": "invoke_function", "target": "add_page", "params": {"name": "Details"}},
        {"action_type": "navigate", "target": "Details", "params": {}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "add_vertex", "params": {"label": "A", "x": 40, "y": 40}},
            {"action_type": "invoke_function", "target": "add_vertex", "params": {"label": "B", "x": 240, "y": 40}},
            {"action_type": "invoke_function", "target": "connect", "params": {"source": "A", "target": "B"}}]}},
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "move", "params": {"cell": "A", "dx": 10, "dy": 0}},
            {"op": "resize", "params": {"cell": "A", "width": 140}}]}},
    ],
    tips=[
        "Pages are views; elements are a page's layers, vertices (shapes) and edges (connectors), each with a stable id.",
        "Wherever a cell is expected you may give its id or its label, if exactly one vertex or edge has that label.",
        "An element's value is its label as plain text; meta.html holds the raw HTML of HTML labels. relabel and "
        "set_value take plain text.",
        "Styles are draw.io keys: fillColor, strokeColor, fontColor, dashed=1, rounded=1, shape, edgeStyle ... "
        "restyle sets or removes single keys and leaves the others alone.",
        "Geometry is x, y, width, height in pixels; for cells inside a group or container it is relative to the container.",
        "Deleting a vertex also deletes the edges attached to it; to move an edge's end use reconnect.",
        "Large pages are windowed: navigate with params offset/limit to page, or find to filter by label.",
        "Function params take 'page' (name or id) to act on a page other than the one in view.",
        "A batch is atomic: if one action fails, none of it is applied.",
        MODIFY_FILE_TIP,
    ],
)
