"""An independent reader of ``.ods`` files that uses only the standard library.

It is the second read path that cross-checks what LibreOffice reports, so it never guesses:
whatever it does not understand raises :class:`RawReadError` (fail closed). Repeated rows
and columns stay runs found by bisection; LibreOffice's million-row repeats are never expanded.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, NoReturn, TypedDict

MIMETYPE = "application/vnd.oasis.opendocument.spreadsheet"
_URI = "urn:oasis:names:tc:opendocument:xmlns:"
NS = {"office": _URI + "office:1.0", "table": _URI + "table:1.0", "text": _URI + "text:1.0",
      "style": _URI + "style:1.0", "number": _URI + "datastyle:1.0", "fo": _URI + "xsl-fo-compatible:1.0",
      "draw": _URI + "drawing:1.0",
      "calcext": "urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"}
VALUE_TYPES = {"float": "number", "string": "text", "percentage": "percent", "currency": "currency",
               "date": "date", "time": "time", "boolean": "boolean"}
VALUE_ATTRS = {"date": "date-value", "time": "time-value", "boolean": "boolean-value",
               "string": "string-value"}
GROUPS = {"table-header-rows", "table-row-group", "table-rows",
          "table-header-columns", "table-column-group", "table-columns"}
IGNORED_TABLE_PARTS = {"table-source", "scenario", "shapes", "named-expressions", "title", "desc",
                       "table-protection"}
NUMBER_ATTRS = {"decimal-places", "min-decimal-places", "min-integer-digits", "grouping"}
DATE_CODES = {"year": "YY", "month": "M", "day": "D", "hours": "H", "minutes": "M", "seconds": "S"}
_ADDR = re.compile(r"(\$?[A-Z]{1,3}\$?[0-9]+)|(\$?[A-Z]{1,3})|(\$?[0-9]+)")  # cell | column | row
_ENDPOINT = re.compile(r"(?P<sheet>\$?(?:'(?:[^']|'')+'|[^'.:\[\]\s$][^'.:\[\]\s]*))?\.(?P<addr>[^.:]+)")
_STRING = re.compile(r'"(?:[^"]|"")*"')
_SPACES = re.compile(r"[ \t\r\n]+")


class RawReadError(Exception):
    """The file is not an ODS spreadsheet, or holds something this reader does not understand."""


class RawCell(TypedDict, total=False):
    """One cell as stored in the file; :meth:`RawWorkbook.cell` always fills every key."""

    value: float | str | bool | None
    type: str
    formula: str | None
    bold: bool
    background: str | None
    number_format: str | None


def q(prefix: str, name: str) -> str:
    """Return the ElementTree ``{uri}name`` spelling of ``prefix:name``."""
    return f"{{{NS[prefix]}}}{name}"


CELL_TAGS = (q("table", "table-cell"), q("table", "covered-table-cell"))


def _fail(message: str) -> NoReturn:
    raise RawReadError(message)


def _in_ns(el: ET.Element, prefix: str) -> bool:
    return el.tag.startswith(f"{{{NS[prefix]}}}")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


@dataclass
class _Runs:
    """Items that each cover ``count`` consecutive indexes, found by bisection."""

    starts: list[int] = field(default_factory=list)
    items: list[tuple[int, Any]] = field(default_factory=list)
    end: int = 0

    def add(self, count: int, item: Any) -> None:
        self.starts.append(self.end)
        self.items.append((count, item))
        self.end += count

    def get(self, index: int) -> Any:
        pos = bisect_right(self.starts, index) - 1
        return self.items[pos][1] if pos >= 0 and index < self.starts[pos] + self.items[pos][0] else None


@dataclass
class _Sheet:
    rows: _Runs = field(default_factory=_Runs)  # items: (table-row element, _Runs of cell elements)
    columns: _Runs = field(default_factory=_Runs)  # items: default cell style name or None
    used: tuple[int, int] = (0, 0)
    matrices: list[tuple[int, int, int, int]] = field(default_factory=list)  # array formula blocks


def _repeat(el: ET.Element, attr: str) -> int:
    raw = el.get(f"{{{NS['table']}}}{attr}")
    if raw is None:
        return 1
    return int(raw) if raw.isdigit() and int(raw) > 0 else _fail(f"bad table:{attr}={raw!r}")


def _inline_text(el: ET.Element) -> str:
    """Text of a paragraph or span; ``text:s``/``tab``/``line-break`` expanded, whitespace collapsed."""
    parts = [_SPACES.sub(" ", el.text or "")]
    for child in el:
        if child.tag == q("text", "s"):
            count = child.get(q("text", "c"), "1")
            parts.append(" " * int(count) if count.isdigit() else _fail(f"bad text:c={count!r}"))
        elif child.tag in (q("text", "tab"), q("text", "line-break")):
            parts.append("\t" if child.tag == q("text", "tab") else "\n")
        elif child.tag in (q("text", "span"), q("text", "a")):
            parts.append(_inline_text(child))
        elif child.tag != q("text", "soft-page-break"):
            _fail(f"unsupported element in cell text: {child.tag}")
        parts.append(_SPACES.sub(" ", child.tail or ""))
    return "".join(parts)


def _cell_text(cell: ET.Element) -> str | None:
    """The cell's paragraphs joined with newlines; None when it has none."""
    paragraphs = []
    for child in cell:
        if child.tag == q("text", "p"):
            paragraphs.append(_inline_text(child))
        elif child.tag != q("office", "annotation") and not _in_ns(child, "draw"):
            _fail(f"unsupported element in a cell: {child.tag}")
    return "\n".join(paragraphs) if paragraphs else None


