"""The Writer adapter: an .odt file, opened in a warm headless LibreOffice, seen as blocks.

Blocks are paragraphs (ids ``p1``, ``p2``... kept in the file as ODF ``xml:id``, so they
survive edits elsewhere) and tables (ids are their names, cells ``Table1.B2``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from asil.adapters.lo_document import OfficeDocumentAdapter, Plan, create_with_engine
from asil.adapters.params import NoParams, parse_params
from asil.adapters.writer import actions as act
from asil.apps.libreoffice import Office
from asil.protocol import (
    Action,
    ActionSchema,
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
DEFAULT_LIMIT = 40
# Engine ops that never add, remove or reorder blocks (set_text only when its text has no line or
# paragraph break, which LibreOffice may turn into a new paragraph).
KEEPS_IDS = frozenset({"set_text", "set_style", "set_list", "format_text", "set_cells", "add_table_rows",
                       "delete_table_rows", "set_page", "set_margin_text"})
BREAKS = ("\r", "\n", "\u2028", "\u2029")


class WriterAdapter(OfficeDocumentAdapter):
    """A text document: paragraphs and tables in body order, windowed for long documents."""

    ENGINE = ENGINE
    KIND = "text document"
    CREATING = ("insert_paragraph", "insert_table")
    NAVIGATE = act.Navigate
    BATCH = act.Batch
    MIMETYPE = b"application/vnd.oasis.opendocument.text"
    PDF_FILTER = "writer_pdf_Export"

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 limit: int = DEFAULT_LIMIT, **options: Any):
        super().__init__(workspace, document, office=office)
        self.offset, self.limit = 0, limit
        self._blocks: list[tuple[str, str]] | None = None
        self._last: dict[str, Any] | None = None

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

    @property
    def dirty(self) -> bool:
        return bool(self._call("dirty"))

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._goto(view)
        if offset is not None:
            self.offset = max(0, offset)
        if limit is not None:
            self.limit = max(1, min(limit, 80))
        data = self._call("observe", offset=self.offset, limit=self.limit)
        if self.offset >= data["total"] > 0:
            self.offset = max(0, data["total"] - self.limit)
            data = self._call("observe", offset=self.offset, limit=self.limit)
        self._last = data
        return self._observation(data)

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
            environment={"engine": "LibreOffice Writer (headless)", "units": "millimetres"},
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
    @classmethod
    def action_schema(cls) -> ActionSchema:
        return act.build_schema()

    def _forget(self) -> None:
        self._blocks = None

    def _keeps_ids(self, steps: list[dict[str, Any]]) -> bool:
        return all(step["op"] in KEEPS_IDS and not (step["op"] == "set_text" and any(b in step["text"] for b in BREAKS))
                   for step in steps)

    def _find(self, ident: str) -> None:
        self._require(ident)

    def _require(self, ident: str, kind: str | None = None) -> str:
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
            col, row = _cell_position(cell["col"] + cell["row"])
            return [{"op": "set_cells", "table": cell["table"], "col": col, "row": row,
                     "rows": [[_text(value)]]}], [target]
        self._require(target, "paragraph")
        params = parse_params(act.SetText, action.params, "set_value on a paragraph")
        return [{"op": "set_text", "paragraph": target, "text": params.text}], [target]

    def _plan_function(self, name: str | None, params: dict[str, Any]) -> Plan:
        if name not in act.FUNCTIONS:
            raise InvalidAction(f"Unknown writer function {name!r}.", hint=f"Functions: {', '.join(act.FUNCTIONS)}.",
                                code="unknown_function")
        parsed = parse_params(act.FUNCTIONS[name][0], params, name)
        planner = getattr(self, f"_fn_{name}")
        plan: Plan = planner(parsed)
        return plan

    # ------------------------------------------------------------ function planners
    def _fn_insert_paragraph(self, p: act.InsertParagraph) -> Plan:
        anchor = self._require(p.after or p.before or "")
        step = {"op": "insert_paragraph", "anchor": anchor, "position": "after" if p.after else "before",
                "text": p.text, "style": p.style, "list_kind": p.list}
        return [step], []

    def _fn_delete(self, p: act.DeleteBlock) -> Plan:
        self._require(p.id)
        if len(self.block_ids()) == 1:
            raise InvalidAction("The last paragraph of a document cannot be deleted.",
                                hint="Replace its text with set_value instead.")
        return [{"op": "delete_block", "block": p.id}], [p.id]

    def _fn_set_paragraph_style(self, p: act.SetParagraphStyle) -> Plan:
        for ident in p.paragraphs:
            self._require(ident, "paragraph")
        return [{"op": "set_style", "paragraphs": p.paragraphs, "style": p.style}], list(p.paragraphs)

    def _fn_format_text(self, p: act.FormatText) -> Plan:
        self._require(p.paragraph, "paragraph")
        marks = {k: getattr(p, k) for k in ("bold", "italic", "underline", "char_style") if k in p.model_fields_set}
        if not marks:
            raise InvalidAction("format_text needs at least one of bold, italic, underline or char_style.",
                                hint='e.g. {"paragraph": "p2", "text": "deadline", "bold": true}.', code="bad_params")
        return [{"op": "format_text", "paragraph": p.paragraph, "text": p.text, "marks": marks}], [p.paragraph]

    def _fn_set_list(self, p: act.SetList) -> Plan:
        for ident in p.paragraphs:
            self._require(ident, "paragraph")
        return [{"op": "set_list", "paragraphs": p.paragraphs, "kind": p.kind}], list(p.paragraphs)

    def _fn_find_replace(self, p: act.FindReplace) -> Plan:
        if p.paragraph is not None:
            self._require(p.paragraph, "paragraph")
        if p.regex:
            try:
                re.compile(p.find)
            except re.error as exc:
                raise InvalidAction(f"The regular expression {p.find!r} is not valid ({exc}).",
                                    hint="Fix the pattern, or set regex to false.", code="bad_params") from None
        step = {"op": "find_replace", "find": p.find, "replace": p.replace, "regex": p.regex,
                "match_case": p.match_case, "paragraph": p.paragraph}
        return [step], [p.paragraph] if p.paragraph else ["body"]

    def _fn_insert_table(self, p: act.InsertTable) -> Plan:
        self._require(p.after, "paragraph")
        if p.name and any(i.casefold() == p.name.casefold() for _, i in self.block_ids()):
            raise InvalidAction(f"A table or paragraph named {p.name!r} already exists.", hint="Pick another name.")
        rows = [[_text(v) for v in row] for row in p.rows]
        return [{"op": "insert_table", "anchor": p.after, "rows": rows, "name": p.name}], []

    def _fn_set_table_cells(self, p: act.SetTableCells) -> Plan:
        self._require(p.table, "table")
        col, row = _cell_position(p.cell)
        rows = [[_text(v) for v in line] for line in p.values]
        return [{"op": "set_cells", "table": p.table, "col": col, "row": row, "rows": rows}], [p.table]

    def _fn_add_table_rows(self, p: act.AddTableRows) -> Plan:
        self._require(p.table, "table")
        position = None if p.row is None else p.row - 1
        return [{"op": "add_table_rows", "table": p.table, "count": p.count, "position": position}], [p.table]

    def _fn_delete_table_rows(self, p: act.DeleteTableRows) -> Plan:
        self._require(p.table, "table")
        return [{"op": "delete_table_rows", "table": p.table, "position": p.row - 1, "count": p.count}], [p.table]

    def _fn_set_page(self, p: act.SetPage) -> Plan:
        page = {k: getattr(p, k) for k in p.model_fields_set if getattr(p, k) is not None}
        if not page:
            raise InvalidAction("set_page needs at least one property.",
                                hint="Properties: " + ", ".join(act.SetPage.model_fields) + ".", code="bad_params")
        return [{"op": "set_page", "page": page}], ["page"]

    def _fn_set_header(self, p: act.MarginText) -> Plan:
        return [{"op": "set_margin_text", "part": "header", "text": p.text}], ["header"]

    def _fn_set_footer(self, p: act.MarginText) -> Plan:
        return [{"op": "set_margin_text", "part": "footer", "text": p.text}], ["footer"]

    def _fn_export_pdf(self, p: act.ExportPdf) -> Plan:
        self.workspace.resolve(p.path)
        return [{"op": "export_pdf", "path": p.path}], []

    def _fn_save(self, p: NoParams) -> Plan:
        return [{"op": "save"}], []

    def current_page(self) -> int:
        return 1

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        create_document(workspace.resolve("sample.odt"), {"blocks": [
            {"text": "Quarterly report", "style": "Title"},
            {"text": "Sales grew in every region.", "style": "Text body"},
        ]})
        return "sample.odt"


def create_document(path: Path, spec: dict[str, Any], office: Office | None = None) -> None:
    """Build an .odt with LibreOffice from ``{"blocks": [...], "page", "header", "footer"}`` (atomic)."""
    create_with_engine(ENGINE, path, spec, office)


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
    text = (f"Text document: {total} blocks, {data['headings']} headings, about {data['pages']} page(s), "
            f"{page['orientation']} {page['width_mm']:g}x{page['height_mm']:g} mm. Showing blocks {offset}..{shown_to - 1}.")
    if shown_to < total:
        text += f" {total - shown_to} more below: navigate with params.offset={shown_to}."
    return text


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _cell_position(cell: str) -> tuple[int, int]:
    match = re.fullmatch(r"([A-Za-z]{1,2})([1-9][0-9]*)", cell)
    if match is None:
        raise InvalidAction(f"{cell!r} is not a cell like B2.", hint="Use column letters then a row number.")
    col = 0
    for ch in match[1].upper():
        col = col * 26 + ord(ch) - 64
    return col - 1, int(match[2]) - 1


__all__ = ["WriterAdapter", "block_element", "create_document"]
