"""The body of an ``.odt`` held as XML, seen as the Writer adapter's blocks: paragraphs (``text:p`` /
``text:h``, inside lists and sections too) and tables, in body order, paragraphs named by ``xml:id``.
Lists, tables and the page are edited here for the Writer file path."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

from asil.adapters.odf.package import OdfPackage, attributes, q, remove
from asil.adapters.odf.text import set_text, text_of
from asil.protocol import ActionFailed

XML_ID = q("xml", "id")
P, H = q("text", "p"), q("text", "h")
LIST, ITEM, LIST_HEADER = q("text", "list"), q("text", "list-item"), q("text", "list-header")
TABLE, ROW, CELL, COVERED, COLUMN = (q("table", "table"), q("table", "table-row"), q("table", "table-cell"),
                                     q("table", "covered-table-cell"), q("table", "table-column"))
ROW_GROUPS = {q("table", n) for n in ("table-header-rows", "table-rows", "table-row-group")}
DESCEND = {LIST, ITEM, LIST_HEADER, q("text", "section")}
STYLE_NAME = q("text", "style-name")


@dataclass
class Block:
    kind: str  # "paragraph" | "table"
    id: str
    el: etree._Element


class OdtPackage(OdfPackage):
    """An ``.odt``: content.xml and styles.xml parsed (styles hold the page, header and footer)."""

    EDITABLE = ("content.xml", "styles.xml")

    def body(self) -> etree._Element:
        found = self.content.find(f"{q('office', 'body')}/{q('office', 'text')}")
        if found is None:
            raise ActionFailed("content.xml holds no text document body.", code="bad_document")
        return found


def blocks_of(body: etree._Element) -> list[Block]:
    """Blocks in body order; paragraphs without an id get the next free ``pN`` (as the dispatch engine does)."""
    found: list[Block] = []
    _walk(body, found)
    top = max((int(m[1]) for b in found if (m := re.fullmatch(r"p(\d+)", b.id))), default=0)
    for block in found:
        if block.kind == "paragraph" and not block.id:
            top += 1
            block.id = f"p{top}"
            block.el.set(XML_ID, block.id)
    return found


def _walk(el: etree._Element, found: list[Block]) -> None:
    for child in el:
        if child.tag in (P, H):
            found.append(Block("paragraph", child.get(XML_ID, ""), child))
        elif child.tag == TABLE:
            found.append(Block("table", child.get(q("table", "name"), ""), child))
        elif child.tag in DESCEND:
            _walk(child, found)


# ---------------------------------------------------------------- lists


def list_of(paragraph: etree._Element) -> tuple[etree._Element, int] | None:
    """The outermost ``text:list`` a paragraph is an item of, and its nesting level (1 = top)."""
    outer, level = None, 0
    parent = paragraph.getparent()
    while parent is not None and parent.tag in (LIST, ITEM, LIST_HEADER):
        if parent.tag == LIST:
            outer, level = parent, level + 1
        parent = parent.getparent()
    return (outer, level) if outer is not None else None


def number_in_list(paragraph: etree._Element, outer: etree._Element) -> int:
    """1-based position of the paragraph's item among the top-level items of its list."""
    items = [item for item in outer if item.tag == ITEM]
    for number, item in enumerate(items, 1):
        if paragraph in item.iter(P, H):
            return number
    return 0


def detach_from_list(paragraph: etree._Element) -> None:
    """Take a list item's paragraph out of its list, splitting the list around it."""
    found = list_of(paragraph)
    if found is None:
        return
    outer, _ = found
    item = paragraph.getparent()
    if item is None or item.getparent() is not outer or len(item) != 1:
        raise ActionFailed("This paragraph is in a nested list or shares its list item, which the file-backed "
                           "access path does not restructure.",
                           hint='Use the dispatch access path (access_path "dispatch") for this edit.',
                           code="unsupported_on_file_path")
    after = list(outer)[outer.index(item) + 1:]
    if after:
        tail = etree.Element(LIST, attributes(outer))
        _drop_id(tail)
        tail.set(q("text", "continue-numbering"), "true")  # one list in LibreOffice: numbering runs on
        for el in after:
            tail.append(el)
        outer.addnext(tail)
    outer.addnext(paragraph)
    remove(item)
    if not len(outer):
        remove(outer)


def _drop_id(el: etree._Element) -> None:
    if XML_ID in el.attrib:
        del el.attrib[XML_ID]


