"""Writing cell contents and cell styles straight into ODF XML (the file-backed access path).

Values are written the way LibreOffice stores them (``office:value-type`` + value attribute + the
displayed ``text:p``). Formulas are written *without* a cached result: the file path cannot compute
one, and a formula cell with no result is one LibreOffice computes when it opens the file.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from lxml import etree

from asil.adapters.calc.odf_formula import to_openformula
from asil.adapters.calc.odf_package import OdsPackage, drop_attribute, q
from asil.protocol import ActionFailed

UNSUPPORTED = "unsupported_on_file_path"
_VALUE_ATTRS = [q("office", a) for a in ("value-type", "value", "date-value", "time-value", "boolean-value",
                                         "string-value", "currency")] + [q("calcext", "value-type"),
                                                                         q("table", "formula")]
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_PERCENT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)%$")
# number formats the file path can write, as the ODF data-style LibreOffice itself writes for them
_NUMBER_PARTS = {"0": (0, False), "0.0": (1, False), "0.00": (2, False), "#,##0": (0, True),
                 "#,##0.00": (2, True)}


def clear_content(cell: etree._Element) -> None:
    for attr in _VALUE_ATTRS:
        drop_attribute(cell, attr)
    for child in list(cell):
        cell.remove(child)


def _paragraph(cell: etree._Element, text: str) -> None:
    """``text`` as ``text:p`` lines; spaces ODF would collapse (leading, trailing, doubled) kept as ``text:s``."""
    for line in text.split("\n"):
        para = etree.SubElement(cell, q("text", "p"))
        last: etree._Element | None = None
        for number, piece in enumerate(re.split(r"(^ +| {2,}| +$)", line)):
            if number % 2:  # a captured run of spaces
                last = etree.SubElement(para, q("text", "s"))
                if len(piece) > 1:
                    last.set(q("text", "c"), str(len(piece)))
            elif last is None:
                para.text = (para.text or "") + piece
            else:
                last.tail = (last.tail or "") + piece


def write_text(cell: etree._Element, text: str) -> None:
    clear_content(cell)
    cell.set(q("office", "value-type"), "string")
    cell.set(q("calcext", "value-type"), "string")
    _paragraph(cell, text)


def write_number(cell: etree._Element, number: float, kind: str = "float") -> None:
    clear_content(cell)
    shown = repr(int(number)) if float(number).is_integer() and abs(number) < 2**53 else repr(float(number))
    cell.set(q("office", "value-type"), kind)
    cell.set(q("office", "value"), shown)
    cell.set(q("calcext", "value-type"), kind)
    _paragraph(cell, shown if kind != "percentage" else f"{number * 100:g}%")


def write_date(cell: etree._Element, day: dt.date) -> None:
    clear_content(cell)
    cell.set(q("office", "value-type"), "date")
    cell.set(q("office", "date-value"), day.isoformat())
    cell.set(q("calcext", "value-type"), "date")
    _paragraph(cell, day.isoformat())


def write_boolean(cell: etree._Element, flag: bool) -> None:
    clear_content(cell)
    cell.set(q("office", "value-type"), "boolean")
    cell.set(q("office", "boolean-value"), "true" if flag else "false")
    cell.set(q("calcext", "value-type"), "boolean")
    _paragraph(cell, "TRUE" if flag else "FALSE")


def write_formula(cell: etree._Element, formula: str) -> None:
    clear_content(cell)
    cell.set(q("table", "formula"), to_openformula(formula))


def write_value(package: OdsPackage, cell: etree._Element, value: Any, typed: bool) -> None:
    """One value as set_range means it; ``typed`` reads strings the way Calc's input line does, for the
    forms this path knows (numbers, percentages, ISO dates, TRUE/FALSE); any other string stays text."""
    if isinstance(value, str) and value.startswith("=") and len(value) > 1:
        write_formula(cell, value)
    elif isinstance(value, bool):
        restyle(package, cell, {"number_format": "BOOLEAN"})  # as Calc does for a boolean it is given
        write_boolean(cell, value)
    elif isinstance(value, (int, float)):
        write_number(cell, float(value))
    elif value is None or value == "":
        clear_content(cell)
    elif cell_has_text_format(package, cell):
        write_text(cell, str(value))
    elif typed:
        _type_in(package, cell, value)
    else:
        if _reads_as_value(value):  # Calc gives text it would otherwise read as a value the Text format
            restyle(package, cell, {"number_format": "@"})
        write_text(cell, value)


def _reads_as_value(text: str) -> bool:
    plain = text.strip()
    return bool(_NUMBER.match(plain) or _PERCENT.match(plain) or plain.upper() in ("TRUE", "FALSE")
                or (_ISO_DATE.match(plain) and _date(plain) is not None))


def _type_in(package: OdsPackage, cell: etree._Element, text: str) -> None:
    plain = text.strip()
    if text.startswith("'"):
        write_text(cell, text[1:])
    elif _NUMBER.match(plain):
        write_number(cell, float(plain))
    elif _PERCENT.match(plain):
        restyle(package, cell, {"number_format": "0.00%"})  # the format Calc's input line detects
        write_number(cell, float(plain[:-1]) / 100, "percentage")
    elif _ISO_DATE.match(plain) and _date(plain) is not None:
        restyle(package, cell, {"number_format": "YYYY-MM-DD"})
        write_date(cell, _date(plain))  # type: ignore[arg-type]
    elif plain.upper() in ("TRUE", "FALSE"):
        restyle(package, cell, {"number_format": "BOOLEAN"})
        write_boolean(cell, plain.upper() == "TRUE")
    else:
        write_text(cell, text)


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def cell_has_text_format(package: OdsPackage, cell: etree._Element) -> bool:
    """Whether the cell's own automatic style carries the Text (@) format, so typed input stays text."""
    style = _automatic(package, cell.get(q("table", "style-name")))
    data = style.get(q("style", "data-style-name")) if style is not None else None
    if not data:
        return False
    found = package.automatic_styles().find(f"{q('number', 'text-style')}[@{q('style', 'name')}='{data}']")
    return found is not None


