"""The Calc adapter against the real LibreOffice."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import zipfile
from pathlib import Path

import pytest

from asil.adapters.calc.adapter import CalcAdapter, create_spreadsheet
from asil.adapters.calc.raw import RawWorkbook
from asil.apps.libreoffice import shared_office
from asil.protocol import Action, DocumentError, parse_action
from asil.workspace import PathOutsideWorkspace, Workspace
from tests.conftest import lo_convert


def act(adapter: CalcAdapter, raw: dict) -> object:
    return adapter.execute(parse_action(raw))


def by_id(adapter: CalcAdapter, view: str | None = None) -> dict[str, object]:
    return {e.id: e for e in adapter.observe(view=view).elements}


def test_observation_shows_values_types_formulas_and_styles(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        obs = calc.observe()
        cells = {e.id: e for e in obs.elements}
    assert obs.metadata.app == "calc" and obs.metadata.source == "file"
    assert obs.navigation.views == ["Sales", "Notes"]
    assert obs.app_state.view == "Sales" and obs.app_state.details["used_range"] == "Sales!A1:C5"
    assert cells["Sales!B5"].value == 21 and cells["Sales!B5"].meta["formula"] == "=SUM(B2:B4)"
    assert cells["Sales!C2"].value == 2.5 and cells["Sales!C2"].data_type == "number"
    assert cells["Sales!A1"].meta == {"bold": True} and cells["Sales!A1"].value == "Region"
    assert "Sales!C5" not in cells  # empty cells are not listed
    notes = by_id(CalcAdapter(workspace, "sales.ods"), view="Notes")
    assert notes["Notes!B1"].value is True and notes["Notes!B1"].data_type == "boolean"


def test_formula_edits_are_computed_by_libreoffice(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        result = act(calc, {"action_type": "set_value", "target": "Sales!D2", "params": {"formula": "=B2*C2"}})
        assert result.ok and result.changed == ["Sales!D2"]
        act(calc, {"action_type": "set_value", "target": "Sales!B2", "params": {"value": 20}})
        cells = by_id(calc)
        assert cells["Sales!D2"].value == 50 and cells["Sales!B5"].value == 31
        act(calc, {"action_type": "set_value", "target": "Notes!A2",
                   "params": {"formula": "=VLOOKUP(\"South\",Sales!A2:C4,3,FALSE)&\" each\""}})
        assert by_id(calc, view="Notes")["Notes!A2"].value == "3 each"


def test_rows_columns_and_sheets_keep_formulas_right(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        assert act(calc, {"action_type": "invoke_function", "target": "insert_rows",
                          "params": {"sheet": "Sales", "row": 3, "count": 2}}).ok
        assert by_id(calc)["Sales!B7"].meta["formula"] == "=SUM(B2:B6)"
        assert act(calc, {"action_type": "invoke_function", "target": "delete_columns",
                          "params": {"sheet": "Sales", "column": "C"}}).ok
        assert act(calc, {"action_type": "invoke_function", "target": "rename_sheet",
                          "params": {"sheet": "Sales", "new_name": "Sales 2024"}}).ok
        assert act(calc, {"action_type": "set_value", "target": "Notes!C1",
                          "params": {"formula": "='Sales 2024'!B7*2"}}).ok
        assert act(calc, {"action_type": "invoke_function", "target": "add_sheet",
                          "params": {"name": "Summary", "position": 1}}).ok
        assert calc.sheet_names() == ["Summary", "Sales 2024", "Notes"]
        assert by_id(calc, view="Notes")["Notes!C1"].value == 42
        assert act(calc, {"action_type": "invoke_function", "target": "delete_sheet",
                          "params": {"sheet": "Summary"}}).ok
        assert calc.sheet_names() == ["Sales 2024", "Notes"]


def test_sort_and_format(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        assert act(calc, {"action_type": "invoke_function", "target": "sort_range", "params": {
            "range": "Sales!A1:C4", "keys": [{"column": "B", "descending": True}], "has_header": True}}).ok
        assert act(calc, {"action_type": "invoke_function", "target": "format_range", "params": {
            "range": "Sales!C2:C4", "number_format": "0.00", "background": "#FFCC00"}}).ok
        cells = by_id(calc)
    assert [cells[f"Sales!A{r}"].value for r in (2, 3, 4)] == ["North", "East", "South"]
    assert cells["Sales!C2"].meta == {"display": "2.50", "number_format": "0.00", "background": "#FFCC00"}


def test_batch_is_atomic_even_with_sheet_changes(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods") as calc:
        before = by_id(calc)
        result = act(calc, {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "Extra"}},
            {"action_type": "set_value", "target": "Sales!A2", "params": {"value": "changed"}},
            {"action_type": "set_value", "target": "Sales!D1", "params": {"formula": "=NOSUCHFUNC(1)"}},
        ]}})
        assert result.status == "invalid" and "Batch action 3" in result.error.message
        assert calc.sheet_names() == ["Sales", "Notes"]
        assert by_id(calc) == before
        assert not calc.dirty
        assert act(calc, {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "Extra"}},
            {"action_type": "set_value", "target": "Extra!A1", "params": {"formula": "=Sales!B5+1"}},
        ]}}).ok
        assert by_id(calc, view="Extra")["Extra!A1"].value == 22
    assert workspace.files() == ["sales.ods"]  # the snapshot left nothing beside the document


def test_large_sheets_are_windowed_and_paged(workspace: Workspace) -> None:
    rows = [[r * 10 + c for c in range(10)] for r in range(10_000)]
    create_spreadsheet(workspace.resolve("big.ods"), [{"name": "Data", "rows": rows}])
    with CalcAdapter(workspace, "big.ods") as calc:
        obs = calc.observe()
        size = len(json.dumps(obs.to_agent_dict()))
        assert obs.navigation.paging.model_dump() == {"offset": 0, "limit": 20, "total": 10_000}
        assert len(obs.elements) == 200 and size / 4 < 8000
        assert "navigate to Data!A21" in obs.summary
        assert act(calc, {"action_type": "navigate", "target": "Data!A9991"}).ok
        page = calc.observe()
        assert page.navigation.paging.offset == 9990 and page.elements[0].id == "Data!A9991"
        assert page.elements[0].value == 99_900


BAD_ACTIONS = [
    ({"action_type": "set_value", "target": "Sheet9!ZZ0", "params": {"value": 1}}, "Row 0"),
    ({"action_type": "set_value", "target": "Sheet9!B2", "params": {"value": 1}}, "no sheet named 'Sheet9'"),
    ({"action_type": "set_value", "target": "Sales!B2", "params": {"value": [1]}}, "Parameter 'value'"),
    ({"action_type": "set_value", "target": "Sales!B2", "params": {"formula": "=SUM(B2:B4"}}, "not closed"),
    ({"action_type": "set_value", "target": "Sales!D2", "params": {"formula": "=B2/"}}, "rejected"),
    ({"action_type": "set_value", "target": "Sales!B2:B3", "params": {"value": 1}}, "is a range"),
    ({"action_type": "invoke_function", "target": "explode", "params": {}}, "Unknown calc function"),
    ({"action_type": "invoke_function", "target": "sort_range",
      "params": {"range": "Sales!A1:B4", "keys": [{"column": "D"}]}}, "outside the range"),
    ({"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "Bad/Name"}}, "not a valid sheet"),
    ({"action_type": "invoke_function", "target": "rename_sheet",
      "params": {"sheet": "Sales", "new_name": "notes"}}, "already exists"),
    ({"action_type": "invoke_function", "target": "format_range",
      "params": {"range": "Sales!A1", "number_format": "0.00["}}, "number format"),
    ({"action_type": "modify_file", "target": "sales.ods"}, "modify_file needs the parameter 'operations'."),
    ({"action_type": "api_call", "params": {"request": "x"}}, "does not support api_call"),
]


@pytest.mark.parametrize(("raw", "fragment"), BAD_ACTIONS)
def test_bad_actions_are_invalid_and_leave_the_file_unchanged(workspace: Workspace, sales: Path, raw: dict,
                                                              fragment: str) -> None:
    original = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        before = by_id(calc)
        result = act(calc, raw)
        assert result.status == "invalid", result
        assert fragment in result.error.message
        assert result.error.hint
        assert by_id(calc) == before and not calc.dirty
        calc.save()
    assert sales.read_bytes() == original


@pytest.mark.parametrize("content", [b"not a zip at all", b"PK\x03\x04 truncated zip"])
def test_corrupted_files_are_refused(workspace: Workspace, content: bytes) -> None:
    path = workspace.write_bytes("broken.ods", content)
    with pytest.raises(DocumentError, match="corrupted or not an OpenDocument"):
        CalcAdapter(workspace, "broken.ods")
    assert path.read_bytes() == content


def test_non_spreadsheet_odf_and_escaping_paths_are_refused(workspace: Workspace, sales: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(workspace.root / "letter.ods", "w") as odt:  # a text document, renamed
        odt.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        odt.writestr("content.xml", "<office:document-content/>")
    with pytest.raises(DocumentError, match="not a spreadsheet"):
        CalcAdapter(workspace, "letter.ods")
    with pytest.raises(PathOutsideWorkspace):
        CalcAdapter(workspace, "../outside.ods")


def test_libreoffice_written_files_round_trip(workspace: Workspace, tmp_path: Path) -> None:
    """A CSV converted by LibreOffice is read; our saved formula is read back by LibreOffice."""
    source = tmp_path / "prices.csv"
    with source.open("w", newline="") as handle:
        csv.writer(handle).writerows([["item", "price"], ["tea", 3.5], ["milk", 1.25]])
    ods = lo_convert(source, "ods", tmp_path)
    shutil.copy(ods, workspace.root / "prices.ods")
    with CalcAdapter(workspace, "prices.ods") as calc:
        assert by_id(calc)["prices!B2"].value == 3.5
        assert act(calc, {"action_type": "set_value", "target": "prices!B4", "params": {"formula": "=SUM(B2:B3)*2"}}).ok
        calc.save()
    assert RawWorkbook.load(workspace.root / "prices.ods").cell("prices", 1, 3)["value"] == 9.5
    exported = lo_convert(workspace.root / "prices.ods", "csv", tmp_path / "out")
    assert exported.read_text().splitlines()[3] == ",9.5"
    assert workspace.files() == ["prices.ods"]  # no lock files or temporary files left behind


def test_a_crashed_libreoffice_is_restarted(workspace: Workspace, sales: Path) -> None:
    office = shared_office()
    with CalcAdapter(workspace, "sales.ods") as calc:
        assert act(calc, {"action_type": "set_value", "target": "Sales!A2", "params": {"value": "lost"}}).ok
        os.killpg(office.process.pid, signal.SIGKILL)  # a crash of soffice.bin and its launcher
        office.process.wait()
        result = act(calc, {"action_type": "set_value", "target": "Sales!A3", "params": {"value": "x"}})
        assert result.status == "error" and result.error.code == "app_restarted"
        assert by_id(calc)["Sales!A2"].value == "North"  # back to the saved file
        assert act(calc, {"action_type": "set_value", "target": "Sales!A3", "params": {"value": "x"}}).ok
        assert office.alive


def test_a_crash_found_while_validating_is_an_error_result_never_an_exception(
        workspace: Workspace, sales: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    office = shared_office()
    with CalcAdapter(workspace, "sales.ods") as calc:
        # observe=False leaves the sheet list unread, so the next action's validation must ask LibreOffice
        assert calc.execute(parse_action({"action_type": "set_value", "target": "Sales!A2",
                                          "params": {"value": "lost"}}), observe=False).ok
        os.killpg(office.process.pid, signal.SIGKILL)
        office.process.wait()
        with monkeypatch.context() as patch:
            patch.setenv("PATH", str(tmp_path))  # and it cannot come back: no soffice to start
            result = act(calc, {"action_type": "set_value", "target": "Sales!A3", "params": {"value": "x"}})
        assert result.status == "error" and result.error is not None and result.observation is None
        assert result.error.code == "app_unavailable" and "LibreOffice" in result.error.message
        # soffice is back on PATH: the next actions restart it and carry on
        again = act(calc, {"action_type": "set_value", "target": "Sales!A3", "params": {"value": "x"}})
        assert again.status == "error" and again.error is not None and again.error.code == "app_restarted"
        assert "unsaved changes were lost" in again.error.message
        assert act(calc, {"action_type": "set_value", "target": "Sales!A3", "params": {"value": "x"}}).ok
        assert by_id(calc)["Sales!A2"].value == "North" and by_id(calc)["Sales!A3"].value == "x"


def test_save_is_atomic_and_only_when_dirty(workspace: Workspace, sales: Path) -> None:
    original = sales.read_bytes()
    with CalcAdapter(workspace, "sales.ods") as calc:
        calc.save()
        assert sales.read_bytes() == original
        act(calc, {"action_type": "set_value", "target": "Sales!A2", "params": {"value": "West"}})
        assert calc.observe().app_state.dirty
        calc.save()
        assert not calc.observe().app_state.dirty
    assert RawWorkbook.load(sales).cell("Sales", 0, 1)["value"] == "West"
    assert workspace.files() == ["sales.ods"]


def test_schema_examples_are_documented_for_every_function() -> None:
    schema = CalcAdapter.action_schema()
    assert {"set_range", "clear_range", "insert_rows", "delete_rows", "insert_columns", "delete_columns",
            "add_sheet", "rename_sheet", "delete_sheet", "sort_range", "format_range"} <= set(schema.functions)
    assert schema.functions["delete_sheet"].destructive
    assert all(isinstance(e, Action) for e in schema.examples)


def _rewrite_member(source: Path, target: Path, member: str, data: bytes) -> None:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            new.writestr(info, data if info.filename == member else old.read(info.filename))


def test_entity_declarations_and_zip_bombs_are_refused_unread(workspace: Workspace, sales: Path) -> None:
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
              b"<office:document-content>&lol2;</office:document-content>")
    _rewrite_member(sales, workspace.root / "laughs.ods", "content.xml", laughs)
    external = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'
    _rewrite_member(sales, workspace.root / "external.ods", "content.xml", external)
    for name in ("laughs.ods", "external.ods"):
        before = (workspace.root / name).read_bytes()
        with pytest.raises(DocumentError, match="declares a DTD or entities"):
            CalcAdapter(workspace, name)
        assert (workspace.root / name).read_bytes() == before
    bomb = workspace.root / "bomb.ods"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", b"<a/>")
        archive.writestr("padding.bin", b"\0" * (64 * 1024 * 1024))  # 64 MiB of zeros, ~64 KiB compressed
    with pytest.raises(DocumentError, match="compresses .*:1"):
        CalcAdapter(workspace, "bomb.ods")
