"""Cell and range references in the form agents use: ``Sheet1!B3``, ``'My Sheet'!A1:C9``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from asil.protocol import InvalidAction

MAX_ROWS = 1_048_576
MAX_COLS = 1024  # LibreOffice 7.4 default (columns A..AMJ)
_CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")
_REF_HINT = "Use 'Sheet1!B3' for a cell or 'Sheet1!A1:C9' for a range; quote sheet names with spaces: 'My Sheet'!A1."
_BAD_SHEET_CHARS = set("[]*?:/\\'")


@dataclass(frozen=True)
class CellRange:
    """A rectangle on one sheet, 0-based and inclusive."""

    sheet: str
    col: int
    row: int
    col2: int
    row2: int

    @property
    def is_cell(self) -> bool:
        return self.col == self.col2 and self.row == self.row2

    @property
    def size(self) -> int:
        return (self.col2 - self.col + 1) * (self.row2 - self.row + 1)

    def cell_ids(self) -> list[str]:
        return [cell_id(self.sheet, c, r) for r in range(self.row, self.row2 + 1) for c in range(self.col, self.col2 + 1)]

    def engine_args(self) -> dict[str, object]:
        return {"sheet": self.sheet, "col": self.col, "row": self.row, "col2": self.col2, "row2": self.row2}

    def __str__(self) -> str:
        first = f"{column_letters(self.col)}{self.row + 1}"
        if self.is_cell:
            return f"{quote_sheet(self.sheet)}!{first}"
        return f"{quote_sheet(self.sheet)}!{first}:{column_letters(self.col2)}{self.row2 + 1}"


def column_letters(col: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def column_index(letters: str) -> int:
    """'A' -> 0, 'AA' -> 26; raises InvalidAction past the last column."""
    value = 0
    for ch in letters.upper():
        if not "A" <= ch <= "Z":
            raise InvalidAction(f"{letters!r} is not a column name.", hint="Columns are letters A to AMJ.")
        value = value * 26 + ord(ch) - 64
    if not 1 <= value <= MAX_COLS:
        raise InvalidAction(f"Column {letters!r} is beyond the last column AMJ.", hint="Columns are letters A to AMJ.")
    return value - 1


def quote_sheet(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "'" + name.replace("'", "''") + "'"


def cell_id(sheet: str, col: int, row: int) -> str:
    return f"{quote_sheet(sheet)}!{column_letters(col)}{row + 1}"


def parse_cell(text: str) -> tuple[int, int]:
    match = _CELL.match(text.strip())
    if not match:
        raise InvalidAction(f"{text!r} is not a cell address.", hint=_REF_HINT)
    row = int(match.group(2))
    if not 1 <= row <= MAX_ROWS:
        raise InvalidAction(f"Row {row} in {text!r} does not exist; rows are numbered 1 to {MAX_ROWS}.", hint=_REF_HINT)
    return column_index(match.group(1)), row - 1


def split_sheet(text: str, default_sheet: str | None) -> tuple[str, str]:
    text = text.strip()
    if text.startswith("'"):
        end = text.find("'!", 1)
        while end != -1 and text[end - 1 : end + 1] == "''" and end > 1:
            end = text.find("'!", end + 1)
        if end == -1:
            raise InvalidAction(f"{text!r} has an unclosed sheet-name quote.", hint=_REF_HINT)
        return text[1:end].replace("''", "'"), text[end + 2 :]
    if "!" in text:
        sheet, _, rest = text.rpartition("!")
        return sheet, rest
    if default_sheet is None:
        raise InvalidAction(f"{text!r} does not name a sheet.", hint=_REF_HINT)
    return default_sheet, text


def parse_range(text: str, default_sheet: str | None = None) -> CellRange:
    """Parse 'Sheet1!B3' or 'Sheet1!A1:C9' (sheet optional when a default is given)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidAction("A cell or range reference is required.", hint=_REF_HINT)
    sheet, body = split_sheet(text, default_sheet)
    first, _, last = body.partition(":")
    col, row = parse_cell(first)
    col2, row2 = parse_cell(last) if last else (col, row)
    return CellRange(sheet, min(col, col2), min(row, row2), max(col, col2), max(row, row2))


def check_sheet_name(name: str) -> None:
    if not name or len(name) > 100 or set(name) & _BAD_SHEET_CHARS or name != name.strip():
        raise InvalidAction(
            f"{name!r} is not a valid sheet name.",
            hint="Sheet names are 1-100 characters without [ ] * ? : / \\ ' and without leading or trailing spaces.",
        )
