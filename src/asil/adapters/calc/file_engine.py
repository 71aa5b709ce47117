"""The file-backed access path of the Calc adapter: the engine ops of ``lo_scripts/asil_calc.py``,
done on the ``.ods`` package's XML with lxml and no LibreOffice.

It answers the same requests with the same JSON shapes, so the adapter's planner, observation
builder and function table are shared by both paths. What it cannot do, it says:

* formulas are translated and stored but never computed. Once the document is edited every formula's
  stored result may be stale, so all are written without one and observed as ``uncomputed`` (value
  null); LibreOffice computes them when it next opens the file (the evaluator does).
* export, render and unknown-function checks need LibreOffice and are refused (``unsupported_on_file_path``).
"""

from __future__ import annotations

import copy
import datetime as dt
import re
import xml.etree.ElementTree as ET
from functools import cmp_to_key
from pathlib import Path
from typing import Any

from lxml import etree

from asil.adapters.calc import odf_cells as cells
from asil.adapters.calc import odf_package as pkg
from asil.adapters.calc.odf_formula import deletion, insertion, move_references
from asil.adapters.calc.raw import RawCell, RawReadError, RawWorkbook
from asil.adapters.odf.engine import FileEngineOps
from asil.protocol import ActionFailed, InvalidAction

UNSUPPORTED = cells.UNSUPPORTED
_DURATION = re.compile(r"^PT(\d+)H(\d+)M(\d+(?:\.\d+)?)S$")
_READ_ONLY = {"info", "observe", "cells", "save"}


