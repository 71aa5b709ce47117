"""Formulas on the file-backed access path: Excel A1 text to ODF OpenFormula, and reference moves.

The file path has no calculation engine, so it only *translates* formulas (``=SUM(B2:B9)`` ->
``of:=SUM([.B2:.B9])``) and moves their references when rows, columns or sheets change, the way
LibreOffice would. It never computes a result: LibreOffice does that when it next opens the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from asil.adapters.calc.refs import column_index, column_letters, quote_sheet
from asil.protocol import InvalidAction

# One Excel token the translator cares about: a string literal, a (sheet-qualified) reference, or a name.
_TOKEN = re.compile(
    r'(?P<string>"(?:[^"]|"")*")'
    r"|(?P<ref>(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?"
    r"(?P<a>\$?[A-Za-z]{1,3}\$?\d+|\$?[A-Za-z]{1,3}(?=:)|\$?\d+(?=:))"
    r"(?::(?P<b>\$?[A-Za-z]{1,3}\$?\d+|\$?[A-Za-z]{1,3}|\$?\d+))?)(?![\w(!])"
    r"|(?P<name>[A-Za-z_][\w.]*)")
_OF_STRING = re.compile(r'"(?:[^"]|"")*"')
_OF_REF = re.compile(r"\[([^\]]*)\]")
_ENDPOINT = re.compile(r"(?P<sheet>\$?(?:'(?:[^']|'')*'|[^.'\[\]]*))\.(?P<col>\$?[A-Z]{1,3})?(?P<row>\$?\d+)?")
INVALID_REF = "#REF!"
# LibreOffice's Excel A1 compiler (the dispatch path) stores a bare TRUE/FALSE as the number 1/0; the file
# path does the same, so both paths store one formula for one input.
_CONSTANTS = {"TRUE": "1", "FALSE": "0"}


def to_openformula(formula: str) -> str:
    """``=B2*C2`` (Excel A1, commas) -> ``of:=[.B2]*[.C2]``.

    Raises:
        InvalidAction: unbalanced parentheses or quotes (code invalid_formula). Unknown function names
            are *not* caught: only LibreOffice knows them, and the file path does not run it.
    """
    _require_balanced(formula)
    out, i, body = [], 0, formula[1:]
    while i < len(body):
        found = _TOKEN.match(body, i)
        if found is None:
            out.append(";" if body[i] == "," else body[i])
            i += 1
            continue
        if found["ref"]:
            out.append(_reference(found["sheet"], found["a"], found["b"]))
        elif found["name"] and found["name"].upper() in _CONSTANTS and not body.startswith("(", found.end()):
            out.append(_CONSTANTS[found["name"].upper()])
        else:
            out.append(found.group())
        i = found.end()
    return "of:=" + "".join(out)


def _require_balanced(formula: str) -> None:
    depth, quoted = 0, ""
    for ch in formula:
        if quoted:
            quoted = "" if ch == quoted else quoted
        elif ch in "\"'":
            quoted = ch
        elif ch in "()":
            depth += 1 if ch == "(" else -1
            if depth < 0:
                break
    if quoted or depth:
        raise InvalidAction(f"The formula {formula} is not valid: its parentheses or quotes do not balance.",
                            hint="Write formulas in Excel style, e.g. =SUM(B2:B9).", code="invalid_formula")


def _reference(sheet: str | None, first: str, second: str | None) -> str:
    prefix = sheet if sheet else ""
    inner = f"{prefix}.{first.upper()}" + (f":.{second.upper()}" if second else "")
    return f"[{inner}]"


# ---------------------------------------------------------------- moving references

Shift = Callable[[str, int, int], tuple[int, int] | None]  # (sheet, start, end) -> new span or None (gone)


def move_references(formula: str, own_sheet: str, rename: Callable[[str], str], shift: Shift | None,
                    axis: str) -> str:
    """Rewrite the ``[...]`` references of an OpenFormula: sheet names through ``rename``, and the
    coordinate on ``axis`` ("row" or "col") through ``shift``; a reference ``shift`` deletes becomes #REF!."""
    parts, last = [], 0
    for literal in _OF_STRING.finditer(formula):
        parts.append(_moved(formula[last:literal.start()], own_sheet, rename, shift, axis))
        parts.append(literal.group())
        last = literal.end()
    parts.append(_moved(formula[last:], own_sheet, rename, shift, axis))
    return "".join(parts)


