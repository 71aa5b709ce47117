"""The Calc adapter's two access paths (issue 15, the paper's path-restriction study): the file-backed path
(the .ods XML edited directly, no LibreOffice) and the script-dispatch path (the engine script in a warm
LibreOffice). Same tasks, same action vocabulary, same observation builder; the evaluator is LibreOffice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from asil.adapters.calc.adapter import CalcAdapter
from asil.env import Env
from asil.protocol import ActionFailed, InvalidAction, parse_action
from asil.tasks import load_tasks
from asil.tasks.model import Task
from asil.workspace import Workspace

PATHS = ["dispatch", "file"]
CALC_TASKS = load_tasks(suite="core", app="calc")
TASK_IDS = [task.id for task in CALC_TASKS]


def on_path(task: Task, path: str) -> Task:
    """The task with its Calc adapter on ``path`` (the adapter option the benchmark sets too)."""
    copy = task.model_copy(deep=True)
    copy.setup.options.setdefault("calc", {})["access_path"] = path
    return copy


def act(adapter: CalcAdapter, raw: dict[str, Any]) -> Any:
    return adapter.execute(parse_action(raw))


def final_cells(workspace: Workspace, document: str) -> dict[str, list[dict[str, Any]]]:
    """Every used cell of every sheet as LibreOffice reads the saved file (the evaluator's view)."""
    with CalcAdapter(workspace, document) as calc:
        info = calc._info()
        return {sheet["name"]: calc.cells(sheet["name"], [(c, r) for r in range(sheet["rows"])
                                                          for c in range(sheet["cols"])])
                for sheet in info["sheets"]}


def test_the_suite_has_the_calc_tasks() -> None:
    assert len(CALC_TASKS) >= 25 and all(task.reference for task in CALC_TASKS)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("task", CALC_TASKS, ids=TASK_IDS)
def test_reference_succeeds_and_untouched_state_fails_on_both_paths(task: Task, path: str) -> None:
    untouched = Env(on_path(task, path))
    try:
        observation = untouched.reset()
        assert observation.environment["access_path"] == path
        assert not untouched.evaluate().success
    finally:
        untouched.close()
    env = Env(on_path(task, path))
    try:
        env.reset()
        for step in task.reference_steps():
            outcome = env.step(step)
            assert outcome.result.ok, (step, outcome.result.error)
        assert env.evaluate().success
    finally:
        env.close()


@pytest.mark.parametrize("task", [t for t in CALC_TASKS if t.feasible], ids=[t.id for t in CALC_TASKS if t.feasible])
def test_both_paths_leave_the_same_spreadsheet(task: Task) -> None:
    """Formulas (references moved by row/column/sheet edits), values, types and styles agree cell by cell."""
    finals = []
    for path in PATHS:
        env = Env(on_path(task, path))
        try:
            env.reset()
            for step in task.reference_steps():
                env.step(step)
            document = env.task.document_for("calc")
            assert document is not None and env.workspace is not None
            env.evaluate()  # saves, then judges
            finals.append(final_cells(env.workspace, document))
        finally:
            env.close()
    assert finals[0] == finals[1]


@pytest.mark.parametrize("path", PATHS)
def test_refused_actions_leave_the_file_byte_for_byte_unchanged(workspace: Workspace, sales: Path,
                                                                 path: str) -> None:
    with CalcAdapter(workspace, "sales.ods", access_path=path) as calc:
        assert act(calc, {"action_type": "set_value", "target": "Sales!B2", "params": {"value": 99}}).ok
        calc.save()
        saved = sales.read_bytes()
        invalid = act(calc, {"action_type": "set_value", "target": "Nowhere!A1", "params": {"value": 1}})
        assert invalid.status == "invalid"
        doomed = act(calc, {"action_type": "batch", "params": {"actions": [
            {"action_type": "set_value", "target": "Sales!D1", "params": {"value": "written first"}},
            {"action_type": "set_value", "target": "Sales!D2", "params": {"formula": "=SUM(B2:B4"}}]}})
        assert not doomed.ok and "2" in doomed.error.message and "undone" in doomed.error.message
        half = act(calc, {"action_type": "invoke_function", "target": "set_range",
                          "params": {"range": "Sales!D1", "values": [["written first"], ["=SUM(B2:B4"]]}})
        assert not half.ok and half.error.code == "invalid_formula"
        shown = {e.id: e.value for e in calc.observe().elements}
        assert "Sales!D1" not in shown and shown["Sales!B2"] == 99
        assert not calc.dirty
        calc.save()
    assert sales.read_bytes() == saved


def test_file_path_stores_formulas_that_libreoffice_computes_on_open(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods", access_path="file") as calc:
        before = {e.id: e for e in calc.observe().elements}
        assert before["Sales!B5"].value == 21  # the result LibreOffice stored is shown until the first edit
        assert act(calc, {"action_type": "set_value", "target": "Sales!D2", "params": {"formula": "=B2*C2"}}).ok
        assert act(calc, {"action_type": "set_value", "target": "Sales!B2", "params": {"value": 20}}).ok
        after = {e.id: e for e in calc.observe().elements}
        assert after["Sales!D2"].value is None and after["Sales!D2"].data_type == "uncomputed"
        assert after["Sales!B5"].data_type == "uncomputed"  # its stored 21 is stale now, so it is not shown
        calc.save()
    with CalcAdapter(workspace, "sales.ods") as libreoffice:
        cells = {e.id: e for e in libreoffice.observe().elements}
    assert cells["Sales!D2"].value == 50 and cells["Sales!B5"].value == 31


def test_file_path_moves_references_like_libreoffice(workspace: Workspace, sales: Path) -> None:
    edits = [
        {"action_type": "set_value", "target": "Notes!A2", "params": {"formula": "=Sales!B5*2+SUM(Sales!C2:C4)"}},
        {"action_type": "invoke_function", "target": "insert_rows", "params": {"sheet": "Sales", "row": 3, "count": 2}},
        {"action_type": "invoke_function", "target": "delete_columns", "params": {"sheet": "Sales", "column": "A"}},
        {"action_type": "invoke_function", "target": "rename_sheet", "params": {"sheet": "Sales", "new_name": "Sales 2026"}},
        {"action_type": "invoke_function", "target": "delete_rows", "params": {"sheet": "Sales 2026", "row": 2}},
    ]
    original = sales.read_bytes()
    finals = []
    for path in PATHS:
        sales.write_bytes(original)
        with CalcAdapter(workspace, "sales.ods", access_path=path) as calc:
            for edit in edits:
                assert act(calc, edit).ok, edit
            calc.save()
        finals.append(final_cells(workspace, "sales.ods"))
    assert finals[0] == finals[1]
    notes = {(c["col"], c["row"]): c for c in finals[1]["Notes"]}
    assert notes[(0, 1)]["formula"] == "='Sales 2026'!A6*2+SUM('Sales 2026'!B2:B5)" and notes[(0, 1)]["value"] == 26.25


def test_file_path_refuses_what_needs_libreoffice(workspace: Workspace, sales: Path) -> None:
    with CalcAdapter(workspace, "sales.ods", access_path="file") as calc:
        with pytest.raises(ActionFailed) as refused:
            calc.render(workspace.resolve("window.png"))
        assert refused.value.code == "unsupported_on_file_path"
        odd = act(calc, {"action_type": "invoke_function", "target": "format_range",
                         "params": {"range": "Sales!B2:B4", "number_format": "0.000E+00"}})
        assert odd.status == "error" and odd.error.code == "unsupported_on_file_path"
        assert "access path: file" in calc.schema().tips[-1].lower()
    assert not workspace.resolve("window.png").exists()


def test_an_unknown_access_path_is_refused(workspace: Workspace, sales: Path) -> None:
    with pytest.raises(InvalidAction, match="access path"):
        CalcAdapter(workspace, "sales.ods", access_path="gui")


@pytest.mark.parametrize(("excel", "openformula"), [
    ("=B2*C2", "of:=[.B2]*[.C2]"),
    ("=SUM(D2:D5)", "of:=SUM([.D2:.D5])"),
    ("=VLOOKUP(B2,Prices!$A$2:$C$7,3,FALSE)", "of:=VLOOKUP([.B2];[Prices.$A$2:.$C$7];3;0)"),
    ("='Data Two'!B2&\", \"&LOG10(A1)", "of:=['Data Two'.B2]&\", \"&LOG10([.A1])"),
    ("=SUM(C:C)", "of:=SUM([.C:.C])"),
])
def test_file_path_translates_excel_formulas_to_openformula(excel: str, openformula: str) -> None:
    from asil.adapters.calc.odf_formula import to_openformula

    assert to_openformula(excel) == openformula


def test_file_path_moves_and_invalidates_references() -> None:
    from asil.adapters.calc.odf_formula import deletion, insertion, move_references

    def same(name: str) -> str:
        return name

    formula = "of:=SUM([.B2:.B6])+[Other.B4]+[.$B$9]&\"[.B2]\""
    assert move_references(formula, "S", same, insertion("S", 3, 2), "row") == \
        "of:=SUM([.B2:.B8])+[Other.B4]+[.$B$11]&\"[.B2]\""
    assert move_references(formula, "S", same, deletion("S", 1, 1), "row") == \
        "of:=SUM([.B2:.B5])+[Other.B4]+[.$B$8]&\"[.B2]\""
    assert move_references("of:=[.C3]*2", "S", same, deletion("S", 2, 1), "col") == "of:=[#REF!]*2"


def test_file_path_never_starts_libreoffice(workspace: Workspace, sales: Path) -> None:
    from asil.apps.libreoffice import Office

    office = Office()  # a LibreOffice of its own that nothing else would start
    with CalcAdapter(workspace, "sales.ods", office=office, access_path="file") as calc:
        assert act(calc, {"action_type": "invoke_function", "target": "insert_rows",
                          "params": {"sheet": "Sales", "row": 2}}).ok
        assert {e.id for e in calc.observe().elements} >= {"Sales!A1", "Sales!A3"}
        calc.save()
    assert not office.alive and office.generation == 0