def _is_filled(cell: ET.Element) -> bool:
    has_value = cell.get(q("office", "value-type")) or cell.get(q("table", "formula"))
    return bool(has_value or _cell_text(cell))


def _convert_ref(body: str) -> str:
    """``Sheet2.A1:.A3`` -> ``Sheet2!A1:A3``; ``$'Data Two'.B2`` -> ``'Data Two'!B2``; ``.A1`` -> ``A1``."""
    ends = []
    for part in body.split(":"):
        match = _ENDPOINT.fullmatch(part)
        addr = _ADDR.fullmatch(match["addr"]) if match else None
        if not match or not addr:
            _fail(f"unsupported reference [{body}]")
        sheet = match["sheet"].removeprefix("$") if match["sheet"] else None
        ends.append((sheet, match["addr"], addr.lastindex))
    if len(ends) > 2 or len({kind for _, _, kind in ends}) != 1 or (len(ends) == 1 and ends[0][2] != 1):
        _fail(f"unsupported reference [{body}]")
    if ends[-1][0] not in (None, ends[0][0]):
        _fail(f"3-D reference [{body}] has no A1 equivalent")
    return (f"{ends[0][0]}!" if ends[0][0] else "") + ":".join(addr for _, addr, _ in ends)


def convert_formula(formula: str) -> str:
    """Turn an ``of:=`` OpenFormula into Excel A1 syntax (``[.A1]`` -> ``A1``, ``;`` -> ``,``).

    Raises:
        RawReadError: Another formula namespace, or a reference/operator with no safe conversion.
    """
    if not formula.startswith("of:="):
        _fail(f"unsupported formula namespace: {formula[:12]!r}")
    src, out, i, braces = formula[3:], [], 0, 0
    while i < len(src):
        ch = src[i]
        if ch == '"':
            string = _STRING.match(src, i) or _fail(f"unterminated string in {formula!r}")
            out.append(string.group())
            i = string.end()
        elif ch == "[":
            end = src.find("]", i)
            out.append(_convert_ref(src[i + 1:end]) if end > 0 else _fail(f"unterminated [ in {formula!r}"))
            i = end + 1
        elif ch in "]'~!" or (ch == "|" and not braces):  # union/intersection/etc. differ in Excel
            _fail(f"unsupported {ch!r} in formula {formula!r}")
        else:
            braces += {"{": 1, "}": -1}.get(ch, 0)
            out.append({";": ",", "|": ";"}.get(ch, ch))  # inline arrays: {1;2|3;4} -> {1,2;3,4}
            i += 1
    return "".join(out)


