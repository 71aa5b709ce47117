"""The Writer action vocabulary: parameter models, the functions with their planners, examples and tips.

A planner checks a function call against the document and turns it into engine steps and the ids
it changes (:data:`~asil.adapters.lo_document.Plan`), without side effects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator

from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, FunctionTable, Vocabulary
from asil.adapters.lo_document import Plan, export_pdf_function, navigate_window, save_function
from asil.adapters.params import Params
from asil.protocol import ActionSchema, InvalidAction

if TYPE_CHECKING:
    from asil.adapters.writer.adapter import WriterAdapter

MAX_TEXT = 100_000
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Cell = Annotated[str, Field(pattern=r"^[A-Za-z]{1,2}[1-9][0-9]{0,4}$")]
CellValue = str | int | float | None
Rows = Annotated[list[Annotated[list[CellValue], Field(min_length=1, max_length=50)]], Field(min_length=1, max_length=500)]
ListKind = Literal["bullet", "number"]


class SetText(Params):
    text: Text = Field(description="The paragraph's new text (replaces its text and character formatting).")


class SetCell(Params):
    value: CellValue = Field(description="The table cell's new text (numbers are written as text).")


class InsertParagraph(Params):
    after: str | None = Field(None, description="Id of the paragraph or table the new paragraph follows.")
    before: str | None = Field(None, description="Id of the paragraph or table the new paragraph precedes.")
    text: Text = ""
    style: str | None = Field(None, description="Paragraph style, e.g. 'Heading 2'; the anchor's style when omitted.")
    list: ListKind | None = Field(None, description="Make the paragraph a bulleted or numbered list item.")

    @model_validator(mode="after")
    def _one_anchor(self) -> InsertParagraph:
        if (self.after is None) == (self.before is None):
            raise ValueError("give exactly one of 'after' or 'before'")
        return self


class DeleteBlock(Params):
    id: str = Field(description="Id of the paragraph (p7) or table (Table1) to delete.")


class SetParagraphStyle(Params):
    paragraphs: Annotated[list[str], Field(min_length=1, max_length=500)]
    style: str = Field(description="Paragraph style name, e.g. 'Heading 1', 'Text body', 'Quotations'.")


class FormatText(Params):
    paragraph: str
    text: str | None = Field(None, description="Exact text inside the paragraph (first occurrence); all of it when omitted.")
    bold: bool | None = None
    italic: bool | None = None
    underline: bool | None = None
    char_style: str | None = Field(None, description="Character style, e.g. 'Emphasis', 'Strong Emphasis'.")


class SetList(Params):
    paragraphs: Annotated[list[str], Field(min_length=1, max_length=500)]
    kind: Literal["bullet", "number", "none"]


class FindReplace(Params):
    find: Annotated[str, Field(min_length=1, max_length=1000)]
    replace: Annotated[str, Field(max_length=MAX_TEXT)]
    regex: bool = False
    match_case: bool = False
    paragraph: str | None = Field(None, description="Only inside this paragraph; the whole document when omitted.")


class InsertTable(Params):
    after: str = Field(description="Id of the paragraph the table follows.")
    rows: Rows = Field(description="Rows of cell texts; the first row is usually the header.")
    name: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,30}$")] | None = None


class SetTableCells(Params):
    table: str
    cell: Cell = Field("A1", description="Top-left cell of the block, e.g. 'A2'.")
    values: Rows


class AddTableRows(Params):
    table: str
    count: Annotated[int, Field(ge=1, le=500)] = 1
    row: Annotated[int, Field(ge=1)] | None = Field(None, description="1-based row the new rows go before; "
                                                     "at the end when omitted.")


class DeleteTableRows(Params):
    table: str
    row: Annotated[int, Field(ge=1)]
    count: Annotated[int, Field(ge=1, le=500)] = 1


Millimetres = Annotated[float, Field(ge=0, le=2000)]


class SetPage(Params):
    orientation: Literal["portrait", "landscape"] | None = None
    width_mm: Annotated[float, Field(ge=20, le=2000)] | None = None
    height_mm: Annotated[float, Field(ge=20, le=2000)] | None = None
    margin_top_mm: Millimetres | None = None
    margin_bottom_mm: Millimetres | None = None
    margin_left_mm: Millimetres | None = None
    margin_right_mm: Millimetres | None = None


class MarginText(Params):
    text: Annotated[str, Field(max_length=2000)] | None = Field(description="The text, or null to remove it.")


class ExportPdf(Params):
    path: Annotated[str, Field(pattern=r"(?i)^[^\x00]+\.pdf$")] = Field(description="Workspace-relative .pdf path.")


Planner = Callable[["WriterAdapter", Any], Plan]
FUNCTIONS: FunctionTable[Planner] = FunctionTable("writer")


@FUNCTIONS.function("insert_paragraph", InsertParagraph, "Insert a paragraph before or after a paragraph or table.",
                    acts_on="paragraphs")
def insert_paragraph(doc: WriterAdapter, p: InsertParagraph) -> Plan:
    anchor = doc.require(p.after or p.before or "")
    step = {"op": "insert_paragraph", "anchor": anchor, "position": "after" if p.after else "before",
            "text": p.text, "style": p.style, "list_kind": p.list}
    return [step], []


@FUNCTIONS.function("delete", DeleteBlock, "Delete a paragraph or a table.", destructive=True, acts_on="blocks")
def delete(doc: WriterAdapter, p: DeleteBlock) -> Plan:
    doc.require(p.id)
    if len(doc.block_ids()) == 1:
        raise InvalidAction("The last paragraph of a document cannot be deleted.",
                            hint="Replace its text with set_value instead.")
    return [{"op": "delete_block", "block": p.id}], [p.id]


@FUNCTIONS.function("set_paragraph_style", SetParagraphStyle,
                    "Apply a paragraph style (headings, body text, quotes...).", acts_on="paragraphs")
def set_paragraph_style(doc: WriterAdapter, p: SetParagraphStyle) -> Plan:
    return [{"op": "set_style", "paragraphs": _paragraphs(doc, p.paragraphs), "style": p.style}], list(p.paragraphs)


@FUNCTIONS.function("format_text", FormatText,
                    "Make text in a paragraph bold/italic/underlined or give it a character style.", acts_on="text")
def format_text(doc: WriterAdapter, p: FormatText) -> Plan:
    doc.require(p.paragraph, "paragraph")
    marks = {k: getattr(p, k) for k in ("bold", "italic", "underline", "char_style") if k in p.model_fields_set}
    if not marks:
        raise InvalidAction("format_text needs at least one of bold, italic, underline or char_style.",
                            hint='e.g. {"paragraph": "p2", "text": "deadline", "bold": true}.', code="bad_params")
    return [{"op": "format_text", "paragraph": p.paragraph, "text": p.text, "marks": marks}], [p.paragraph]


@FUNCTIONS.function("set_list", SetList,
                    "Turn paragraphs into bulleted or numbered list items, or back into plain paragraphs.",
                    acts_on="paragraphs")
def set_list(doc: WriterAdapter, p: SetList) -> Plan:
    return [{"op": "set_list", "paragraphs": _paragraphs(doc, p.paragraphs), "kind": p.kind}], list(p.paragraphs)


def _paragraphs(doc: WriterAdapter, ids: list[str]) -> list[str]:
    """``ids`` if each names a paragraph; InvalidAction (no_element) for the first that does not."""
    return [doc.require(ident, "paragraph") for ident in ids]


@FUNCTIONS.function("find_replace", FindReplace,
                    "Replace every occurrence of a text (or regex) in the document or one paragraph.", acts_on="text")
def find_replace(doc: WriterAdapter, p: FindReplace) -> Plan:
    if p.paragraph is not None:
        doc.require(p.paragraph, "paragraph")
    if p.regex:
        try:
            re.compile(p.find)
        except re.error as exc:
            raise InvalidAction(f"The regular expression {p.find!r} is not valid ({exc}).",
                                hint="Fix the pattern, or set regex to false.", code="bad_params") from None
    step = {"op": "find_replace", "find": p.find, "replace": p.replace, "regex": p.regex,
            "match_case": p.match_case, "paragraph": p.paragraph}
    return [step], [p.paragraph] if p.paragraph else ["body"]


@FUNCTIONS.function("insert_table", InsertTable, "Insert a table filled with the given rows after a paragraph.",
                    acts_on="tables")
def insert_table(doc: WriterAdapter, p: InsertTable) -> Plan:
    doc.require(p.after, "paragraph")
    if p.name and any(i.casefold() == p.name.casefold() for _, i in doc.block_ids()):
        raise InvalidAction(f"A table or paragraph named {p.name!r} already exists.", hint="Pick another name.")
    rows = [[cell_text(v) for v in row] for row in p.rows]
    return [{"op": "insert_table", "anchor": p.after, "rows": rows, "name": p.name}], []


@FUNCTIONS.function("set_table_cells", SetTableCells,
                    "Write a block of values into a table (rows are added when needed).", acts_on="tables")
def set_table_cells(doc: WriterAdapter, p: SetTableCells) -> Plan:
    doc.require(p.table, "table")
    col, row = cell_position(p.cell)
    rows = [[cell_text(v) for v in line] for line in p.values]
    return [{"op": "set_cells", "table": p.table, "col": col, "row": row, "rows": rows}], [p.table]


@FUNCTIONS.function("add_table_rows", AddTableRows, "Add empty rows to a table.", acts_on="tables")
def add_table_rows(doc: WriterAdapter, p: AddTableRows) -> Plan:
    doc.require(p.table, "table")
    position = None if p.row is None else p.row - 1
    return [{"op": "add_table_rows", "table": p.table, "count": p.count, "position": position}], [p.table]


@FUNCTIONS.function("delete_table_rows", DeleteTableRows, "Delete rows of a table.", destructive=True,
                    acts_on="tables")
def delete_table_rows(doc: WriterAdapter, p: DeleteTableRows) -> Plan:
    doc.require(p.table, "table")
    return [{"op": "delete_table_rows", "table": p.table, "position": p.row - 1, "count": p.count}], [p.table]


@FUNCTIONS.function("set_page", SetPage, "Set page orientation, size and margins (in millimetres).", acts_on="page")
def set_page(doc: WriterAdapter, p: SetPage) -> Plan:
    page = {k: getattr(p, k) for k in p.model_fields_set if getattr(p, k) is not None}
    if not page:
        raise InvalidAction("set_page needs at least one property.",
                            hint="Properties: " + ", ".join(SetPage.model_fields) + ".", code="bad_params")
    return [{"op": "set_page", "page": page}], ["page"]


@FUNCTIONS.function("set_header", MarginText, "Set the page header text (null removes the header).", acts_on="page")
def set_header(doc: WriterAdapter, p: MarginText) -> Plan:
    return [{"op": "set_margin_text", "part": "header", "text": p.text}], ["header"]


@FUNCTIONS.function("set_footer", MarginText, "Set the page footer text (null removes the footer).", acts_on="page")
def set_footer(doc: WriterAdapter, p: MarginText) -> Plan:
    return [{"op": "set_margin_text", "part": "footer", "text": p.text}], ["footer"]


FUNCTIONS.add("export_pdf", export_pdf_function("document", ExportPdf))
FUNCTIONS.add("save", save_function("document"))


def cell_text(value: Any) -> str:
    """A table cell's text for a value (numbers are written as text; whole floats without '.0')."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def cell_position(cell: str) -> tuple[int, int]:
    """The 0-based (column, row) of a cell like B2."""
    match = re.fullmatch(r"([A-Za-z]{1,2})([1-9][0-9]*)", cell)
    if match is None:
        raise InvalidAction(f"{cell!r} is not a cell like B2.", hint="Use column letters then a row number.")
    col = 0
    for ch in match[1].upper():
        col = col * 26 + ord(ch) - 64
    return col - 1, int(match[2]) - 1


