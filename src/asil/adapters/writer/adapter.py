"""The Writer adapter: an .odt file, opened in a warm headless LibreOffice, seen as blocks.

Blocks are paragraphs (ids ``p1``, ``p2``... kept in the file as ODF ``xml:id``, so they
survive edits elsewhere) and tables (ids are their names, cells ``Table1.B2``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from asil.adapters.lo_document import OfficeDocumentAdapter, Plan, create_with_engine
from asil.adapters.odf.access import AccessPaths
from asil.adapters.params import parse_params
from asil.adapters.writer import actions as act
from asil.adapters.writer.actions import cell_position, cell_text
from asil.apps.libreoffice import Office
from asil.protocol import (
    Action,
    AppState,
    Element,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace

ENGINE = "asil_writer"
CELL = re.compile(r"^(?P<table>[A-Za-z][A-Za-z0-9_]*)\.(?P<col>[A-Za-z]{1,2})(?P<row>[1-9][0-9]{0,4})$")
# Engine ops that never add, remove or reorder blocks (set_text only when its text has no line or
# paragraph break, which LibreOffice may turn into a new paragraph).
KEEPS_IDS = frozenset({"set_text", "set_style", "set_list", "format_text", "set_cells", "add_table_rows",
                       "delete_table_rows", "set_page", "set_margin_text"})
BREAKS = ("\r", "\n", "\u2028", "\u2029")
# The two access paths of the path-restriction study (docs/path_restriction.md).
ACCESS_PATHS = {
    "dispatch": "LibreOffice Writer (headless)",
    "file": "none: the ODF package's XML is read and written directly (lxml); no layout, so no page count",
}


class WriterAdapter(AccessPaths, OfficeDocumentAdapter):
    """A text document: paragraphs and tables in body order, windowed for long documents."""

    ENGINE = ENGINE
    KIND = "text document"
    CREATING = ("insert_paragraph", "insert_table")
    DEFAULT_LIMIT, MAX_LIMIT = 40, 80
    MIMETYPE = b"application/vnd.oasis.opendocument.text"
    PDF_FILTER = "writer_pdf_Export"
    vocabulary = act.VOCABULARY
    functions = act.FUNCTIONS
    doomed_operation = {"op": "set_value", "target": "p999", "params": {"text": "x"}}
    FILE_ENGINE = "asil.adapters.writer.file_engine:OdtFileEngine"
    ENGINE_NAMES = ACCESS_PATHS
    FILE_PATH_TIP = "there is no page layout: the page count is not known and export_pdf is refused."
    _blocks: list[tuple[str, str]] | None = None  # (kind, id) of every block, read once per change

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 limit: int | None = None, access_path: str = "dispatch", **options: Any):
        self.choose_path(access_path)
        super().__init__(workspace, document, office=office, limit=limit, **options)

    # ------------------------------------------------------------ state
    def block_ids(self) -> list[tuple[str, str]]:
        """(kind, id) of every block in body order."""
        if self._blocks is None:
            self._blocks = [(k, i) for k, i in self._call("ids")]
        return self._blocks

    def read(self) -> dict[str, Any]:
        """Every block in full with page properties, for checkpoints."""
        result: dict[str, Any] = self._call("read")
        return result

    # ------------------------------------------------------------ observe
    def _observation(self, data: dict[str, Any]) -> Observation:
        elements = [block_element(b) for b in data["blocks"]]
        total, shown_to = data["total"], self.offset + len(elements)
        page = data["page"]
        return Observation(
            metadata=Metadata(app="writer", source="file", step=self.step),
            app_state=AppState(view="body", active_document=self.path.name, document_path=self.document,
                               dirty=data["dirty"], details={"pages": data["pages"], "page": page,
                                                             "styles_in_use": data["paragraph_styles"]}),
            elements=elements,
            environment={**self.path_environment(), "units": "millimetres"},
            navigation=Navigation(views=["body"], paging=Paging(offset=self.offset, limit=self.limit, total=total),
                                  meta={"outline": data["outline"], "headings": data["headings"]}),
            summary=_summary(data, self.offset, shown_to),
        )

    def _goto(self, ident: str) -> None:
        ids = [i for _, i in self.block_ids()]
        if ident not in ids:
            raise InvalidAction(f"There is no paragraph or table with id {ident!r}.",
                                hint="Use an id from the observation or its outline.", code="no_element")
        index = ids.index(ident)
        if not self.offset <= index < self.offset + self.limit:
            self.offset = max(0, index - 2)

    # ------------------------------------------------------------ actions
    def _forget(self) -> None:
        self._blocks = None

    def _keeps_ids(self, steps: list[dict[str, Any]]) -> bool:
        return all(step["op"] in KEEPS_IDS and not (step["op"] == "set_text" and any(b in step["text"] for b in BREAKS))
                   for step in steps)

    def _find(self, ident: str) -> None:
        self.require(ident)

    def require(self, ident: str, kind: str | None = None) -> str:
        """``ident`` if it names a block (of ``kind`` when given); InvalidAction (no_element) otherwise."""
        for found_kind, found in self.block_ids():
            if found == ident and (kind is None or kind == found_kind):
                return ident
        what = kind or "paragraph or table"
        raise InvalidAction(f"There is no {what} with id {ident!r}.",
                            hint="Use an id shown in the observation (paragraphs p1, p2...; tables by name).",
                            code="no_element")

    def _plan_set_value(self, action: Action) -> Plan:
        target = action.target or ""
        cell = CELL.match(target)
        if cell and any(k == "table" and i == cell["table"] for k, i in self.block_ids()):
            value = parse_params(act.SetCell, action.params, "set_value on a table cell").value
            col, row = cell_position(cell["col"] + cell["row"])
            return [{"op": "set_cells", "table": cell["table"], "col": col, "row": row,
                     "rows": [[cell_text(value)]]}], [target]
        self.require(target, "paragraph")
        params = parse_params(act.SetText, action.params, "set_value on a paragraph")
        return [{"op": "set_text", "paragraph": target, "text": params.text}], [target]

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        create_document(workspace.resolve("sample.odt"), {"blocks": [
            {"text": "Quarterly report", "style": "Title"},
            {"text": "Sales grew in every region.", "style": "Text body"},
        ]})
        return "sample.odt"


def create_document(path: Path, spec: dict[str, Any], office: Office | None = None) -> None:
    """Build an .odt with LibreOffice from ``{"blocks": [...], "page", "header", "footer"}`` (atomic)."""
    create_with_engine(ENGINE, path, office, spec=spec)


def block_element(block: dict[str, Any]) -> Element:
    if block["kind"] == "table":
        meta = {"rows": block["rows"], "cols": block["cols"], "index": block["index"]}
        if len(block["cells"]) < block["rows"]:
            meta["shown_rows"] = len(block["cells"])
        return Element(id=block["id"], type="table", label=block["name"], value=block["cells"], data_type="table",
                       actions=["set_table_cells", "add_table_rows", "delete_table_rows", "delete"], meta=meta)
    level = block["level"]
    kind = "heading" if level else ("list_item" if "list" in block else "paragraph")
    meta = {"style": block["style"], "index": block["index"]}
    if level:
        meta["level"] = level
    if "list" in block:
        meta["list"] = block["list"]
    if block.get("spans"):
        meta["spans"] = block["spans"]
    if block["length"] > len(block["text"]):
        meta["truncated"] = True
        meta["length"] = block["length"]
    return Element(id=block["id"], type=kind, value=block["text"], data_type="text",
                   actions=["set_value", "insert_paragraph", "set_paragraph_style", "format_text", "delete"], meta=meta)


def _summary(data: dict[str, Any], offset: int, shown_to: int) -> str:
    total, page = data["total"], data["page"]
    pages = f"about {data['pages']} page(s)" if data["pages"] is not None else "page count unknown (no layout)"
    text = (f"Text document: {total} blocks, {data['headings']} headings, {pages}, "
            f"{page['orientation']} {page['width_mm']:g}x{page['height_mm']:g} mm. Showing blocks {offset}..{shown_to - 1}.")
    if shown_to < total:
        text += f" {total - shown_to} more below: navigate with params.offset={shown_to}."
    return text


__all__ = ["WriterAdapter", "block_element", "create_document"]