def _number_code(el: ET.Element, general_ok: bool = False) -> str:
    """Format code of a ``number:number`` element, e.g. ``0``, ``0.00``, ``#,##0.00``."""
    attrs = {_local(key): value for key, value in el.attrib.items() if key.startswith(f"{{{NS['number']}}}")}
    if el.tag != q("number", "number") or len(el) or set(el.attrib) != {q("number", a) for a in attrs} or (
            set(attrs) - NUMBER_ATTRS):
        _fail(f"unsupported number part {el.tag} {el.attrib}")
    grouping = attrs.get("grouping", "false") == "true"
    if general_ok and attrs == {"min-integer-digits": "1"}:
        return "General"  # LibreOffice's "General" is a number:number with no decimal-places
    try:
        min_int, places = int(attrs["min-integer-digits"]), int(attrs["decimal-places"])
        min_places = int(attrs.get("min-decimal-places", places))
    except (KeyError, ValueError):
        _fail(f"unsupported number part {el.attrib}")
    if not 0 <= min_places <= places or min_int < 0:
        _fail(f"unsupported number part {el.attrib}")
    integer = "0" * min_int or "#"
    if grouping:  # "#,##0" / "#,###" / "00,000"
        digits = "#" * max(0, 4 - min_int) + "0" * min_int
        integer = ",".join(reversed([digits[max(0, end - 3):end] for end in range(len(digits), 0, -3)]))
    return integer + ("." + "0" * min_places + "#" * (places - min_places) if places else "")


def _datetime_code(style: ET.Element) -> str:
    """Format code of a date or time style, e.g. ``YYYY-MM-DD``, ``DD.MM.YY``, ``[HH]:MM``."""
    out, bracket_hours = [], style.get(q("number", "truncate-on-overflow")) == "false"
    for child in style:
        tag, long = _local(child.tag), child.get(q("number", "style")) == "long"
        if child.get(q("number", "calendar"), "gregorian") != "gregorian" or child.get(
                q("number", "decimal-places"), "0") != "0":
            _fail(f"unsupported date/time part {child.tag} {child.attrib}")
        if tag == "text":
            text = child.text or ""
            if '"' in text:
                _fail(f"unsupported literal {text!r} in a date/time format")
            out.append(text if set(text) <= set("-./:, ") else f'"{text}"')
        elif tag == "month" and child.get(q("number", "textual")) == "true":
            out.append("MMMM" if long else "MMM")
        elif tag in DATE_CODES:
            code = ("YYYY" if tag == "year" else DATE_CODES[tag] * 2) if long else DATE_CODES[tag]
            if tag == "hours" and bracket_hours:
                code, bracket_hours = f"[{code}]", False
            out.append(code)
        elif tag == "am-pm":
            out.append("AM/PM")
        else:
            _fail(f"unsupported date/time part {child.tag}")
    return "".join(out)


def format_code(style: ET.Element) -> str:
    """Reconstruct a LibreOffice-style format code from a ``number:*-style`` element.

    Raises:
        RawReadError: Conditional maps, colours, scientific/fraction/other forms, literal text.
    """
    kind, parts = _local(style.tag), list(style)
    tags = [_local(part.tag) for part in parts]
    if any(not _in_ns(part, "number") for part in parts):
        _fail(f"data style {style.get(q('style', 'name'))} has conditions or colours")
    if kind == "boolean-style" and tags == ["boolean"]:
        return "BOOLEAN"
    if kind == "text-style" and tags == ["text-content"]:
        return "@"
    if kind == "number-style" and tags == ["number"]:
        return _number_code(parts[0], general_ok=True)
    if kind == "percentage-style" and tags == ["number", "text"] and parts[1].text == "%":
        return _number_code(parts[0]) + "%"
    if kind == "currency-style" and tags == ["currency-symbol", "number"] and parts[0].text:
        return f"currency:{parts[0].text}:{_number_code(parts[1])}"
    if kind in ("date-style", "time-style"):
        return _datetime_code(style)
    _fail(f"cannot reconstruct the format code of {kind} {style.get(q('style', 'name'))}")


def _cell_value(el: ET.Element | None) -> RawCell:
    """value, type and formula of a cell element (None: nothing stored there)."""
    if el is None:
        return {"value": None, "type": "empty", "formula": None}
    source = el.get(q("table", "formula"))
    formula = convert_formula(source) if source else None
    kind, text = el.get(q("office", "value-type")), _cell_text(el)
    if kind is None:
        if text:
            _fail("a cell holds text but no office:value-type")
        if formula:  # LibreOffice writes a formula's empty-string result with no value type
            return {"value": "", "type": "text", "formula": formula}
        return {"value": None, "type": "empty", "formula": None}
    if kind not in VALUE_TYPES:
        _fail(f"unknown office:value-type {kind!r}")
    calc_kind = el.get(q("calcext", "value-type"))  # LibreOffice's own type, "error" for errors
    looks_error = kind == "string" and (text or "").startswith(("#", "Err:"))
    is_error = calc_kind == "error" if calc_kind else looks_error
    if formula and is_error:
        return {"value": text, "type": "error", "formula": formula}
    raw = el.get(q("office", VALUE_ATTRS.get(kind, "value")))
    if kind == "string":
        value: float | str | bool = raw if raw is not None else text or ""
    elif raw is None:
        _fail(f"{kind} cell without its office value attribute")
    elif kind == "boolean":
        value = raw == "true" if raw in ("true", "false") else _fail(f"bad office:boolean-value {raw!r}")
    elif kind in ("date", "time"):
        value = raw  # ISO 8601 as stored, e.g. 2024-01-15 or PT12H00M00S
    else:
        try:
            value = float(raw)
        except ValueError:
            _fail(f"bad office:value {raw!r}")
    return {"value": value, "type": VALUE_TYPES[kind], "formula": formula}