class OdfFileEngine(FileEngineOps[pkg.OdsPackage]):
    """One ``.ods`` open as XML: the engine ops the Calc adapter calls (``call(op, **args)``)."""

    def __init__(self, path: Path):
        self.package = pkg.OdsPackage.load(path)
        self.dirty = False
        self.stale = False  # formulas' stored results no longer trusted (set by the first edit)
        self._book: RawWorkbook | None = None

    def call(self, op: str, **args: Any) -> Any:
        """Run one engine request; a change that fails part-way is undone whole (as on the dispatch path)."""
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise ActionFailed(f"'{op}' needs LibreOffice, which the file-backed access path does not run.",
                               hint="Use the dispatch access path for exports and renders.", code=UNSUPPORTED)
        if op in _READ_ONLY:
            return handler(**args)
        saved, before = copy.deepcopy(self.package.content), (self.dirty, self.stale)
        try:
            result = handler(**args)
        except Exception:
            self.package.content, self._book = saved, None
            self.dirty, self.stale = before
            raise
        if op != "batch":
            self._changed()
        return result

    def _changed(self) -> None:
        self.dirty, self.stale, self._book = True, True, None
        for table in self.package.tables():
            for cell in table.iter(pkg.CELL):
                formula = cell.get(pkg.q("table", "formula"))
                if formula is not None:  # drop the stored result; LibreOffice recomputes a formula without one
                    cells.clear_content(cell)
                    cell.set(pkg.q("table", "formula"), formula)

    # ------------------------------------------------------------ reading
    def book(self) -> RawWorkbook:
        if self._book is None:
            styles = self.package.styles_xml()
            try:
                self._book = RawWorkbook(ET.fromstring(self.package.content_xml()),
                                         ET.fromstring(styles) if styles else None)
            except RawReadError as exc:
                raise ActionFailed(f"The file-backed path cannot read this spreadsheet: {exc}.",
                                   hint="Use the dispatch access path for it.", code=UNSUPPORTED) from None
        return self._book

    def op_info(self) -> dict[str, Any]:
        book = self.book()
        sheets = [{"name": name, "rows": book.used_size(name)[0], "cols": book.used_size(name)[1]}
                  for name in book.sheet_names()]
        return {"sheets": sheets, "dirty": self.dirty}

    def op_observe(self, sheet: str, row: int, col: int, rows: int, cols: int) -> dict[str, Any]:
        info = self.op_info()
        positions = [(c, r) for r in range(row, row + rows) for c in range(col, col + cols)]
        info["cells"] = [cell for cell in self.op_cells(sheet, positions) if cell["type"] != "empty"]
        return info

    def op_cells(self, sheet: str, positions: list[list[int]] | list[tuple[int, int]]) -> list[dict[str, Any]]:
        book = self.book()
        self._sheet_exists(sheet)
        try:
            return [self._engine_cell(c, r, book.cell(sheet, c, r)) for c, r in positions]
        except RawReadError as exc:
            raise ActionFailed(f"The file-backed path cannot read a cell of {sheet!r}: {exc}.",
                               hint="Use the dispatch access path for this document.", code=UNSUPPORTED) from None

    def _engine_cell(self, col: int, row: int, raw: RawCell) -> dict[str, Any]:
        out: dict[str, Any] = {"col": col, "row": row}
        if raw.get("formula"):
            out["formula"] = raw["formula"]
        kind, value = _engine_value(raw)
        if "formula" in out and self.stale:
            kind, value = "uncomputed", None
        out.update(type=kind, value=value, display=_display(kind, raw.get("value")))
        if raw.get("bold"):
            out["bold"] = True
        if raw.get("number_format") not in (None, "General"):
            out["number_format"] = raw["number_format"]
        if raw.get("background"):
            out["background"] = raw["background"]
        return out

    def _sheet_exists(self, sheet: str) -> None:
        if sheet not in self.book().sheet_names():
            raise InvalidAction(f"There is no sheet named {sheet!r}.",
                                hint=f"Sheets: {', '.join(self.book().sheet_names())}.", code="no_sheet")

    # ------------------------------------------------------------ cells
    def op_set_range(self, sheet: str, col: int, row: int, values: list[list[Any]], as_text: bool = True) -> bool:
        table = self.package.table(sheet)
        for r, line in enumerate(values):
            for c, value in enumerate(line):
                cells.write_value(self.package, pkg.cell_at(table, col + c, row + r), value, typed=not as_text)
        return True

    def op_clear_range(self, sheet: str, col: int, row: int, col2: int, row2: int, formats: bool = False) -> bool:
        table = self.package.table(sheet)
        for r in range(row, row2 + 1):
            for c in range(col, col2 + 1):
                cell = pkg.cell_at(table, c, r)
                cells.clear_content(cell)
                if formats:
                    pkg.drop_attribute(cell, pkg.q("table", "style-name"))
        return True

    def op_format_range(self, sheet: str, col: int, row: int, col2: int, row2: int, style: dict[str, Any]) -> bool:
        table = self.package.table(sheet)
        for r in range(row, row2 + 1):
            for c in range(col, col2 + 1):
                cell = pkg.cell_at(table, c, r)
                cells.restyle(self.package, cell, style)
                if style.get("number_format"):
                    _retype_number(cell, cells.value_kind_for(style["number_format"]))
        return True

    def op_sort_range(self, sheet: str, col: int, row: int, col2: int, row2: int, keys: list[dict[str, Any]],
                      has_header: bool) -> bool:
        table, first = self.package.table(sheet), row + (1 if has_header else 0)
        lines = [[pkg.cell_at(table, c, r) for c in range(col, col2 + 1)] for r in range(first, row2 + 1)]
        if any(cell.get(pkg.q("table", "formula")) for line in lines for cell in line):
            raise ActionFailed("The file-backed path cannot sort formulas: it has no engine to compute "
                               "the values to sort by or to move their references.",
                               hint="Use the dispatch access path to sort ranges with formulas.", code=UNSUPPORTED)
        values = [[self._engine_cell(c, r, self.book().cell(sheet, c, r))["value"] for c in range(col, col2 + 1)]
                  for r in range(first, row2 + 1)]
        def by_keys(a: int, b: int) -> int:
            return _compare_rows(values[a], values[b], keys, col)

        order = sorted(range(len(lines)), key=cmp_to_key(by_keys))
        copies = [[copy.deepcopy(cell) for cell in lines[i]] for i in order]
        for line, new in zip(lines, copies, strict=True):
            for old, fresh in zip(line, new, strict=True):
                old.addprevious(fresh)
                _remove(old)
        return True

    # ------------------------------------------------------------ rows, columns, sheets
    def _lines(self, sheet: str, index: int, count: int, axis: str, insert: bool) -> bool:
        table = self.package.table(sheet)
        change = {("row", True): pkg.insert_rows, ("row", False): pkg.remove_rows,
                  ("col", True): pkg.insert_columns, ("col", False): pkg.remove_columns}[(axis, insert)]
        change(table, index, count)
        shift = (insertion if insert else deletion)(sheet, index, count)
        self._move_formulas(lambda name: name, shift, axis)
        return True

    def op_insert_rows(self, sheet: str, index: int, count: int) -> bool:
        return self._lines(sheet, index, count, "row", True)

    def op_delete_rows(self, sheet: str, index: int, count: int) -> bool:
        return self._lines(sheet, index, count, "row", False)

    def op_insert_columns(self, sheet: str, index: int, count: int) -> bool:
        return self._lines(sheet, index, count, "col", True)

    def op_delete_columns(self, sheet: str, index: int, count: int) -> bool:
        return self._lines(sheet, index, count, "col", False)

    def op_add_sheet(self, name: str, position: int | None = None) -> bool:
        tables = self.package.tables()
        fresh = etree.Element(pkg.TABLE)
        fresh.set(pkg.q("table", "name"), name)
        etree.SubElement(fresh, pkg.COLUMN)
        etree.SubElement(etree.SubElement(fresh, pkg.ROW), pkg.CELL)
        where = len(tables) if position is None else position
        if where < len(tables):
            tables[where].addprevious(fresh)
        else:
            tables[-1].addnext(fresh)
        return True

    def op_rename_sheet(self, sheet: str, new_name: str) -> bool:
        self.package.table(sheet).set(pkg.q("table", "name"), new_name)
        self._move_formulas(lambda name: new_name if name == sheet else name, None, "row")
        return True

    def op_delete_sheet(self, sheet: str) -> bool:
        _remove(self.package.table(sheet))
        self._move_formulas(lambda name: name, lambda where, s, e: None if where == sheet else (s, e), "row")
        return True

    def _move_formulas(self, rename: Any, shift: Any, axis: str) -> None:
        attr = pkg.q("table", "formula")
        for table in self.package.tables():
            own = table.get(pkg.q("table", "name"), "")
            for cell in table.iter(pkg.CELL):
                formula = cell.get(attr)
                if formula:
                    cell.set(attr, move_references(formula, own, rename, shift, axis))