@dataclass(frozen=True)
class TargetedVocabulary(Vocabulary):
    """A vocabulary whose set_value params depend on what the target is (one model per kind of target)."""

    set_value_by_target: Mapping[str, type[Params]] = field(default_factory=dict)

    def schema(self, functions: FunctionTable[Any]) -> ActionSchema:
        params = {kind: model.model_json_schema() for kind, model in self.set_value_by_target.items()}
        return super().schema(functions).model_copy(update={"set_value_params": params})


VOCABULARY = TargetedVocabulary(
    app="writer",
    action_types=FILE_ACTION_TYPES,
    target_format="modify_file: the open document (or none); "
    "set_value: a paragraph id (p3) or a table cell (Table1.B2); invoke_function: a function "
    "name; navigate: a paragraph or table id",
    set_value_by_target={"paragraph": SetText, "table cell": SetCell},
    navigate_params=navigate_window(80, "Index of the first block to show.", "How many blocks to show."),
    batch_hint="Put only set_value and invoke_function editing actions in a batch.",
    examples=[
        {"action_type": "set_value", "target": "p1", "params": {"text": "Quarterly report"}},
        {"action_type": "invoke_function", "target": "insert_paragraph",
         "params": {"after": "p1", "text": "Summary", "style": "Heading 1"}},
        {"action_type": "invoke_function", "target": "set_paragraph_style", "params": {"paragraphs": ["p1"], "style": "Title"}},
        {"action_type": "invoke_function", "target": "format_text",
         "params": {"paragraph": "p1", "text": "report", "bold": True}},
        {"action_type": "invoke_function", "target": "find_replace", "params": {"find": "Quarterly", "replace": "Annual"}},
        {"action_type": "invoke_function", "target": "insert_table",
         "params": {"after": "p1", "rows": [["Item", "Qty"], ["Pens", 3]], "name": "Stock"}},
        {"action_type": "set_value", "target": "Stock.B2", "params": {"value": 4}},
        {"action_type": "invoke_function", "target": "set_page", "params": {"orientation": "landscape", "margin_left_mm": 25}},
        {"action_type": "invoke_function", "target": "set_footer", "params": {"text": "Company confidential"}},
        {"action_type": "navigate", "target": "p1", "params": {"limit": 30}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "insert_paragraph",
             "params": {"before": "p1", "text": "Draft", "style": "Subtitle"}},
            {"action_type": "invoke_function", "target": "set_list", "params": {"paragraphs": ["p1"], "kind": "none"}}]}},
        {"action_type": "invoke_function", "target": "export_pdf", "params": {"path": "report.pdf"}},
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "insert_paragraph", "params": {"after": "p1", "text": "Prepared by the team."}},
            {"op": "set_paragraph_style", "params": {"paragraphs": ["p1"], "style": "Title"}}]}},
    ],
    tips=[
        "Paragraph ids (p1, p2, ...) stay the same when other paragraphs are inserted or deleted; new paragraphs get "
        "new ids, returned in 'changed'. Tables are addressed by name (Table1), their cells as Table1.B2.",
        "set_value on a paragraph replaces its whole text; use find_replace or format_text to change part of it.",
        "Headings are paragraphs with a 'Heading N' style; the observation's navigation lists the outline.",
        "Style names are LibreOffice's: Standard, Text body, Heading 1..10, Title, Subtitle, Quotations, List Bullet "
        "(use set_list for lists).",
        "Large documents are shown as a window of blocks; navigate to an id or an offset to page.",
        "A batch is atomic: if one action fails, none of it is applied.",
        MODIFY_FILE_TIP,
    ],
)