def _moved(text: str, own: str, rename: Callable[[str], str], shift: Shift | None, axis: str) -> str:
    return _OF_REF.sub(lambda ref: _move_one(ref.group(1), own, rename, shift, axis), text)


def _move_one(body: str, own: str, rename: Callable[[str], str], shift: Shift | None, axis: str) -> str:
    ends = [_ENDPOINT.fullmatch(part) for part in body.split(":")]
    if not all(ends) or len(ends) > 2:
        return f"[{body}]"  # something this path does not understand is left exactly as it was
    parsed = [(e["sheet"], e["col"], e["row"]) for e in ends if e]
    named = parsed[0][0]
    sheet = _unquote(named) if named else own
    coords = [_coordinate(col if axis == "col" else row, axis) for _, col, row in parsed]
    if shift is not None and all(c is not None for c in coords):
        values = [c[1] for c in coords if c is not None]
        span = shift(sheet, values[0], values[-1])
        if span is None:
            return f"[{INVALID_REF}]"
        parsed = [_with(p, axis, coords[i], span[min(i, 1)]) for i, p in enumerate(parsed)]
    new_sheet = rename(sheet) if named else None
    head = parsed[0]
    sheet_part = head[0]
    if new_sheet:  # renamed or not, a named sheet keeps its own absolute/relative mark
        sheet_part = ("$" if named.startswith("$") else "") + quote_sheet(new_sheet)
    text = _endpoint(sheet_part, head)
    if len(parsed) == 2:
        text += ":" + _endpoint(parsed[1][0], parsed[1])
    return f"[{text}]"


def _unquote(name: str) -> str:
    name = name.removeprefix("$")
    return name[1:-1].replace("''", "'") if name.startswith("'") else name


def _coordinate(text: str | None, axis: str) -> tuple[str, int] | None:
    """("$" or "", 0-based index) of a column or row part."""
    if not text:
        return None
    dollar, bare = ("$", text[1:]) if text.startswith("$") else ("", text)
    return dollar, column_index(bare) if axis == "col" else int(bare) - 1


def _with(part: tuple[str, str, str], axis: str, old: tuple[str, int] | None, index: int) -> tuple[str, str, str]:
    dollar = old[0] if old else ""
    sheet, col, row = part
    if axis == "col":
        return sheet, dollar + column_letters(index), row
    return sheet, col, f"{dollar}{index + 1}"


def _endpoint(sheet: str, part: tuple[str, str, str]) -> str:
    return f"{sheet or ''}.{part[1] or ''}{part[2] or ''}"


def insertion(sheet: str, index: int, count: int) -> Shift:
    """The shift of inserting ``count`` lines before ``index`` on ``sheet``."""
    def shift(where: str, start: int, end: int) -> tuple[int, int]:
        if where != sheet:
            return start, end
        return start + count if start >= index else start, end + count if end >= index else end
    return shift


def deletion(sheet: str, index: int, count: int) -> Shift:
    """The shift of deleting lines ``index``..``index+count-1`` on ``sheet`` (a span inside them is gone)."""
    stop = index + count

    def shift(where: str, start: int, end: int) -> tuple[int, int] | None:
        if where != sheet:
            return start, end
        new_start = start if start < index else max(index, start - count)
        new_end = end if end < index else (end - count if end >= stop else index - 1)
        return (new_start, new_end) if new_end >= new_start else None
    return shift
