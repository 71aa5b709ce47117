"""The Writer action vocabulary: parameter models, the published schema, examples and tips."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from asil.adapters.params import NoParams, Params, finish_tip, function_specs
from asil.protocol import Action, ActionSchema

MAX_BATCH = 200
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



class Navigate(Params):
    offset: Annotated[int, Field(ge=0)] | None = Field(None, description="Index of the first block to show.")
    limit: Annotated[int, Field(ge=1, le=80)] | None = Field(None, description="How many blocks to show.")


class Batch(Params):
    actions: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_BATCH)]


FUNCTIONS: dict[str, tuple[type[Params], str, bool]] = {
    "insert_paragraph": (InsertParagraph, "Insert a paragraph before or after a paragraph or table.", False),
    "delete": (DeleteBlock, "Delete a paragraph or a table.", True),
    "set_paragraph_style": (SetParagraphStyle, "Apply a paragraph style (headings, body text, quotes...).", False),
    "format_text": (FormatText, "Make text in a paragraph bold/italic/underlined or give it a character style.", False),
    "set_list": (SetList, "Turn paragraphs into bulleted or numbered list items, or back into plain paragraphs.", False),
    "find_replace": (FindReplace, "Replace every occurrence of a text (or regex) in the document or one paragraph.", False),
    "insert_table": (InsertTable, "Insert a table filled with the given rows after a paragraph.", False),
    "set_table_cells": (SetTableCells, "Write a block of values into a table (rows are added when needed).", False),
    "add_table_rows": (AddTableRows, "Add empty rows to a table.", False),
    "delete_table_rows": (DeleteTableRows, "Delete rows of a table.", True),
    "set_page": (SetPage, "Set page orientation, size and margins (in millimetres).", False),
    "set_header": (MarginText, "Set the page header text (null removes the header).", False),
    "set_footer": (MarginText, "Set the page footer text (null removes the footer).", False),
    "export_pdf": (ExportPdf, "Export the document as PDF through LibreOffice.", False),
    "save": (NoParams, "Write the document to disk now (it is also saved when the episode ends).", False),
}

EXAMPLES = [
    {"action_type": "set_value", "target": "p1", "params": {"text": "Quarterly report"}},
    {"action_type": "invoke_function", "target": "insert_paragraph",
     "params": {"after": "p1", "text": "Summary", "style": "Heading 1"}},
    {"action_type": "invoke_function", "target": "set_paragraph_style", "params": {"paragraphs": ["p1"], "style": "Title"}},
    {"action_type": "invoke_function", "target": "format_text", "params": {"paragraph": "p1", "text": "report", "bold": True}},
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
    {"action_type": "done", "params": {"answer": "optional text answer"}},
]

TIPS = [
    "Paragraph ids (p1, p2, ...) stay the same when other paragraphs are inserted or deleted; new paragraphs get "
    "new ids, returned in 'changed'. Tables are addressed by name (Table1), their cells as Table1.B2.",
    "set_value on a paragraph replaces its whole text; use find_replace or format_text to change part of it.",
    "Headings are paragraphs with a 'Heading N' style; the observation's navigation lists the outline.",
    "Style names are LibreOffice's: Standard, Text body, Heading 1..10, Title, Subtitle, Quotations, List Bullet "
    "(use set_list for lists).",
    "Large documents are shown as a window of blocks; navigate to an id or an offset to page.",
    "A batch is atomic: if one action fails, none of it is applied.",
    finish_tip(),
]


def build_schema() -> ActionSchema:
    return ActionSchema(
        app="writer",
        action_types=["set_value", "invoke_function", "navigate", "batch", "done", "infeasible"],
        target_format="set_value: a paragraph id (p3) or a table cell (Table1.B2); invoke_function: a function "
        "name; navigate: a paragraph or table id",
        functions=function_specs(FUNCTIONS),
        set_value_params={"paragraph": SetText.model_json_schema(), "table cell": SetCell.model_json_schema()},
        navigate_params=Navigate.model_json_schema(),
        examples=[Action.model_validate(e) for e in EXAMPLES],
        tips=TIPS,
    )
