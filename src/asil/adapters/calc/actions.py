"""The Calc action vocabulary: parameter models, the functions with their planners, examples and tips.

A planner checks a function call against the sheet names (a list it updates as a batch adds,
renames or deletes sheets) and turns it into engine steps and the ids of the cells or sheets it
changes, without side effects.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from asil.adapters.calc.refs import MAX_COLS, MAX_ROWS, CellRange, check_sheet_name, column_index, column_letters, quote_sheet
from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, FunctionTable, Vocabulary
from asil.adapters.lo_document import Plan, save_function
from asil.adapters.params import Params
from asil.protocol import InvalidAction

if TYPE_CHECKING:
    from asil.adapters.calc.adapter import CalcAdapter

SIGNIFICANT_DIGITS = 15  # what LibreOffice writes of a number into an .ods (and so what a reload gives back)


def storable(value: float | int | str | bool | None) -> float | int | str | bool | None:
    """A cell value as the .ods file will keep it, so the live document never holds what saving would change.

    Numbers keep 15 significant digits, as LibreOffice writes them (a 17-digit double would come back rounded
    from the file, and a failed batch's restore would seem to change it). Text may not hold control characters
    other than tab and newline: XML, and so an .ods file, cannot store them.
    """
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        bad = next((c for c in value if ord(c) < 32 and c not in "\t\n"), None)
        if bad is not None:
            raise ValueError(f"text cannot hold the control character U+{ord(bad):04X} (an .ods file cannot store it)")
        return value
    if isinstance(value, float) and math.isfinite(value) or isinstance(value, int) and abs(value) >= 10**SIGNIFICANT_DIGITS:
        rounded = float(f"{value:.{SIGNIFICANT_DIGITS}g}")
        return rounded if isinstance(value, float) else int(rounded)
    return value


Scalar = Annotated[float | int | str | bool | None, AfterValidator(storable)]
MAX_RANGE_CELLS = 100_000


class _Params(Params):
    pass


TYPED_INPUT = ("A string is read as LibreOffice reads typed input: '80' becomes the number 80, '2026-12-01' a "
               "date (format YYYY-MM-DD), '12%' the number 0.12 (format 0.00%), '$1,234.50' currency, 'TRUE' a "
               "boolean; other text stays text. Set as_text to keep a string as text exactly. Numbers keep 15 "
               "significant digits (as the .ods file does); text may not hold control characters but tab and "
               "newline.")
AS_TEXT = Field(False, description="Store strings as text exactly as given (like typing a leading apostrophe), "
                "e.g. a product code '00123' or a part number '1-2'.")


class SetValue(_Params):
    value: Scalar = Field(None, description=f"A number, boolean, null (empty) or string. {TYPED_INPUT}")
    formula: str | None = Field(None, description="A formula starting with '=' (Excel syntax).")
    as_text: bool = AS_TEXT


class SetRange(_Params):
    range: str = Field(description="Top-left cell or full range, e.g. 'Sheet1!A2' or 'Sheet1!A2:C4'.")
    values: Annotated[list[list[Scalar]], Field(min_length=1)] = Field(
        description=f"Rows of values; strings starting with '=' are formulas. {TYPED_INPUT}")
    as_text: bool = AS_TEXT


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


class Navigate(_Params):
    rows: Annotated[int, Field(ge=1, le=100)] | None = None
    cols: Annotated[int, Field(ge=1, le=26)] | None = None


Planner = Callable[["CalcAdapter", Any, list[str]], Plan]
FUNCTIONS: FunctionTable[Planner] = FunctionTable("calc")


@FUNCTIONS.function("set_range", SetRange,
                    "Write a 2-D block of values/formulas starting at the range's top-left cell.", acts_on="cells")
def set_range(doc: CalcAdapter, p: SetRange, sheets: list[str]) -> Plan:
    where = doc.cell_range(p.range, sheets)
    height, width = len(p.values), max(len(r) for r in p.values)
    if width == 0:
        raise InvalidAction("set_range needs at least one value.", hint="values is a list of rows, e.g. [[1, 2]].")
    if not where.is_cell and (where.row2 - where.row + 1, where.col2 - where.col + 1) != (height, width):
        raise InvalidAction(
            f"values has {height} rows x {width} columns but {p.range!r} is "
            f"{where.row2 - where.row + 1} x {where.col2 - where.col + 1}.",
            hint="Give only the top-left cell, or a range of the same shape.", code="bad_params")
    if where.row + height > MAX_ROWS or where.col + width > MAX_COLS:
        raise InvalidAction("The values run past the last row or column of the sheet.", hint="Start higher or left.")
    full = CellRange(where.sheet, where.col, where.row, where.col + width - 1, where.row + height - 1)
    step = {"op": "set_range", "sheet": where.sheet, "col": where.col, "row": where.row, "values": p.values,
            "as_text": p.as_text}
    return [step], cell_ids(full)


@FUNCTIONS.function("clear_range", ClearRange, "Empty the cells of a range (and optionally their formatting).",
                    acts_on="cells")
def clear_range(doc: CalcAdapter, p: ClearRange, sheets: list[str]) -> Plan:
    where = doc.cell_range(p.range, sheets)
    return [{"op": "clear_range", **where.engine_args(), "formats": p.formats}], cell_ids(where)


@FUNCTIONS.function("insert_rows", RowSpan, "Insert empty rows before a row; formulas are adjusted.", acts_on="rows")
def insert_rows(doc: CalcAdapter, p: RowSpan, sheets: list[str]) -> Plan:
    return _rows(doc, "insert_rows", p, sheets)


@FUNCTIONS.function("delete_rows", RowSpan, "Delete rows starting at a row; formulas are adjusted.", destructive=True,
                    acts_on="rows")
def delete_rows(doc: CalcAdapter, p: RowSpan, sheets: list[str]) -> Plan:
    return _rows(doc, "delete_rows", p, sheets)


def _rows(doc: CalcAdapter, op: str, p: RowSpan, sheets: list[str]) -> Plan:
    sheet = doc.sheet(p.sheet, sheets)
    if p.row + p.count - 1 > MAX_ROWS:
        raise InvalidAction(f"Rows {p.row}..{p.row + p.count - 1} run past the last row {MAX_ROWS}.",
                            hint="Use a smaller row number or count.")
    return [{"op": op, "sheet": sheet, "index": p.row - 1, "count": p.count}], [quote_sheet(sheet)]


@FUNCTIONS.function("insert_columns", ColumnSpan, "Insert empty columns before a column; formulas are adjusted.",
                    acts_on="columns")
def insert_columns(doc: CalcAdapter, p: ColumnSpan, sheets: list[str]) -> Plan:
    return _columns(doc, "insert_columns", p, sheets)


@FUNCTIONS.function("delete_columns", ColumnSpan, "Delete columns starting at a column; formulas are adjusted.",
                    destructive=True, acts_on="columns")
def delete_columns(doc: CalcAdapter, p: ColumnSpan, sheets: list[str]) -> Plan:
    return _columns(doc, "delete_columns", p, sheets)


def _columns(doc: CalcAdapter, op: str, p: ColumnSpan, sheets: list[str]) -> Plan:
    sheet = doc.sheet(p.sheet, sheets)
    index = column_index(p.column)
    if index + p.count > MAX_COLS:
        raise InvalidAction("The columns run past the last column AMJ.", hint="Use a smaller column or count.")
    return [{"op": op, "sheet": sheet, "index": index, "count": p.count}], [quote_sheet(sheet)]


@FUNCTIONS.function("add_sheet", AddSheet, "Add an empty sheet.", acts_on="sheets")
def add_sheet(doc: CalcAdapter, p: AddSheet, sheets: list[str]) -> Plan:
    check_sheet_name(p.name)
    _require_free(p.name, sheets)
    position = len(sheets) if p.position is None else min(p.position - 1, len(sheets))
    sheets.insert(position, p.name)
    return [{"op": "add_sheet", "name": p.name, "position": position}], [quote_sheet(p.name)]


@FUNCTIONS.function("rename_sheet", RenameSheet, "Rename a sheet; formulas referring to it follow.", acts_on="sheets")
def rename_sheet(doc: CalcAdapter, p: RenameSheet, sheets: list[str]) -> Plan:
    sheet = doc.sheet(p.sheet, sheets)
    check_sheet_name(p.new_name)
    _require_free(p.new_name, [s for s in sheets if s != sheet])
    sheets[sheets.index(sheet)] = p.new_name
    return [{"op": "rename_sheet", "sheet": sheet, "new_name": p.new_name}], [quote_sheet(p.new_name)]


@FUNCTIONS.function("delete_sheet", DeleteSheet, "Delete a sheet and everything on it.", destructive=True,
                    acts_on="sheets")
def delete_sheet(doc: CalcAdapter, p: DeleteSheet, sheets: list[str]) -> Plan:
    sheet = doc.sheet(p.sheet, sheets)
    if len(sheets) == 1:
        raise InvalidAction("The last sheet of a spreadsheet cannot be deleted.",
                            hint="Add another sheet first, or clear this one.")
    sheets.remove(sheet)
    return [{"op": "delete_sheet", "sheet": sheet}], [quote_sheet(sheet)]


@FUNCTIONS.function("sort_range", SortRange, "Sort the rows of a range by up to three columns.", acts_on="cells")
def sort_range(doc: CalcAdapter, p: SortRange, sheets: list[str]) -> Plan:
    where = doc.cell_range(p.range, sheets)
    keys = []
    for key in p.keys:
        column = column_index(key.column)
        if not where.col <= column <= where.col2:
            raise InvalidAction(f"Sort column {key.column!r} is outside the range {p.range!r}.",
                                hint=f"Pick a column between {column_letters(where.col)} and "
                                f"{column_letters(where.col2)}.", code="bad_params")
        keys.append({"column": column, "descending": key.descending})
    step = {"op": "sort_range", **where.engine_args(), "keys": keys, "has_header": p.has_header}
    return [step], cell_ids(where)


@FUNCTIONS.function("format_range", FormatRange, "Set bold, number format and/or background on a range.",
                    acts_on="cells")
def format_range(doc: CalcAdapter, p: FormatRange, sheets: list[str]) -> Plan:
    where = doc.cell_range(p.range, sheets)
    style = {k: getattr(p, k) for k in ("bold", "number_format", "background") if k in p.model_fields_set}
    if not style or ("bold" in style and style["bold"] is None) or ("number_format" in style and not style["number_format"]):
        raise InvalidAction("format_range needs bold (true/false), number_format (text) and/or background.",
                            hint='e.g. {"range": "Sheet1!B2:B9", "bold": true, "number_format": "0.00"}.',
                            code="bad_params")
    return [{"op": "format_range", **where.engine_args(), "style": style}], cell_ids(where)


FUNCTIONS.add("save", save_function("document"))


def _require_free(name: str, sheets: list[str]) -> None:
    if name.casefold() in (s.casefold() for s in sheets):
        raise InvalidAction(f"A sheet named {name!r} already exists.", hint="Pick another name.", code="sheet_exists")


def cell_ids(where: CellRange) -> list[str]:
    """The ids a change to ``where`` reports: its cells, or the range itself when it is large."""
    return where.cell_ids() if where.size <= 100 else [str(where)]


VOCABULARY = Vocabulary(
    app="calc",
    action_types=FILE_ACTION_TYPES,
    target_format="modify_file: the open document (or none); "
    "set_value: a cell like Sheet1!B3; invoke_function: a function name; "
    "navigate: a sheet name or a cell to show",
    set_value_params=SetValue,
    navigate_params=Navigate,
    examples=[
        {"action_type": "set_value", "target": "Sheet1!B3", "params": {"value": 42}},
        {"action_type": "set_value", "target": "Sheet1!C3", "params": {"formula": "=SUM(B1:B3)"}},
        {"action_type": "set_value", "target": "Sheet1!E2", "params": {"value": "2026-12-01"}},
        {"action_type": "set_value", "target": "Sheet1!F2", "params": {"value": "00123", "as_text": True}},
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
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "set_value", "target": "Sheet1!E1", "params": {"value": "Checked"}},
            {"op": "format_range", "params": {"range": "Sheet1!E1", "bold": True}}]}},
    ],
    tips=[
        "Cell ids look like Sheet1!B3; quote sheet names with spaces: 'My Sheet'!B3. The sheet may be omitted "
        "for the sheet in view.",
        "Formulas use Excel syntax with commas and English names: =IF(A2>0,\"yes\",\"no\"), ='Other Sheet'!B2*2. "
        "LibreOffice computes them; observations show the results.",
        "A string value starting with '=' is a formula. Other strings are read like typed input: '80' is the "
        "number 80, '2026-12-01' a date, '12%' is 0.12 shown as a percentage (LibreOffice's en-US input locale "
        "here: '1,5' stays text). Pass as_text: true to keep a string as text, e.g. '00123'.",
        "Observations show a window of non-empty cells; use navigate (target a sheet or a cell) to page.",
        "Meta 'display' appears only where the shown text differs from the value.",
        "A batch is atomic: if one action fails, none of it is applied.",
        MODIFY_FILE_TIP,
    ],
)