def _engine_value(raw: RawCell) -> tuple[str, Any]:
    """(type, value) as the dispatch engine reports them: dates and times as day serials, booleans as 0/1."""
    kind, value = raw["type"], raw.get("value")
    if kind == "date" and isinstance(value, str):
        moment = dt.datetime.fromisoformat(value)
        serial = (moment - dt.datetime(1899, 12, 30)).total_seconds() / 86400
        return ("datetime" if "T" in value else "date"), serial
    if kind == "time" and isinstance(value, str):
        found = _DURATION.match(value)
        if found is None:
            raise ActionFailed(f"The file-backed path cannot read the time {value!r}.", code=UNSUPPORTED)
        hours, minutes, seconds = int(found[1]), int(found[2]), float(found[3])
        return "time", (hours * 3600 + minutes * 60 + seconds) / 86400
    if kind == "boolean":
        return "boolean", 1.0 if value else 0.0
    return kind, value


def _display(kind: str, value: Any) -> str:
    if kind in ("empty", "uncomputed") or value is None:
        return ""
    if kind == "boolean":
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _retype_number(cell: etree._Element, kind: str) -> None:
    """A number cell given a new format keeps its value and takes the value type the format implies."""
    current = cell.get(pkg.q("office", "value-type"))
    if current not in ("float", "percentage", "date") or current == kind:
        return
    if current == "date":
        return  # a date stays a date; converting it back to a serial is not something tasks ask of this path
    number = float(cell.get(pkg.q("office", "value"), "0"))
    if kind == "date":
        cells.write_date(cell, dt.date(1899, 12, 30) + dt.timedelta(days=int(number)))
    else:
        cells.write_number(cell, number, kind)


def _compare_rows(a: list[Any], b: list[Any], keys: list[dict[str, Any]], first_col: int) -> int:
    for key in keys:
        x, y = a[key["column"] - first_col], b[key["column"] - first_col]
        if x is None or y is None:  # empty cells sort last both ways, as in Calc
            result = (x is None) - (y is None)
            if result:
                return result
            continue
        result = _compare_values(x, y)
        if result:
            return -result if key["descending"] else result
    return 0


def _compare_values(x: Any, y: Any) -> int:
    """Calc's order: numbers before text, text without case."""
    x_text, y_text = isinstance(x, str), isinstance(y, str)
    if x_text != y_text:
        return 1 if x_text else -1
    left, right = (x.casefold(), y.casefold()) if x_text else (x, y)
    return int(left > right) - int(left < right)


def _remove(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)


__all__ = ["OdfFileEngine"]
