"""The independent raw validator for Calc tasks: judges checkpoints from the saved file's XML.

It shares no read path with the adapter (no LibreOffice, no UNO): values come from the
``office:value`` attributes LibreOffice stored. It fails closed — anything it cannot read
or does not know is a failed checkpoint. Tests run it beside the evaluator; they must agree.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from asil.adapters.calc.raw import RawReadError, RawWorkbook
from asil.adapters.calc.refs import parse_range
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw files; False when in doubt."""
    try:
        actual = _read(cp, workspace, outcome, answer)
    except (RawReadError, KeyError, ValueError, OSError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None) -> Any:
    book = RawWorkbook.load(Path(workspace.root, str(cp.document)))
    if cp.type == "sheet_exists":
        return cp.target in book.sheet_names()
    if cp.type == "sheet_names":
        return book.sheet_names()
    where = parse_range(str(cp.target))
    if where.sheet not in book.sheet_names():
        raise RawReadError(f"no sheet {where.sheet!r}")
    rows = [[book.cell(where.sheet, c, r) for c in range(where.col, where.col2 + 1)]
            for r in range(where.row, where.row2 + 1)]
    first = rows[0][0]
    if cp.type == "cell_value":
        return _value(first)
    if cp.type == "range_values":
        return [[_value(cell) for cell in line] for line in rows]
    if cp.type == "cell_type":
        return _kind(first)
    if cp.type == "cell_formula":
        return first["formula"]
    if cp.type == "cell_style":
        return {key: first[key] for key in cp.expected}  # type: ignore[literal-required]
    raise RawReadError(f"unknown checkpoint type {cp.type!r}")


def _kind(cell: Any) -> str:
    """The cell's type as the adapter names it: a date value with a time of day is a datetime."""
    has_time = cell["type"] == "date" and isinstance(cell["value"], str) and "T" in cell["value"]
    return "datetime" if has_time else str(cell["type"])


ISO_DURATION = re.compile(r"-?PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?")


def _day_fraction(duration: str) -> float | str:
    """A time cell's office:time-value (ISO 8601 duration, e.g. PT14H00M00S) as Calc's number: days.

    Calc shows and computes a time as a fraction of a day (14:00 is 0.58333...), which is what agents see."""
    found = ISO_DURATION.fullmatch(duration)
    if not found:
        return duration  # an unexpected form stays text, so a numeric check fails closed
    hours, minutes, seconds = (float(part or 0) for part in found.groups())
    days = (hours * 3600 + minutes * 60 + seconds) / 86400
    return -days if duration.startswith("-") else days


def _value(cell: Any) -> Any:
    """The value in the form agents see: whole numbers as int, dates as ISO text."""
    value = cell["value"]
    if cell["type"] == "datetime" or (cell["type"] == "date" and isinstance(value, str) and "T" in value):
        return dt.datetime.fromisoformat(value).isoformat(timespec="seconds")
    if cell["type"] == "time" and isinstance(value, str):
        value = _day_fraction(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, str) and cell["type"] == "error":
        return re.sub(r"\s+", " ", value)
    return value
