"""The Writer adapter against the real LibreOffice."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from asil.adapters.writer.adapter import WriterAdapter, create_document
from asil.adapters.writer.raw import RawTextDocument
from asil.protocol import ActionResult, parse_action
from asil.workspace import Workspace
from tests.conftest import lo_convert

F = "invoke_function"

MEMO = {"blocks": [
    {"text": "Status", "style": "Title"},
    {"text": "Background", "style": "Heading 1"},
    {"text": "Falcon replaces billing.", "style": "Text body", "spans": [{"text": "billing", "bold": True}]},
    {"text": "Finish migration", "list": "bullet"},
    {"table": [["Item", "Cost"], ["Servers", "12000"]], "name": "Budget"},
    {"text": "Contact: team@example.com", "style": "Text body"},
]}


@pytest.fixture
def memo(workspace: Workspace) -> Path:
    path = workspace.resolve("memo.odt")
    create_document(path, MEMO)
    return path


def act(adapter: WriterAdapter, raw: dict[str, object]) -> ActionResult:
    return adapter.execute(parse_action(raw))


def texts(adapter: WriterAdapter) -> dict[str, object]:
    return {e.id: e.value for e in adapter.observe().elements}


def test_observation_shows_blocks_styles_lists_tables_and_page(workspace: Workspace, memo: Path) -> None:
    with WriterAdapter(workspace, "memo.odt") as writer:
        obs = writer.observe()
    elements = {e.id: e for e in obs.elements}
    assert [e.id for e in obs.elements] == ["p1", "p2", "p3", "p4", "Budget", "p5"]
    assert elements["p2"].type == "heading" and elements["p2"].meta["level"] == 1
    assert elements["p3"].meta["spans"] == [{"text": "billing", "bold": True}]
    assert elements["p4"].type == "list_item" and elements["p4"].meta["list"]["kind"] == "bullet"
    assert elements["Budget"].value == [["Item", "Cost"], ["Servers", "12000"]]
    assert obs.navigation.meta["outline"] == [{"id": "p2", "index": 1, "level": 1, "text": "Background"}]
    assert obs.app_state.details["page"]["width_mm"] == 210 and not obs.app_state.dirty


def test_paragraph_ids_survive_inserts_deletes_and_reopening(workspace: Workspace, memo: Path) -> None:
    with WriterAdapter(workspace, "memo.odt") as writer:
        result = act(writer, {"action_type": F, "target": "insert_paragraph",
                              "params": {"before": "p1", "text": "DRAFT", "style": "Subtitle"}})
        assert result.ok and result.changed == ["p6"]
        assert act(writer, {"action_type": F, "target": "delete", "params": {"id": "p2"}}).ok
        assert act(writer, {"action_type": "set_value", "target": "p3", "params": {"text": "Falcon replaces all billing."}}).ok
        before = texts(writer)
        writer.save()
    assert list(before) == ["p6", "p1", "p3", "p4", "Budget", "p5"]
    with WriterAdapter(workspace, "memo.odt") as again:
        assert texts(again) == before
    assert "xml:id=\"p3\"" in subprocess.run(["unzip", "-p", str(memo), "content.xml"], capture_output=True,
                                             text=True, check=True).stdout


def test_styles_find_replace_tables_page_and_pdf(workspace: Workspace, memo: Path) -> None:
    with WriterAdapter(workspace, "memo.odt") as writer:
        for action in [
            {"action_type": F, "target": "set_paragraph_style", "params": {"paragraphs": ["p5"], "style": "Quotations"}},
            {"action_type": F, "target": "format_text", "params": {"paragraph": "p1", "italic": True}},
            {"action_type": F, "target": "find_replace", "params": {"find": "Falcon", "replace": "Osprey"}},
            {"action_type": "set_value", "target": "Budget.B2", "params": {"value": 13000}},
            {"action_type": F, "target": "set_table_cells", "params": {"table": "Budget", "cell": "A3",
                                                                          "values": [["Total", 13000]]}},
            {"action_type": F, "target": "set_page", "params": {"orientation": "landscape", "margin_left_mm": 15}},
            {"action_type": F, "target": "set_footer", "params": {"text": "Internal"}},
            {"action_type": F, "target": "export_pdf", "params": {"path": "out/memo.pdf"}},
        ]:
            result = act(writer, action)
            assert result.ok, (action, result.error)
        obs = writer.observe()
        writer.save()
    elements = {e.id: e for e in obs.elements}
    assert elements["p5"].meta["style"] == "Quotations" and elements["p3"].value == "Osprey replaces billing."
    assert elements["p1"].meta["spans"] == [{"text": "Status", "italic": True}]
    assert elements["Budget"].value[1:] == [["Servers", "13000"], ["Total", "13000"]]
    page = RawTextDocument.load(memo).page()
    assert (page["orientation"], page["width_mm"], page["margin_left_mm"], page["footer"]) == ("landscape", 297, 15, "Internal")
    info = subprocess.run(["pdfinfo", str(workspace.resolve("out/memo.pdf"))], capture_output=True, text=True, check=True)
    assert re.search(r"Pages:\s+1\n", info.stdout)


def test_a_failing_batch_changes_nothing(workspace: Workspace, memo: Path) -> None:
    with WriterAdapter(workspace, "memo.odt") as writer:
        before = writer.observe().model_dump(exclude={"metadata"})
        result = act(writer, {"action_type": "batch", "params": {"actions": [
            {"action_type": "set_value", "target": "p1", "params": {"text": "Changed"}},
            {"action_type": F, "target": "set_paragraph_style", "params": {"paragraphs": ["p3"], "style": "No Such Style"}},
        ]}})
        assert result.status == "invalid" and "undone" in result.error.message  # type: ignore[union-attr]
        assert writer.observe().model_dump(exclude={"metadata"}) == before


@pytest.mark.parametrize("raw", [
    {"action_type": "set_value", "target": "p99", "params": {"text": "x"}},
    {"action_type": "set_value", "target": "p1", "params": {"value": 3}},
    {"action_type": F, "target": "insert_paragraph", "params": {"text": "no anchor"}},
    {"action_type": F, "target": "format_text", "params": {"paragraph": "p1"}},
    {"action_type": F, "target": "find_replace", "params": {"find": "(", "replace": "", "regex": True}},
    {"action_type": F, "target": "export_pdf", "params": {"path": "../escape.pdf"}},
    {"action_type": "batch", "params": {"actions": [{"action_type": "set_value", "target": "p1", "params": {"text": "a"}},
                                                    {"action_type": "set_value", "target": "nope", "params": {"text": "b"}}]}},
])
def test_malformed_actions_are_invalid_and_leave_the_file_unchanged(workspace: Workspace, memo: Path,
                                                                    raw: dict[str, object]) -> None:
    before = memo.read_bytes()
    with WriterAdapter(workspace, "memo.odt") as writer:
        result = act(writer, raw)
        assert result.status == "invalid" and result.error is not None
        assert result.error.message.endswith(".") and result.error.hint
        writer.save()
    assert memo.read_bytes() == before
    assert workspace.files() == ["memo.odt"]


@pytest.mark.slow
def test_a_300_page_document_is_windowed(workspace: Workspace) -> None:
    words = "The committee reviewed the quarterly figures and agreed on the next steps for each region. " * 8
    blocks = [{"text": f"Chapter {i // 20 + 1}", "style": "Heading 1"} if i % 20 == 0 else {"text": f"{i}. {words}"}
              for i in range(2400)]
    create_document(workspace.resolve("long.odt"), {"blocks": blocks})
    with WriterAdapter(workspace, "long.odt") as writer:
        obs = writer.observe()
        assert obs.app_state.details["pages"] >= 300
        assert obs.navigation.paging is not None and obs.navigation.paging.total == 2400
        assert len(json.dumps(obs.to_agent_dict())) / 4 <= 8000
        assert act(writer, {"action_type": "navigate", "params": {"offset": 2000}}).ok
        assert writer.observe().elements[0].id == "p2001"


def test_a_saved_document_opens_in_a_separate_libreoffice(workspace: Workspace, memo: Path, tmp_path: Path) -> None:
    with WriterAdapter(workspace, "memo.odt") as writer:
        assert act(writer, {"action_type": "set_value", "target": "p1", "params": {"text": "Converted status"}}).ok
        writer.save()
    pdf = lo_convert(memo, "pdf", tmp_path)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "Converted status" in text and "Servers" in text
