"""The independent raw validator for Writer tasks: judges checkpoints from the saved .odt's XML
(and PDFs' bytes), sharing no read path with the adapter. It fails closed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from asil.adapters.odf.xml import RawReadError
from asil.adapters.writer.raw import RawTextDocument
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

PDF_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw files; False when in doubt."""
    from asil.adapters.writer import checkpoints as cps

    try:
        actual = _read(cp, workspace, cps)
    except (RawReadError, CheckpointUnreadable, KeyError, ValueError, OSError, StopIteration, IndexError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, workspace: Workspace, cps: Any) -> Any:
    if cp.type == "pdf_pages":
        data = Path(workspace.root, str(cp.target)).read_bytes()
        if not data.startswith(b"%PDF-"):
            raise RawReadError("not a PDF")
        return len(PDF_PAGE.findall(data))
    doc = RawTextDocument.load(Path(workspace.root, str(cp.document)))
    blocks = doc.blocks
    paragraphs = [b for b in blocks if b["kind"] == "paragraph"]
    if cp.type == "document_text":
        return cps.document_text_of(blocks)
    if cp.type == "paragraph_style":
        return cps.find_paragraph(paragraphs, str(cp.target))["style"]
    if cp.type == "heading_outline":
        return [[b["level"], b["text"]] for b in paragraphs if b["level"]]
    if cp.type == "list_items":
        return [b["text"] for b in paragraphs if b.get("list")]
    if cp.type == "table_cell":
        name, col, row = cps.parse_table_cell(str(cp.target))
        return cps.cell_of(cps.table_rows_of(blocks, name), col, row)
    if cp.type == "table_rows":
        return cps.table_rows_of(blocks, str(cp.target))
    if cp.type == "page_property":
        return doc.page()[str(cp.target)]
    raise RawReadError(f"unknown checkpoint type {cp.type!r}")