def wrap_in_list(paragraph: etree._Element, list_style: str) -> None:
    """Make a paragraph (not in a list) one item of a new list with ``list_style``; the list joins an
    adjacent list of the same style, so numbering runs on as in LibreOffice."""
    fresh = etree.Element(LIST)
    fresh.set(STYLE_NAME, list_style)
    paragraph.addprevious(fresh)
    etree.SubElement(fresh, ITEM).append(paragraph)
    merge_with_neighbours(fresh)


def merge_with_neighbours(lst: etree._Element) -> None:
    for neighbour, before in ((lst.getprevious(), True), (lst.getnext(), False)):
        if neighbour is not None and neighbour.tag == LIST and neighbour.get(STYLE_NAME) == lst.get(STYLE_NAME):
            if before:
                for el in list(lst):
                    neighbour.append(el)
                remove(lst)
                lst = neighbour
            else:
                for el in list(neighbour):
                    lst.append(el)
                remove(neighbour)


def delete_paragraph(paragraph: etree._Element) -> None:
    """Remove a paragraph; an emptied list item and list go with it."""
    parent = paragraph.getparent()
    remove(paragraph)
    while parent is not None and parent.tag in (ITEM, LIST, LIST_HEADER) and not any(
            isinstance(c.tag, str) for c in parent):
        above = parent.getparent()
        remove(parent)
        parent = above


# ---------------------------------------------------------------- tables


def table_rows(table: etree._Element) -> list[etree._Element]:
    rows: list[etree._Element] = []
    for child in table:
        if child.tag == ROW:
            rows.append(child)
        elif child.tag in ROW_GROUPS:
            rows += [row for row in child if row.tag == ROW]
    return rows


def column_count(table: etree._Element) -> int:
    columns = [c for c in table.iter(COLUMN) if _owner(c) is table]
    return sum(int(c.get(q("table", "number-columns-repeated"), "1")) for c in columns)


def _owner(el: etree._Element) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and parent.tag != TABLE:
        parent = parent.getparent()
    return parent


def row_cells(row: etree._Element) -> list[etree._Element]:
    """A row's cells, repeated cells split into one element each (so each can be written)."""
    for cell in [c for c in row if c.tag in (CELL, COVERED)]:
        repeat = int(cell.get(q("table", "number-columns-repeated"), "1"))
        if repeat > 1:
            del cell.attrib[q("table", "number-columns-repeated")]
            for _ in range(repeat - 1):
                cell.addnext(etree.fromstring(etree.tostring(cell)))
    return [c for c in row if c.tag in (CELL, COVERED)]


def cell_text(cell: etree._Element) -> str:
    return "\n".join(text_of(p) for p in cell.iter(P, H))


def table_info(table: etree._Element, limit_rows: int | None = None) -> dict[str, Any]:
    rows = table_rows(table)
    cells = [[cell_text(c) for c in _read_cells(row)] for row in rows]
    return {"name": table.get(q("table", "name")), "rows": len(rows), "cols": column_count(table),
            "cells": cells if limit_rows is None else cells[:limit_rows]}


def _read_cells(row: etree._Element) -> list[etree._Element]:
    out: list[etree._Element] = []
    for cell in row:
        if cell.tag in (CELL, COVERED):
            out += [cell] * int(cell.get(q("table", "number-columns-repeated"), "1"))
    return out


def write_cell(cell: etree._Element, text: str) -> None:
    """A cell's text: its first paragraph keeps its style and takes the text; further paragraphs go."""
    paragraphs = list(cell.iter(P, H))
    if not paragraphs:
        first = etree.SubElement(cell, P)
        first.set(STYLE_NAME, "Table_20_Contents")
        paragraphs = [first]
    for extra in paragraphs[1:]:
        remove(extra)
    set_text(paragraphs[0], text)
    if cell.tag == CELL:
        cell.set(q("office", "value-type"), "string")
        for attr in ("value", "date-value", "time-value", "boolean-value"):
            if q("office", attr) in cell.attrib:
                del cell.attrib[q("office", attr)]


def empty_row_like(row: etree._Element) -> etree._Element:
    """A copy of ``row`` with every cell emptied (LibreOffice's new rows take the formatting of their neighbour)."""
    fresh = etree.fromstring(etree.tostring(row))
    for cell in row_cells(fresh):
        if cell.tag == CELL:
            write_cell(cell, "")
    return fresh


__all__ = ["Block", "OdtPackage", "blocks_of", "table_info"]
