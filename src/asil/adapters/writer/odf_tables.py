"""Tables of an ``.odt`` held as XML (Writer file path): new tables, cell blocks, added and deleted rows."""

from __future__ import annotations

from lxml import etree

from asil.adapters.odf.package import OdfPackage, q, remove
from asil.adapters.odf.text import AutomaticStyles
from asil.adapters.writer.odf_blocks import (
    CELL,
    COLUMN,
    ROW,
    TABLE,
    column_count,
    empty_row_like,
    row_cells,
    table_rows,
    write_cell,
)
from asil.adapters.writer.odf_styles import StyleBook
from asil.protocol import ActionFailed

BORDER = "0.5pt solid #000000"


def new_table(package: OdfPackage, styles: StyleBook, name: str, rows: list[list[str]]) -> etree._Element:
    """A table like the one LibreOffice inserts: full width, thin borders, a header row then contents."""
    autos = AutomaticStyles(package)
    width = max(len(r) for r in rows)
    table_props = etree.Element(q("style", "table-properties"))
    table_props.set(q("table", "align"), "margins")
    table_style = autos.add(f"{name}.", "table", {}, [table_props])
    cell_props = etree.Element(q("style", "table-cell-properties"))
    cell_props.set(q("fo", "padding"), "0.97mm")
    cell_props.set(q("fo", "border"), BORDER)
    cell_style = autos.add(f"{name}.C", "table-cell", {}, [cell_props])
    heading, contents = styles.use("paragraph", "Table Heading"), styles.use("paragraph", "Table Contents")
    table = etree.Element(TABLE)
    table.set(q("table", "name"), name)
    table.set(q("table", "style-name"), table_style)
    column = etree.SubElement(table, COLUMN)
    if width > 1:
        column.set(q("table", "number-columns-repeated"), str(width))
    for number, values in enumerate(rows):
        row = etree.SubElement(table, ROW)
        for col in range(width):
            cell = etree.SubElement(row, CELL)
            cell.set(q("table", "style-name"), cell_style)
            paragraph = etree.SubElement(cell, q("text", "p"))
            paragraph.set(q("text", "style-name"), heading if number == 0 else contents)
            write_cell(cell, values[col] if col < len(values) and values[col] is not None else "")
    return table


def set_cells(table: etree._Element, name: str, col: int, row: int, rows: list[list[str]]) -> None:
    width = max(len(r) for r in rows)
    columns = column_count(table)
    if col + width > columns:
        raise ActionFailed(f"The values run past the last column of {name}.",
                           hint=f"{name} has {columns} columns; add columns with add_table_columns.", code="out_of_table")
    need = row + len(rows) - len(table_rows(table))
    if need > 0:
        add_rows(table, need, None)
    lines = table_rows(table)
    for r, values in enumerate(rows):
        cells = row_cells(lines[row + r])
        for c, value in enumerate(values):
            if col + c >= len(cells) or cells[col + c].tag != CELL:
                raise ActionFailed(f"Cell {c + col + 1} of row {row + r + 1} of {name} is merged or missing, which "
                                   "the file-backed access path does not write.",
                                   hint='Use the dispatch access path (access_path "dispatch").',
                                   code="unsupported_on_file_path")
            write_cell(cells[col + c], "" if value is None else str(value))


def add_rows(table: etree._Element, count: int, position: int | None) -> None:
    lines = table_rows(table)
    at = len(lines) if position is None else min(position, len(lines))
    model = lines[min(at, len(lines) - 1)] if at < len(lines) else lines[-1]
    for _ in range(count):
        fresh = empty_row_like(model)
        if at < len(lines):
            lines[at].addprevious(fresh)
        else:
            lines[-1].addnext(fresh)
            lines = table_rows(table)


def delete_rows(table: etree._Element, name: str, position: int, count: int) -> None:
    lines = table_rows(table)
    if position + count > len(lines) or count >= len(lines):
        raise ActionFailed(f"{name} has {len(lines)} rows; cannot delete rows {position + 1}..{position + count}.",
                           hint="Delete fewer rows; a table keeps at least one.", code="out_of_table")
    for line in lines[position:position + count]:
        remove(line)


__all__ = ["add_rows", "delete_rows", "new_table", "set_cells"]
