"""modify_file: operations on the document applied all or nothing with one save (real LibreOffice, real files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.adapters.calc.adapter import CalcAdapter
from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.adapters.writer.adapter import WriterAdapter
from asil.plugins import adapter_class
from asil.protocol import parse_action
from asil.workspace import Workspace
from tests.conftest import lo_convert, run_cli

FILE_APPS = ["calc", "writer", "impress", "inkscape", "drawio", "jupyter"]


def modify(*operations: dict[str, object], target: str | None = None) -> object:
    return parse_action({"action_type": "modify_file", "target": target, "params": {"operations": list(operations)}})


@pytest.mark.parametrize("app", FILE_APPS)
def test_the_schema_lists_the_operation_kinds_from_the_function_table(app: str) -> None:
    cls = adapter_class(app)
    schema = cls.action_schema()
    kinds = schema.modify_file_params["$defs"]["Operation"]["properties"]["op"]["enum"]
    assert "modify_file" in schema.action_types
    batchable = [name for name in cls.functions.names() if cls.functions[name].batch]
    assert [k for k in kinds if k != "set_value"] == batchable  # named after the functions, nothing else
    assert "save" not in kinds and any(e.action_type == "modify_file" for e in schema.examples)


def test_calc_applies_every_operation_with_one_save(workspace: Workspace, sales: Path) -> None:
    before = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        result = calc.execute(modify(
            {"op": "insert_rows", "params": {"sheet": "Sales", "row": 2}},
            {"op": "set_value", "target": "Sales!A2", "params": {"value": "West"}},
            {"op": "format_range", "params": {"range": "Sales!A2", "bold": True}}, target="sales.ods"))
        assert result.ok, result.error
        assert sales.read_bytes() != before and not calc.dirty  # saved once, nothing pending
        cells = {e.id: e for e in calc.observe().elements}
    assert cells["Sales!A2"].value == "West" and cells["Sales!A2"].meta.get("bold") is True
    assert cells["Sales!A3"].value == "North"


def test_calc_a_failing_operation_leaves_the_file_byte_for_byte_unchanged(workspace: Workspace, sales: Path) -> None:
    before = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        shown = calc.observe().model_dump()["elements"]
        result = calc.execute(modify(
            {"op": "add_sheet", "params": {"name": "Extra"}},
            {"op": "set_value", "target": "Sales!A2", "params": {"value": "changed"}},
            {"op": "set_value", "target": "Sales!D1", "params": {"formula": "=NOSUCHFUNC(1)"}}))
        assert not result.ok and result.error is not None
        assert result.error.message.startswith("Operation 3 (set_value): ")  # LibreOffice failed while applying it
        assert calc.sheet_names() == ["Sales", "Notes"] and not calc.dirty
        assert calc.observe().model_dump()["elements"] == shown
    assert sales.read_bytes() == before


@pytest.mark.parametrize(("operations", "target", "fragment"), [
    ([{"op": "insert_rows", "params": {"row": 2}}, {"op": "bogus"}], None,
     "Operation 2 (bogus) is not an operation of calc's modify_file."),
    ([{"op": "save"}], None, "Operation 1 (save) is not an operation"),
    ([{"op": "insert_rows", "params": {"row": 0}}], None, "Operation 1 (insert_rows): Parameter 'row' of insert_rows"),
    ([{"op": "insert_rows", "target": "Sales!A1", "params": {"row": 2}}], None, "Operation 1 (insert_rows) takes no target"),
    ([{"op": "add_sheet", "params": {"name": "Notes"}}], None, "Operation 1 (add_sheet): "),
    ([{"op": "insert_rows", "params": {"row": 2}}], "other.ods", "modify_file changes the open document 'sales.ods'"),
])
def test_calc_refusals_name_the_operation_and_change_nothing(workspace: Workspace, sales: Path,
                                                             operations: list[dict[str, object]], target: str | None,
                                                             fragment: str) -> None:
    before = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        result = calc.execute(modify(*operations, target=target))
        assert result.status == "invalid" and result.error is not None
        assert fragment in result.error.message, result.error.message
        assert result.error.message.endswith(".") and not calc.dirty
    assert sales.read_bytes() == before


def test_inkscape_undoes_operations_when_a_later_one_fails_while_applying(workspace: Workspace) -> None:
    name = InkscapeAdapter.create_sample(workspace)
    assert name is not None
    path = workspace.resolve(name)
    before = path.read_bytes()
    with InkscapeAdapter(workspace, name) as inkscape:
        result = inkscape.execute(modify(
            {"op": "add_rect", "params": {"x": 1, "y": 1, "width": 5, "height": 5, "id": "new-box"}},
            {"op": "restyle", "params": {"ids": ["no-such-element"], "style": {"fill": "#000000"}}}))
        assert not result.ok and result.error is not None
        assert result.error.message.startswith("Operation 2 (restyle): ")
        assert "new-box" not in {e.id for e in inkscape.observe().elements}
    assert path.read_bytes() == before


def test_writer_opens_and_modifies_an_odt_that_libreoffice_wrote_from_html(workspace: Workspace, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body><h1>Minutes</h1><p>Attendees: Ann, Bo.</p></body></html>", encoding="utf-8")
    converted = lo_convert(page, "odt:writer8", tmp_path)  # a separate soffice, as a user would run it
    import zipfile

    with zipfile.ZipFile(converted) as archive:
        assert archive.read("mimetype") == b"application/vnd.oasis.opendocument.text-web"
    target = workspace.resolve("page.odt")
    target.write_bytes(converted.read_bytes())
    observed = run_cli("observe", str(target))  # the command the issue found refusing it
    assert observed.returncode == 0 and "Attendees: Ann, Bo." in observed.stdout, observed.stderr
    with WriterAdapter(workspace, "page.odt") as writer:
        texts = [e.value for e in writer.observe().elements]
        assert "Minutes" in texts and "Attendees: Ann, Bo." in texts
        first = writer.observe().elements[0].id
        result = writer.execute(modify({"op": "insert_paragraph", "params": {"after": first, "text": "Approved."}}))
        assert result.ok, result.error
    with WriterAdapter(workspace, "page.odt") as again:
        assert "Approved." in [e.value for e in again.observe().elements]
