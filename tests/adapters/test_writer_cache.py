"""The Writer engine keeps what it read across edits: every observation must still equal a fresh reading.

Each case warms the engine's reading cache with an observation, applies one kind of edit, and
compares the observation the agent gets with the observation of a freshly opened copy of the
saved document (ids, order, outline, page count, styles, text). A cache that is kept when it
should have been dropped, or refreshed wrongly, shows up as a difference here.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from asil.adapters.writer.adapter import WriterAdapter, create_document
from asil.protocol import Observation, parse_action
from asil.workspace import Workspace

F = "invoke_function"
WORDS = "The committee reviewed the quarterly figures and agreed on the next steps for each region. "
SPEC = {"blocks": [
    {"text": "Report", "style": "Title"},
    {"text": "Overview", "style": "Heading 1"},
    *({"text": f"{i}. {WORDS * 3}", "style": "Text body"} for i in range(1, 9)),
    {"text": "Open items", "list": "number"},
    {"text": "Closed items", "list": "number"},
    {"table": [["Item", "Qty"], ["Pens", "3"]], "name": "Stock"},
    {"text": "Details", "style": "Heading 1"},
    *({"text": f"{i}. {WORDS * 4}", "style": "Text body"} for i in range(9, 17)),
]}


def fn(function: str, /, **params: Any) -> dict[str, Any]:
    return {"action_type": F, "target": function, "params": params}


def text(target: str, value: str) -> dict[str, Any]:
    return {"action_type": "set_value", "target": target, "params": {"text": value}}


EDITS: dict[str, list[dict[str, Any]]] = {
    "set_text": [text("p3", "Short now.")],
    "set_text_longer_adds_pages": [text("p4", WORDS * 60)],
    "set_text_with_paragraph_break": [text("p3", "First half\rsecond half")],
    "set_text_with_line_break": [text("p3", "Line one\nline two")],
    "set_style_to_heading": [fn("set_paragraph_style", paragraphs=["p4", "p5"], style="Heading 2")],
    "set_style_from_heading": [fn("set_paragraph_style", paragraphs=["p2"], style="Text body")],
    "set_list": [fn("set_list", paragraphs=["p6"], kind="bullet")],
    "unset_list": [fn("set_list", paragraphs=["p11"], kind="none")],
    "format_text": [fn("format_text", paragraph="p3", text="committee", bold=True, italic=True)],
    "find_replace_in_paragraph": [fn("find_replace", find="committee", replace="board", paragraph="p3")],
    "find_replace_everywhere": [fn("find_replace", find="committee", replace="board")],
    "find_replace_adds_paragraphs": [fn("find_replace", find="agreed ", replace="agreed\\n", regex=True)],
    "insert_paragraph": [fn("insert_paragraph", after="p2", text="New first point.", style="Heading 2")],
    "insert_paragraph_before": [fn("insert_paragraph", before="p3", text="A list item.", list="number")],
    "insert_paragraph_before_table": [fn("insert_paragraph", before="Stock", text="Above the table.")],
    "insert_paragraph_with_break": [fn("insert_paragraph", after="p12", text="One\rtwo")],
    "inserts_in_a_row": [fn("insert_paragraph", after="p2", text="First."), fn("insert_paragraph", after="p2", text="Second."),
                         fn("set_paragraph_style", paragraphs=["p3"], style="Heading 3")],
    "delete": [fn("delete", id="p5")],
    "insert_table": [fn("insert_table", after="p4", rows=[["a", "b"], ["1", "2"]], name="Extra")],
    "set_table_cells": [fn("set_table_cells", table="Stock", cell="A2", values=[["Ink", "9"]])],
    "add_table_rows": [fn("add_table_rows", table="Stock", count=2)],
    "delete_table_rows": [fn("delete_table_rows", table="Stock", row=2, count=1)],
    "set_page_landscape": [fn("set_page", orientation="landscape")],
    "set_header": [fn("set_header", text="Draft")],
    "edits_in_a_row": [text("p3", WORDS * 30), fn("set_paragraph_style", paragraphs=["p3"], style="Heading 1"),
                       fn("format_text", paragraph="p4", underline=True), fn("set_page", margin_left_mm=50)],
    "batch": [{"action_type": "batch", "params": {"actions": [
        text("p3", "Batch text."), fn("set_paragraph_style", paragraphs=["p7"], style="Heading 1"),
        fn("insert_paragraph", before="p9", text="Batch insert.")]}}],
    "batch_undone": [{"action_type": "batch", "params": {"actions": [
        text("p3", "Not kept."), fn("format_text", paragraph="p4", text="not in the paragraph", bold=True)]}}],
}
FAILING = {"batch_undone"}


def reading(obs: Observation) -> dict[str, Any]:
    """What the agent reads about the document (not the file name, step or dirty flag)."""
    agent = obs.to_agent_dict()
    return {"elements": agent["elements"], "navigation": agent["navigation"], "details": agent["app_state"]["details"]}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(EDITS))
def test_observation_after_an_edit_equals_a_fresh_reading(workspace: Workspace, case: str) -> None:
    create_document(workspace.resolve("doc.odt"), SPEC)
    with WriterAdapter(workspace, "doc.odt", limit=80) as writer:
        before = writer.observe()  # warms the engine's reading cache, as an agent's loop does
        for raw in EDITS[case]:
            result = writer.execute(parse_action(raw))
            assert result.ok != (case in FAILING), result.error
        seen = writer.observe()
        writer.save()
    shutil.copyfile(workspace.resolve("doc.odt"), workspace.resolve("fresh.odt"))
    with WriterAdapter(workspace, "fresh.odt", limit=80) as fresh:
        expected = fresh.observe()
    assert reading(seen) == reading(expected)
    assert (reading(seen) == reading(before)) == (case in FAILING), "the edit should have changed the reading"
    if case == "set_text_longer_adds_pages":
        assert seen.app_state.details["pages"] > before.app_state.details["pages"]


def test_ids_stay_usable_after_edits_that_keep_them(workspace: Workspace) -> None:
    """The adapter keeps its block ids across in-paragraph edits; a split paragraph must still be addressable."""
    create_document(workspace.resolve("doc.odt"), SPEC)
    with WriterAdapter(workspace, "doc.odt", limit=80) as writer:
        old = [e.id for e in writer.observe().elements]
        assert writer.execute(parse_action(text("p3", "Edited."))).ok
        split = writer.execute(parse_action(text("p3", "Left\rright")))
        assert split.ok and split.observation is not None
        ids = [e.id for e in split.observation.elements]
        new = ids[ids.index("p3") + 1]
        assert new not in old and len(ids) == len(old) + 1
        moved = writer.execute(parse_action(fn("set_paragraph_style", paragraphs=[new], style="Heading 2")))
        assert moved.ok, moved.error
        assert moved.observation is not None
        assert {e.id: e.type for e in moved.observation.elements}[new] == "heading"
