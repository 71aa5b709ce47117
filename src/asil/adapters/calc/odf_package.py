"""An ``.ods`` package held in memory as XML (lxml), edited cell by cell with no LibreOffice (the generic
package handling is ``asil.adapters.odf.package``, shared with the Writer and Impress file paths).

Rows and cells that the file stores as repeated runs (LibreOffice writes ``number-rows-repeated``
of a million) are split only where an edit lands, so a run is never expanded as a whole.
Every other part of the package (styles, settings, pictures, manifest) is written back byte for byte.
"""

from __future__ import annotations

import copy

from lxml import etree

from asil.adapters.odf.package import NS, OdfPackage, drop_attribute, q
from asil.protocol import ActionFailed

ROW_GROUPS = ("table-header-rows", "table-row-group", "table-rows")
COLUMN_GROUPS = ("table-header-columns", "table-column-group", "table-columns")
ROW, CELL, COVERED, COLUMN, TABLE = (q("table", "table-row"), q("table", "table-cell"),
                                     q("table", "covered-table-cell"), q("table", "table-column"),
                                     q("table", "table"))
ROWS_REPEATED, COLS_REPEATED = q("table", "number-rows-repeated"), q("table", "number-columns-repeated")


class OdsPackage(OdfPackage):
    """An ``.ods`` package (the generic ODF package, ``asil.adapters.odf.package``) seen as sheets."""

    # ------------------------------------------------------------ sheets
    def body(self) -> etree._Element:
        found = self.content.find(f"{q('office', 'body')}/{q('office', 'spreadsheet')}")
        if found is None:
            raise ActionFailed("content.xml holds no spreadsheet.", code="bad_document")
        return found

    def tables(self) -> list[etree._Element]:
        return self.body().findall(TABLE)

    def table(self, name: str) -> etree._Element:
        for table in self.tables():
            if table.get(q("table", "name")) == name:
                return table
        raise ActionFailed(f"There is no sheet named {name!r}.", code="no_sheet")


# ---------------------------------------------------------------- rows, columns and cells


def rows_of(table: etree._Element) -> list[etree._Element]:
    """The row elements of a sheet in order (inside header rows and groups too)."""
    return [row for row in table.iter(ROW)]


def columns_of(table: etree._Element) -> list[etree._Element]:
    return [column for column in table.iter(COLUMN)]


def _count(el: etree._Element, attr: str) -> int:
    raw = el.get(attr)
    return int(raw) if raw and raw.isdigit() else 1


def _isolate(runs: list[etree._Element], index: int, attr: str) -> etree._Element | None:
    """The element covering ``index`` alone: its run is split into before / it / after copies."""
    start = 0
    for el in runs:
        count = _count(el, attr)
        if start <= index < start + count:
            before, after = index - start, start + count - index - 1
            if before:
                head = copy.deepcopy(el)
                _set_count(head, attr, before)
                el.addprevious(head)
            if after:
                tail = copy.deepcopy(el)
                _set_count(tail, attr, after)
                el.addnext(tail)
            _set_count(el, attr, 1)
            return el
        start += count
    return None


def _set_count(el: etree._Element, attr: str, count: int) -> None:
    if count == 1:
        drop_attribute(el, attr)
    else:
        el.set(attr, str(count))


def _total(runs: list[etree._Element], attr: str) -> int:
    return sum(_count(el, attr) for el in runs)


def row_at(table: etree._Element, index: int) -> etree._Element:
    """The row element of 0-based ``index`` alone, created (empty) when the sheet stores fewer rows."""
    rows = rows_of(table)
    missing = index + 1 - _total(rows, ROWS_REPEATED)
    if missing > 0:
        parent = rows[-1].getparent() if rows else table
        assert parent is not None
        filler = etree.SubElement(parent, ROW)
        _set_count(filler, ROWS_REPEATED, missing)
        etree.SubElement(filler, CELL)
        rows = rows_of(table)
    found = _isolate(rows, index, ROWS_REPEATED)
    assert found is not None
    return found


def cells_of(row: etree._Element) -> list[etree._Element]:
    return [cell for cell in row if cell.tag in (CELL, COVERED)]


def cell_at(table: etree._Element, col: int, row: int) -> etree._Element:
    """The cell element at 0-based ``col``/``row`` alone, created (empty) when the row stores fewer cells."""
    line = row_at(table, row)
    cells = cells_of(line)
    missing = col + 1 - _total(cells, COLS_REPEATED)
    if missing > 0:
        filler = etree.SubElement(line, CELL)
        _set_count(filler, COLS_REPEATED, missing)
        cells = cells_of(line)
    found = _isolate(cells, col, COLS_REPEATED)
    assert found is not None
    return found


def remove_rows(table: etree._Element, index: int, count: int) -> None:
    for _ in range(count):
        if index >= _total(rows_of(table), ROWS_REPEATED):
            return
        row = row_at(table, index)
        parent = row.getparent()
        assert parent is not None
        parent.remove(row)


def insert_rows(table: etree._Element, index: int, count: int) -> None:
    if index >= _total(rows_of(table), ROWS_REPEATED):
        return  # past the stored rows everything is empty already
    anchor = row_at(table, index)
    fresh = etree.Element(ROW)
    if anchor.get(q("table", "style-name")):
        fresh.set(q("table", "style-name"), anchor.get(q("table", "style-name"), ""))
    _set_count(fresh, ROWS_REPEATED, count)
    etree.SubElement(fresh, CELL)
    anchor.addprevious(fresh)


def remove_columns(table: etree._Element, index: int, count: int) -> None:
    for line in _distinct_rows(table):
        for _ in range(count):
            if index < _total(cells_of(line), COLS_REPEATED):
                _drop(_isolate(cells_of(line), index, COLS_REPEATED))
    for _ in range(count):
        if index < _total(columns_of(table), COLS_REPEATED):
            _drop(_isolate(columns_of(table), index, COLS_REPEATED))


def insert_columns(table: etree._Element, index: int, count: int) -> None:
    for line in _distinct_rows(table):
        if index < _total(cells_of(line), COLS_REPEATED):
            fresh = etree.Element(CELL)
            _set_count(fresh, COLS_REPEATED, count)
            anchor = _isolate(cells_of(line), index, COLS_REPEATED)
            assert anchor is not None
            anchor.addprevious(fresh)
    if index < _total(columns_of(table), COLS_REPEATED):
        column = _isolate(columns_of(table), index, COLS_REPEATED)
        assert column is not None
        fresh = copy.deepcopy(column)
        _set_count(fresh, COLS_REPEATED, count)
        column.addprevious(fresh)


def _distinct_rows(table: etree._Element) -> list[etree._Element]:
    return rows_of(table)  # a repeated row is one element: changing its cells changes every repeat alike


def _drop(el: etree._Element | None) -> None:
    if el is not None and el.getparent() is not None:
        parent = el.getparent()
        assert parent is not None
        parent.remove(el)


__all__ = ["NS", "OdsPackage", "drop_attribute", "q"]
