"""Checkpoint types that read a spreadsheet through the Calc adapter (computed by LibreOffice)."""

from __future__ import annotations

from typing import Any

from asil.adapters.calc.adapter import CalcAdapter, cell_element
from asil.adapters.calc.refs import CellRange, parse_range
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

STYLE_DEFAULTS = {"bold": False, "number_format": None, "background": None}


def _calc(ctx: EvalContext, cp: Checkpoint) -> CalcAdapter:
    adapter = ctx.adapter("calc", require(cp.document, "document (.ods path)"))
    assert isinstance(adapter, CalcAdapter)
    return adapter


def _where(cp: Checkpoint) -> CellRange:
    try:
        return parse_range(require(cp.target, "cell or range target"))
    except Exception as exc:
        raise CheckpointUnreadable(f"bad target {cp.target!r}: {exc}") from None


def _cells(ctx: EvalContext, cp: Checkpoint) -> tuple[CellRange, list[dict[str, Any]]]:
    where = _where(cp)
    positions = [(c, r) for r in range(where.row, where.row2 + 1) for c in range(where.col, where.col2 + 1)]
    cells = _calc(ctx, cp).cells(where.sheet, positions)
    if not cells:
        raise CheckpointUnreadable(f"there is no sheet named {where.sheet!r}")
    return where, cells


@checkpoint_type("cell_value", default_compare="approx")
def cell_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The computed value of one cell, as agents see it (numbers, text, ISO dates, booleans)."""
    where, cells = _cells(ctx, cp)
    return cell_element(where.sheet, cells[0]).value


@checkpoint_type("cell_type", default_compare="exact")
def cell_type(ctx: EvalContext, cp: Checkpoint) -> str:
    """What one cell holds: number, text, date, datetime, time, percent, currency, boolean, error or empty
    (a typed '2026-12-01' is a date, the same string stored as text is text)."""
    _, cells = _cells(ctx, cp)
    kind: str = cells[0]["type"]
    return kind


@checkpoint_type("cell_formula", default_compare="normalized")
def cell_formula(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The formula of one cell in Excel A1 syntax (``=SUM(B2:B9)``), or None."""
    _, cells = _cells(ctx, cp)
    formula: str | None = cells[0].get("formula")
    return formula


@checkpoint_type("range_values", default_compare="approx")
def range_values(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """The computed values of a range, row by row (empty cells are null)."""
    where, cells = _cells(ctx, cp)
    width = where.col2 - where.col + 1
    values = [cell_element(where.sheet, cell).value for cell in cells]
    return [values[i : i + width] for i in range(0, len(values), width)]


@checkpoint_type("cell_style")
def cell_style(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """The style keys named in ``expected`` (bold, number_format, background) of one cell."""
    if not isinstance(cp.expected, dict) or not set(cp.expected) <= set(STYLE_DEFAULTS):
        raise CheckpointUnreadable(f"cell_style expects a dict with keys from {sorted(STYLE_DEFAULTS)}")
    _, cells = _cells(ctx, cp)
    return {key: cells[0].get(key, STYLE_DEFAULTS[key]) for key in cp.expected}


@checkpoint_type("sheet_exists")
def sheet_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    return require(cp.target, "sheet name") in _calc(ctx, cp).sheet_names()


@checkpoint_type("sheet_names")
def sheet_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """All sheet names in order (compare with 'exact' for order, 'set' to ignore it)."""
    return _calc(ctx, cp).sheet_names()
