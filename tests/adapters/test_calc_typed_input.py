"""Calc reads a string value the way LibreOffice reads typed input (issue 14, item 4), against the real program."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from asil.adapters.calc.adapter import CalcAdapter, create_spreadsheet
from asil.adapters.calc.raw import RawWorkbook
from asil.apps.libreoffice import shared_office
from asil.protocol import parse_action
from asil.workspace import Workspace

TYPED = ["80", "2026-12-01", "12%", "1,5", "1.5", "TRUE", "-5", "12:30", "hello", "$1,234.50", "1e3", "12/01/2026",
         "(5)", " 80 ", "0012", "-A1"]
# CSV import (tabs) with "detect special numbers" on, in en-US: LibreOffice's own reading of typed text
CSV_FILTER = "CSV:9,34,76,1,,1033,false,true"  # tab-separated: "1,5" stays one field

# Formats the raw reader refuses (fails closed): currency with a red negative part, scientific.
RAW_UNREADABLE = {"$1,234.50", "1e3"}


def import_csv(source: Path) -> Path:
    """The .ods a separate one-shot LibreOffice (own profile) makes of ``source``, as a user would convert it."""
    profile = source.parent / f".lo-profile-{os.getpid()}"
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation={profile.as_uri()}", f"--infilter={CSV_FILTER}",
                    "--convert-to", "ods", "--outdir", str(source.parent), str(source)],
                   check=True, capture_output=True, timeout=120)
    return source.with_suffix(".ods")


@pytest.fixture
def blank(workspace: Workspace) -> Path:
    path = workspace.resolve("typed.ods")
    create_spreadsheet(path, [{"name": "Sheet1", "rows": [["Typed"]]}])
    return path


def act(calc: CalcAdapter, raw: dict) -> object:
    return calc.execute(parse_action(raw))


def cells_of(calc: CalcAdapter, col: int, count: int) -> list[dict]:
    return calc.cells("Sheet1", [(col, row) for row in range(1, count + 1)])


def test_strings_are_read_like_typed_input(workspace: Workspace, blank: Path) -> None:
    with CalcAdapter(workspace, "typed.ods") as calc:
        result = act(calc, {"action_type": "invoke_function", "target": "set_range",
                            "params": {"range": "Sheet1!A2", "values": [[text] for text in TYPED]}})
        assert result.ok, result.error
        got = {text: (c["type"], c["value"], c.get("number_format"))
               for text, c in zip(TYPED, cells_of(calc, 0, len(TYPED)), strict=True)}
        obs = {e.id: e for e in calc.observe().elements}
        calc.save()
    assert got["80"] == ("number", 80.0, None)
    assert got["2026-12-01"] == ("date", 46357.0, "YYYY-MM-DD")
    assert got["12%"] == ("percent", 0.12, "0.00%")
    assert got["1,5"] == ("text", "1,5", None)  # en-US input: a comma is a thousands separator, not a decimal one
    assert got["TRUE"][:2] == ("boolean", 1.0) and got["-5"][:2] == ("number", -5.0)
    assert got["12:30"][0] == "time" and got["hello"] == ("text", "hello", None)
    assert got["-A1"] == ("text", "-A1", None)  # Calc's input line would make a formula; here formulas need '='
    assert got["12/01/2026"] == ("date", 46357.0, "MM/DD/YY") and got["(5)"][:2] == ("number", -5.0)
    assert obs["Sheet1!A3"].value == "2026-12-01" and obs["Sheet1!A3"].data_type == "date"
    raw = RawWorkbook.load(blank)  # what LibreOffice wrote into the file, read without LibreOffice
    assert raw.cell("Sheet1", 0, 2)["type"] == "date" and raw.cell("Sheet1", 0, 3)["type"] == "percent"
    assert raw.cell("Sheet1", 0, 3)["value"] == pytest.approx(0.12) and raw.cell("Sheet1", 0, 1)["value"] == 80


def test_types_match_libreoffices_own_import_of_the_same_text(workspace: Workspace, blank: Path,
                                                              tmp_path: Path) -> None:
    (tmp_path / "csv").mkdir()
    source = tmp_path / "csv" / "typed.csv"
    source.write_text("\n".join(TYPED) + "\n", encoding="utf-8")
    converted = RawWorkbook.load(import_csv(source))
    sheet = converted.sheet_names()[0]
    with CalcAdapter(workspace, "typed.ods") as calc:
        act(calc, {"action_type": "invoke_function", "target": "set_range",
                   "params": {"range": "Sheet1!A2", "values": [[text] for text in TYPED]}})
        calc.save()
    ours = RawWorkbook.load(blank)
    for row, text in enumerate(TYPED):
        if text in RAW_UNREADABLE:
            continue
        theirs, mine = converted.cell(sheet, 0, row), ours.cell("Sheet1", 0, row + 1)
        assert (mine["type"], mine["value"], mine["number_format"]) == (
            theirs["type"], theirs["value"], theirs["number_format"]), text


def test_as_text_a_leading_apostrophe_and_text_cells_keep_text(workspace: Workspace, blank: Path) -> None:
    with CalcAdapter(workspace, "typed.ods") as calc:
        assert act(calc, {"action_type": "invoke_function", "target": "format_range",
                          "params": {"range": "Sheet1!B6:B7", "number_format": "@"}}).ok
        assert act(calc, {"action_type": "invoke_function", "target": "format_range",
                          "params": {"range": "Sheet1!B8", "number_format": "0.00"}}).ok
        writes = {"B2": {"value": "00123", "as_text": True}, "B3": {"value": "00123"}, "B4": {"value": "'00123"},
                  "B5": {"value": "'abc"}, "B6": {"value": "80"}, "B7": {"value": "2026-12-01"}, "B8": {"value": "12%"}}
        for cell, params in writes.items():
            assert act(calc, {"action_type": "set_value", "target": f"Sheet1!{cell}", "params": params}).ok
        cells = [(c["type"], c["value"], c.get("number_format")) for c in calc.cells("Sheet1", [(1, r) for r in range(1, 8)])]
    # Stored as text, a string that reads as a number gets the Text format '@' (LibreOffice's own text input
    # does that, so a later edit stays text); a leading apostrophe before non-numbers is kept, as in Calc.
    assert cells == [("text", "00123", "@"), ("number", 123.0, None), ("text", "00123", "@"),
                     ("text", "'abc", None), ("text", "80", "@"), ("text", "2026-12-01", "@"),
                     ("number", 0.12, "0.00")]  # a non-standard format stays, as Calc keeps it


def test_as_text_is_refused_with_a_formula_and_the_file_stays(workspace: Workspace, blank: Path) -> None:
    before = blank.read_bytes()
    with CalcAdapter(workspace, "typed.ods") as calc:
        both = act(calc, {"action_type": "set_value", "target": "Sheet1!B5",
                          "params": {"formula": "=1+1", "as_text": True}})
        cell = calc.cells("Sheet1", [(1, 4)])[0]
    assert both.status == "invalid" and both.error.message == "as_text applies to 'value', not to 'formula'."
    assert cell["type"] == "empty" and blank.read_bytes() == before


def test_a_failed_typed_range_restores_contents_and_formats(workspace: Workspace, blank: Path) -> None:
    with CalcAdapter(workspace, "typed.ods") as calc:
        result = act(calc, {"action_type": "invoke_function", "target": "set_range",
                            "params": {"range": "Sheet1!C2", "values": [["12%", "2026-12-01", "=NOSUCH(1)"]]}})
        cells = calc.cells("Sheet1", [(2, 1), (3, 1), (4, 1)])
    assert result.status == "invalid"
    assert all(c["type"] == "empty" and "number_format" not in c for c in cells)


def test_typed_values_and_formats_survive_a_libreoffice_restart(workspace: Workspace, blank: Path) -> None:
    office = shared_office()
    with CalcAdapter(workspace, "typed.ods") as calc:
        assert act(calc, {"action_type": "invoke_function", "target": "set_range",
                          "params": {"range": "Sheet1!D2", "values": [["2026-12-01", "12%", "00123"]]}}).ok
        calc.save()
    os.killpg(office.process.pid, signal.SIGKILL)  # LibreOffice gone: the next adapter restarts it
    office.process.wait()
    with CalcAdapter(workspace, "typed.ods") as again:
        cells = again.cells("Sheet1", [(3, 1), (4, 1), (5, 1)])
    assert [(c["type"], c["value"], c.get("number_format")) for c in cells] == [
        ("date", 46357.0, "YYYY-MM-DD"), ("percent", 0.12, "0.00%"), ("number", 123.0, None)]


def test_modify_file_operations_read_typed_input_too(workspace: Workspace, blank: Path) -> None:
    with CalcAdapter(workspace, "typed.ods") as calc:
        result = act(calc, {"action_type": "modify_file", "params": {"operations": [
            {"op": "set_value", "target": "Sheet1!F2", "params": {"value": "2026-12-01"}},
            {"op": "set_range", "params": {"range": "Sheet1!F3", "values": [["12%"], ["007"]], "as_text": True}}]}})
        assert result.ok, result.error
    book = RawWorkbook.load(blank)  # modify_file saved the document once
    cells = [book.cell("Sheet1", 5, row) for row in (1, 2, 3)]
    assert [(c["type"], c["value"]) for c in cells] == [("date", "2026-12-01"), ("text", "12%"), ("text", "007")]