def _bold(weight: str) -> bool:
    if weight in ("bold", "normal"):
        return weight == "bold"
    return int(weight) >= 600 if weight.isdigit() else _fail(f"unsupported font weight {weight!r}")


def _colour(value: str | None) -> str | None:
    if value is None or value == "transparent":
        return None
    return value.upper() if re.fullmatch(r"#[0-9a-fA-F]{6}", value) else _fail(f"bad colour {value!r}")


def _table_parts(parent: ET.Element) -> Iterator[tuple[str, ET.Element]]:
    """(local name, element) of the rows, columns and unknown parts of a table, in order, ungrouped."""
    for el in parent:
        tag = _local(el.tag)
        if tag in GROUPS and _in_ns(el, "table"):
            yield from _table_parts(el)
        elif _in_ns(el, "table") and tag not in IGNORED_TABLE_PARTS:
            yield tag, el


def _parse_xml(archive: zipfile.ZipFile, name: str) -> ET.Element | None:
    if name not in archive.namelist():
        return None
    try:
        return ET.fromstring(archive.read(name))
    except ET.ParseError as exc:
        raise RawReadError(f"{name} is not well-formed XML: {exc}") from exc


class RawWorkbook:
    """An ``.ods`` workbook read straight from its XML (build it with :meth:`load`)."""

    def __init__(self, content: ET.Element, styles: ET.Element | None) -> None:
        self._auto: dict[str, ET.Element] = {}  # automatic cell styles (content.xml)
        self._common: dict[str, ET.Element] = {}  # named cell styles (styles.xml)
        self._data: dict[str, ET.Element] = {}  # number:*-style by name
        self._default: list[ET.Element] = []  # style:default-style for table cells
        self._index_styles(content, styles)
        body = content.find(f"{q('office', 'body')}/{q('office', 'spreadsheet')}")
        self._sheets: dict[str, _Sheet] = {}
        if body is None:
            _fail("content.xml holds no office:spreadsheet")
        for table in body.findall(q("table", "table")):
            name = table.get(q("table", "name"))
            if not name or name in self._sheets:
                _fail(f"missing or duplicate sheet name {name!r}")
            self._sheets[name] = self._index_table(table)

    def _index_styles(self, content: ET.Element, styles: ET.Element | None) -> None:
        for root, section, known in [(content, "automatic-styles", self._auto),
                                     (styles, "styles", self._common), (styles, "automatic-styles", {})]:
            for el in root.findall(q("office", section) + "/*") if root is not None else []:
                name, family = el.get(q("style", "name")), el.get(q("style", "family"))
                if el.tag == q("style", "style") and family == "table-cell" and name:
                    known[name] = el
                elif _in_ns(el, "number") and name:
                    self._data.setdefault(name, el)
                elif el.tag == q("style", "default-style") and family == "table-cell":
                    self._default = [el]

    @classmethod
    def load(cls, path: str | PathLike[str]) -> RawWorkbook:
        """Read an ``.ods`` file.

        Args:
            path: The file to read.

        Raises:
            RawReadError: Not a zip, wrong or missing mimetype, no content.xml, or malformed XML.
        """
        try:
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                mimetype = archive.read("mimetype") if "mimetype" in names else None
                if mimetype is None or not (mimetype == MIMETYPE.encode() or mimetype.startswith(MIMETYPE.encode() + b"-")):
                    # the spreadsheet or one of its ODF variants (a template) Calc opens as well
                    _fail(f"mimetype is {mimetype and mimetype[:80]!r}, not an ODS spreadsheet")
                content = _parse_xml(archive, "content.xml")
                if content is None:
                    _fail("content.xml is missing")
                return cls(content, _parse_xml(archive, "styles.xml"))
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, zlib.error) as exc:
            # RuntimeError: encrypted entries; NotImplementedError: unknown compression
            raise RawReadError(f"cannot read {path} as a zip archive: {exc}") from exc

    def _index_table(self, table: ET.Element) -> _Sheet:
        sheet, used_rows, used_cols = _Sheet(), 0, 0
        for tag, el in _table_parts(table):
            if tag == "table-column":
                style = el.get(q("table", "default-cell-style-name"))
                sheet.columns.add(_repeat(el, "number-columns-repeated"), style)
            elif tag == "table-row":
                cells, repeat = _Runs(), _repeat(el, "number-rows-repeated")
                for cell in el:
                    if cell.tag not in CELL_TAGS:
                        _fail(f"unexpected {cell.tag} in a row")
                    if cell.get(q("table", "number-matrix-columns-spanned")):  # (row, col, rows, cols)
                        height = _repeat(cell, "number-matrix-rows-spanned")
                        width = _repeat(cell, "number-matrix-columns-spanned")
                        sheet.matrices.append((sheet.rows.end, cells.end, height, width))
                    cells.add(_repeat(cell, "number-columns-repeated"), cell)
                    if _is_filled(cell):
                        used_rows, used_cols = sheet.rows.end + repeat, max(used_cols, cells.end)
                sheet.rows.add(repeat, (el, cells))
            else:
                _fail(f"unsupported table element {el.tag}")
        sheet.used = (used_rows, used_cols)
        return sheet

    def sheet_names(self) -> list[str]:
        """Sheet names in document order."""
        return list(self._sheets)

    def used_size(self, sheet: str) -> tuple[int, int]:
        """(rows, cols) of the area from A1 that holds every non-empty cell of ``sheet``."""
        return self._sheet(sheet).used

    def cell(self, sheet: str, col: int, row: int) -> RawCell:
        """The cell at 0-based ``col``/``row`` of ``sheet``; past the stored data it is empty.

        Args:
            sheet: A name from :meth:`sheet_names`.
            col: 0-based column (A is 0).
            row: 0-based row (1 is 0).

        Raises:
            RawReadError: Unknown sheet, or a value, formula or style this reader cannot interpret.
        """
        if col < 0 or row < 0:
            raise ValueError(f"negative cell position ({col}, {row})")
        data = self._sheet(sheet)
        if any(r <= row < r + rows and c <= col < c + cols for r, c, rows, cols in data.matrices):
            _fail(f"cell ({col}, {row}) of {sheet!r} belongs to an array formula, which is not supported")
        row_el, cells = data.rows.get(row) or (None, _Runs())
        el = cells.get(col)
        style = el.get(q("table", "style-name")) if el is not None else None
        if style is None and row_el is not None and row_el.get(q("table", "default-cell-style-name")):
            _fail("row default cell styles are not supported")
        cell = _cell_value(el)
        cell.update(self._style_props(style or data.columns.get(col)))
        return cell

    def _sheet(self, name: str) -> _Sheet:
        return self._sheets[name] if name in self._sheets else _fail(f"no sheet named {name!r}")

    def _style_chain(self, name: str | None) -> list[ET.Element]:
        """The cell style, its parents in styles.xml, then the default cell style."""
        chain: list[ET.Element] = []
        while name:
            el = self._auto.get(name) if not chain and name in self._auto else self._common.get(name)
            if el is None or len(chain) > 32:
                _fail(f"cell style {name!r} is undefined or its parent chain loops")
            chain.append(el)
            name = el.get(q("style", "parent-style-name"))
        return chain + self._default

    def _style_props(self, name: str | None) -> RawCell:
        """bold, background and number_format of a cell style, inherited along its chain."""
        found: dict[str, str] = {}
        for el in self._style_chain(name):
            for key, props, attr in (("weight", "text-properties", "font-weight"),
                                     ("background", "table-cell-properties", "background-color")):
                value = el.find(q("style", props))
                if value is not None and value.get(q("fo", attr)) is not None:
                    found.setdefault(key, value.get(q("fo", attr), ""))
            if el.get(q("style", "data-style-name")):
                found.setdefault("data", el.get(q("style", "data-style-name"), ""))
        data = found.get("data")
        if data is not None and data not in self._data:
            _fail(f"data style {data!r} is undefined")
        return {"bold": _bold(found.get("weight", "normal")), "background": _colour(found.get("background")),
                "number_format": format_code(self._data[data]) if data is not None else None}