# ---------------------------------------------------------------- styles


def _automatic(package: OdsPackage, name: str | None) -> etree._Element | None:
    if not name:
        return None
    for el in package.automatic_styles():
        if el.get(q("style", "name")) == name and el.tag == q("style", "style"):
            return el
    return None


def restyle(package: OdsPackage, cell: etree._Element, changes: dict[str, Any]) -> None:
    """Give ``cell`` a new automatic style: its current one with bold / background / number_format changed."""
    base_name = cell.get(q("table", "style-name"))
    base = _automatic(package, base_name)
    if base is not None:
        style = copy_style(base)
    else:
        style = etree.Element(q("style", "style"))
        style.set(q("style", "family"), "table-cell")
        style.set(q("style", "parent-style-name"), base_name or "Default")
    style.set(q("style", "name"), _fresh_name(package, "asil_ce"))
    if "bold" in changes:
        props = _props(style, "text-properties")
        weight = "bold" if changes["bold"] else "normal"
        for attr in (q("fo", "font-weight"), q("style", "font-weight-asian"), q("style", "font-weight-complex")):
            props.set(attr, weight)
    if "background" in changes:
        _props(style, "table-cell-properties").set(q("fo", "background-color"),
                                                   (changes["background"] or "transparent").lower())
    if "number_format" in changes:
        style.set(q("style", "data-style-name"), data_style(package, changes["number_format"]))
    package.automatic_styles().append(style)
    cell.set(q("table", "style-name"), style.get(q("style", "name"), ""))


def copy_style(base: etree._Element) -> etree._Element:
    return etree.fromstring(etree.tostring(base))


def _props(style: etree._Element, kind: str) -> etree._Element:
    found = style.find(q("style", kind))
    if found is None:
        found = etree.Element(q("style", kind))
        # ODF orders table-cell-properties, paragraph-properties, then text-properties
        style.insert(0, found) if kind == "table-cell-properties" else style.append(found)
    return found


def _fresh_name(package: OdsPackage, prefix: str) -> str:
    taken = {el.get(q("style", "name")) for el in package.automatic_styles()}
    number = 1
    while f"{prefix}{number}" in taken:
        number += 1
    return f"{prefix}{number}"


def data_style(package: OdsPackage, code: str) -> str:
    """The name of a new ``number:*-style`` for ``code``; codes this path cannot write are refused."""
    tag, parts = _data_parts(code)
    style = etree.SubElement(package.automatic_styles(), q("number", tag))
    name = _fresh_name(package, "asil_N")
    style.set(q("style", "name"), name)
    for part_tag, attrs, text in parts:
        part = etree.SubElement(style, q("number", part_tag))
        for key, value in attrs.items():
            part.set(q("number", key), value)
        part.text = text
    return name


def _data_parts(code: str) -> tuple[str, list[tuple[str, dict[str, str], str | None]]]:
    if code == "YYYY-MM-DD":
        long = {"style": "long"}
        return "date-style", [("year", long, None), ("text", {}, "-"), ("month", long, None), ("text", {}, "-"),
                              ("day", long, None)]
    if code == "@":
        return "text-style", [("text-content", {}, None)]
    if code == "BOOLEAN":
        return "boolean-style", [("boolean", {}, None)]
    percent = code.endswith("%")
    places, grouping = _NUMBER_PARTS.get(code.removesuffix("%"), (-1, False))
    if places < 0:
        raise ActionFailed(f"The number format {code!r} cannot be written on the file-backed access path.",
                           hint="This path writes 0, 0.0, 0.00, #,##0, #,##0.00, the same with %, YYYY-MM-DD, BOOLEAN and @; "
                           "the dispatch path (LibreOffice) takes any format.", code=UNSUPPORTED)
    number = {"decimal-places": str(places), "min-decimal-places": str(places), "min-integer-digits": "1"}
    if grouping:
        number["grouping"] = "true"
    if percent:
        return "percentage-style", [("number", number, None), ("text", {}, "%")]
    return "number-style", [("number", number, None)]


def value_kind_for(code: str) -> str:
    """The office:value-type a number gets under number format ``code``."""
    if code.endswith("%"):
        return "percentage"
    return "date" if code == "YYYY-MM-DD" else "float"
