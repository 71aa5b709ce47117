"""The Calc action vocabulary: parameter models, the published schema, examples and tips."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from asil.adapters.params import Params, finish_tip, function_specs
from asil.protocol import Action, ActionSchema

Scalar = float | int | str | bool | None
MAX_BATCH = 200
MAX_RANGE_CELLS = 100_000


class _Params(Params):
    pass


class SetValue(_Params):
    value: Scalar = None
    formula: str | None = None


class SetRange(_Params):
    range: str = Field(description="Top-left cell or full range, e.g. 'Sheet1!A2' or 'Sheet1!A2:C4'.")
    values: Annotated[list[list[Scalar]], Field(min_length=1)] = Field(
        description="Rows of values; strings starting with '=' are formulas.")


class ClearRange(_Params):
    range: str
    formats: bool = Field(False, description="Also remove bold, number formats and backgrounds.")


class RowSpan(_Params):
    sheet: str | None = Field(None, description="Sheet name; the current view's sheet when omitted.")
    row: Annotated[int, Field(ge=1)] = Field(description="1-based row number (insert: new rows go before it).")
    count: Annotated[int, Field(ge=1, le=100_000)] = 1


class ColumnSpan(_Params):
    sheet: str | None = None
    column: str = Field(description="Column letters, e.g. 'C' (insert: new columns go before it).")
    count: Annotated[int, Field(ge=1, le=1000)] = 1


class AddSheet(_Params):
    name: str
    position: Annotated[int, Field(ge=1)] | None = Field(None, description="1-based position; last when omitted.")


class RenameSheet(_Params):
    sheet: str
    new_name: str


class DeleteSheet(_Params):
    sheet: str


class SortKey(_Params):
    column: str = Field(description="Column letters inside the range, e.g. 'B'.")
    descending: bool = False


class SortRange(_Params):
    range: str
    keys: Annotated[list[SortKey], Field(min_length=1, max_length=3)]
    has_header: bool = Field(False, description="The first row of the range is a header and stays on top.")


class FormatRange(_Params):
    range: str
    bold: bool | None = None
    number_format: str | None = Field(None, description="e.g. '0.00', '#,##0', '0%', 'YYYY-MM-DD'.")
    background: Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")] | None = Field(
        None, description="'#RRGGBB', or null to remove the background.")


class NoParams(_Params):
    pass


class Navigate(_Params):
    rows: Annotated[int, Field(ge=1, le=100)] | None = None
    cols: Annotated[int, Field(ge=1, le=26)] | None = None


class Batch(_Params):
    actions: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_BATCH)]


FUNCTIONS: dict[str, tuple[type[_Params], str, bool]] = {
    "set_range": (SetRange, "Write a 2-D block of values/formulas starting at the range's top-left cell.", False),
    "clear_range": (ClearRange, "Empty the cells of a range (and optionally their formatting).", False),
    "insert_rows": (RowSpan, "Insert empty rows before a row; formulas are adjusted.", False),
    "delete_rows": (RowSpan, "Delete rows starting at a row; formulas are adjusted.", True),
    "insert_columns": (ColumnSpan, "Insert empty columns before a column; formulas are adjusted.", False),
    "delete_columns": (ColumnSpan, "Delete columns starting at a column; formulas are adjusted.", True),
    "add_sheet": (AddSheet, "Add an empty sheet.", False),
    "rename_sheet": (RenameSheet, "Rename a sheet; formulas referring to it follow.", False),
    "delete_sheet": (DeleteSheet, "Delete a sheet and everything on it.", True),
    "sort_range": (SortRange, "Sort the rows of a range by up to three columns.", False),
    "format_range": (FormatRange, "Set bold, number format and/or background on a range.", False),
    "save": (NoParams, "Write the document to disk now (it is also saved when the episode ends).", False),
}


EXAMPLES = [
    {"action_type": "set_value", "target": "Sheet1!B3", "params": {"value": 42}},
    {"action_type": "set_value", "target": "Sheet1!C3", "params": {"formula": "=SUM(B1:B3)"}},
    {"action_type": "invoke_function", "target": "set_range",
     "params": {"range": "Sheet1!A5", "values": [["Item", "Qty"], ["Pens", 3], ["Total", "=SUM(B6:B6)"]]}},
    {"action_type": "invoke_function", "target": "sort_range",
     "params": {"range": "Sheet1!A1:B3", "keys": [{"column": "B", "descending": True}], "has_header": True}},
    {"action_type": "invoke_function", "target": "format_range",
     "params": {"range": "Sheet1!B1:B3", "bold": True, "number_format": "0.00", "background": "#FFFF00"}},
    {"action_type": "invoke_function", "target": "insert_rows", "params": {"sheet": "Sheet1", "row": 2, "count": 1}},
    {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "Summary"}},
    {"action_type": "navigate", "target": "Sheet1!A1", "params": {"rows": 20, "cols": 10}},
    {"action_type": "batch", "params": {"actions": [
        {"action_type": "set_value", "target": "Sheet1!D1", "params": {"value": "Total"}},
        {"action_type": "set_value", "target": "Sheet1!D2", "params": {"formula": "=B2*2"}}]}},
    {"action_type": "done", "params": {"answer": "optional text answer"}},
]

TIPS = [
    "Cell ids look like Sheet1!B3; quote sheet names with spaces: 'My Sheet'!B3. The sheet may be omitted "
    "for the sheet in view.",
    "Formulas use Excel syntax with commas and English names: =IF(A2>0,\"yes\",\"no\"), ='Other Sheet'!B2*2. "
    "LibreOffice computes them; observations show the results.",
    "A string value starting with '=' is a formula. Numbers must be JSON numbers, not strings.",
    "Observations show a window of non-empty cells; use navigate (target a sheet or a cell) to page.",
    "Meta 'display' appears only where the shown text differs from the value.",
    "A batch is atomic: if one action fails, none of it is applied.",
    finish_tip(),
]


def build_schema() -> ActionSchema:
    functions = function_specs(dict(FUNCTIONS))
    return ActionSchema(
        app="calc",
        action_types=["set_value", "invoke_function", "navigate", "batch", "done", "infeasible"],
        target_format="set_value: a cell like Sheet1!B3; invoke_function: a function name; "
        "navigate: a sheet name or a cell to show",
        functions=functions,
        set_value_params=SetValue.model_json_schema(),
        navigate_params=Navigate.model_json_schema(),
        examples=[Action.model_validate(e) for e in EXAMPLES],
        tips=TIPS,
    )
