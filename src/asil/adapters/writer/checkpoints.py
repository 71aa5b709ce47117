"""Checkpoint types that read a text document through the Writer adapter (LibreOffice's view)."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

PAGE_KEYS = ("orientation", "width_mm", "height_mm", "margin_top_mm", "margin_bottom_mm", "margin_left_mm",
             "margin_right_mm", "header", "footer")


def _read(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    from asil.adapters.writer.adapter import WriterAdapter

    adapter = ctx.adapter("writer", require(cp.document, "document (.odt path)"))
    assert isinstance(adapter, WriterAdapter)
    return adapter.read()


def document_text_of(blocks: list[dict[str, Any]]) -> str:
    """Paragraph texts one per line; table rows as tab-separated cells (shared with the raw reader's form)."""
    lines: list[str] = []
    for block in blocks:
        if block["kind"] == "table":
            lines += ["\t".join(row) for row in block["cells"]]
        else:
            lines.append(block["text"])
    return "\n".join(lines)


def find_paragraph(paragraphs: list[dict[str, Any]], pattern: str) -> dict[str, Any]:
    """The first paragraph whose text matches ``pattern`` (a regex searched in the text)."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise CheckpointUnreadable(f"bad paragraph pattern {pattern!r}: {exc}") from None
    for paragraph in paragraphs:
        if compiled.search(paragraph["text"]):
            return paragraph
    raise CheckpointUnreadable(f"no paragraph matches {pattern!r}")


def parse_table_cell(target: str) -> tuple[str, int, int]:
    match = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)\.([A-Z]{1,2})([1-9][0-9]*)", target)
    if match is None:
        raise CheckpointUnreadable(f"bad table cell {target!r} (use Table1.B2)")
    col = 0
    for ch in match[2]:
        col = col * 26 + ord(ch) - 64
    return match[1], col - 1, int(match[3]) - 1


def table_rows_of(blocks: list[dict[str, Any]], name: str) -> list[list[str]]:
    for block in blocks:
        if block["kind"] == "table" and block["name"] == name:
            return list(block["cells"])
    raise CheckpointUnreadable(f"there is no table named {name!r}")


def cell_of(rows: list[list[str]], col: int, row: int) -> str:
    if row >= len(rows) or col >= len(rows[row]):
        raise CheckpointUnreadable("the cell is outside the table")
    return rows[row][col]


@checkpoint_type("document_text", default_compare="regex")
def document_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """All text: paragraphs one per line, table rows tab-separated; ``expected`` is a regex by default."""
    return document_text_of(_read(ctx, cp)["blocks"])


@checkpoint_type("paragraph_style")
def paragraph_style(ctx: EvalContext, cp: Checkpoint) -> str:
    """The paragraph style of the first paragraph whose text matches the regex ``target``."""
    paragraphs = [b for b in _read(ctx, cp)["blocks"] if b["kind"] == "paragraph"]
    return str(find_paragraph(paragraphs, require(cp.target, "paragraph text pattern"))["style"])


@checkpoint_type("heading_outline")
def heading_outline(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """Every heading in order as ``[level, text]``."""
    return [[b["level"], b["text"]] for b in _read(ctx, cp)["blocks"] if b["kind"] == "paragraph" and b["level"]]


@checkpoint_type("list_items")
def list_items(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The texts of all list-item paragraphs, in order."""
    return [b["text"] for b in _read(ctx, cp)["blocks"] if b["kind"] == "paragraph" and "list" in b]


@checkpoint_type("table_cell", default_compare="normalized")
def table_cell(ctx: EvalContext, cp: Checkpoint) -> str:
    """The text of a table cell, target ``Table1.B2``."""
    name, col, row = parse_table_cell(require(cp.target, "table cell like Table1.B2"))
    return cell_of(table_rows_of(_read(ctx, cp)["blocks"], name), col, row)


@checkpoint_type("table_rows", default_compare="normalized")
def table_rows(ctx: EvalContext, cp: Checkpoint) -> list[list[str]]:
    """All cell texts of the table named ``target``, row by row."""
    return table_rows_of(_read(ctx, cp)["blocks"], require(cp.target, "table name"))


@checkpoint_type("page_property", default_compare="approx")
def page_property(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A property of the first page style: orientation, width_mm, margin_left_mm, header, footer..."""
    key = require(cp.target, "page property")
    if key not in PAGE_KEYS:
        raise CheckpointUnreadable(f"unknown page property {key!r}; known: {', '.join(PAGE_KEYS)}")
    return _read(ctx, cp)["page"][key]


@checkpoint_type("pdf_pages")
def pdf_pages(ctx: EvalContext, cp: Checkpoint) -> int:
    """The page count of the PDF at ``target`` as poppler's pdfinfo reads it (fails if missing)."""
    path = ctx.workspace.resolve(require(cp.target, "PDF path"))
    pdfinfo = shutil.which("pdfinfo")
    if not path.is_file() or pdfinfo is None:
        raise CheckpointUnreadable(f"{cp.target!r} does not exist" if pdfinfo else "pdfinfo is not installed")
    done = subprocess.run([pdfinfo, str(path)], capture_output=True, text=True, timeout=60)
    match = re.search(r"^Pages:\s+(\d+)", done.stdout, re.MULTILINE)
    if done.returncode != 0 or match is None:
        raise CheckpointUnreadable(f"{cp.target!r} is not a readable PDF")
    return int(match[1])
