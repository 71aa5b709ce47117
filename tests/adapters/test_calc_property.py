"""Random actions never crash the Calc adapter and never corrupt the document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asil.adapters.calc.actions import FUNCTIONS
from asil.adapters.calc.adapter import CalcAdapter, create_spreadsheet
from asil.adapters.calc.raw import RawWorkbook
from asil.protocol import InvalidAction, parse_action
from asil.workspace import Workspace

SHEETS = st.sampled_from(["Data", "Data", "Other", "Nope", "", "Data'", "'Data'"])
SMALL = st.builds(lambda c, r: f"{c}{r}", st.sampled_from("ABCD"), st.integers(min_value=1, max_value=6))
CELLS = st.one_of(SMALL, SMALL,
    st.builds(lambda c, r: f"{c}{r}", st.sampled_from(["A", "B", "Z", "AMJ", "AMK", "a"]),
              st.integers(min_value=-1, max_value=1_048_577)),
    st.text(max_size=6),
)
REFS = st.one_of(st.builds(lambda s, c: f"{s}!{c}", SHEETS, CELLS),
                 st.builds(lambda s, a, b: f"{s}!{a}:{b}", SHEETS, CELLS, CELLS), CELLS)
FORMULAS = st.sampled_from(["=SUM(A1:A3)", "=A1*", "=FOO(1)", "=1/0", "=IF(A1>1,\"x\",\"y\")", "=((1)", "=A1",
                            "=Other!A1+1", "=B1", "SUM(A1)", "="])
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                   st.text(max_size=12), FORMULAS, st.lists(st.integers(), max_size=2))
PARAM_VALUES = st.one_of(VALUES, REFS, SHEETS, st.lists(st.lists(VALUES, max_size=3), max_size=3),
                         st.lists(st.fixed_dictionaries({"column": st.sampled_from(["A", "B", "C", "Q"])}), max_size=2),
                         st.integers(min_value=-2, max_value=5))
PARAM_NAMES = st.sampled_from(["range", "values", "value", "formula", "sheet", "row", "column", "count", "name",
                               "new_name", "keys", "has_header", "bold", "number_format", "background", "junk"])
PARAMS = st.dictionaries(PARAM_NAMES, PARAM_VALUES, max_size=4)
SIMPLE = st.one_of(
    st.builds(lambda t, p: {"action_type": "set_value", "target": t, "params": p}, REFS,
              st.one_of(st.builds(lambda v: {"value": v}, VALUES), st.builds(lambda f: {"formula": f}, FORMULAS),
                        PARAMS)),
    st.builds(lambda f, p: {"action_type": "invoke_function", "target": f, "params": p},
              st.sampled_from(sorted(FUNCTIONS - {"save"} if isinstance(FUNCTIONS, set) else
                                     [n for n in FUNCTIONS if n != "save"]) + ["nope"]), PARAMS),
    st.builds(lambda t: {"action_type": "navigate", "target": t}, REFS),
    st.sampled_from([{"action_type": "modify_file"}, {"action_type": "api_call", "target": "x"}]),
)
GOOD_SHEET = st.sampled_from(["Data", "Other"])
GOOD_RANGE = st.builds(lambda s, a, b: f"{s}!{a}:{b}", GOOD_SHEET, SMALL, SMALL)
WELL_FORMED = st.one_of(
    st.builds(lambda r, v: {"action_type": "set_value", "target": r, "params": {"value": v}},
              st.builds(lambda s, c: f"{s}!{c}", GOOD_SHEET, SMALL), VALUES),
    st.builds(lambda r, v: {"action_type": "invoke_function", "target": "set_range",
                            "params": {"range": r, "values": v}},
              GOOD_RANGE, st.lists(st.lists(VALUES, min_size=1, max_size=2), min_size=1, max_size=2)),
    st.builds(lambda r, k, d: {"action_type": "invoke_function", "target": "sort_range",
                               "params": {"range": r, "keys": [{"column": k, "descending": d}]}},
              GOOD_RANGE, st.sampled_from("ABCD"), st.booleans()),
    st.builds(lambda f, s, n, c: {"action_type": "invoke_function", "target": f,
                                  "params": {"sheet": s, "row": n, "count": c}},
              st.sampled_from(["insert_rows", "delete_rows"]), GOOD_SHEET, st.integers(1, 8), st.integers(1, 3)),
    st.builds(lambda f, s, c: {"action_type": "invoke_function", "target": f, "params": {"sheet": s, "column": c}},
              st.sampled_from(["insert_columns", "delete_columns"]), GOOD_SHEET, st.sampled_from("ABCDZ")),
    st.builds(lambda n: {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": n}},
              st.sampled_from(["Data", "New", "X y", "other"])),
    st.builds(lambda s, n: {"action_type": "invoke_function", "target": "rename_sheet",
                            "params": {"sheet": s, "new_name": n}}, GOOD_SHEET, st.sampled_from(["Data", "Z", "Other"])),
    st.builds(lambda s: {"action_type": "invoke_function", "target": "delete_sheet", "params": {"sheet": s}},
              st.sampled_from(["New", "X y", "Z", "Other"])),
    st.builds(lambda r, b, f, c: {"action_type": "invoke_function", "target": "format_range",
                                  "params": {"range": r, "bold": b, "number_format": f, "background": c}},
              GOOD_RANGE, st.booleans(), st.sampled_from(["0.00", "0%", "0.00[", "YYYY-MM-DD"]),
              st.sampled_from(["#FF0000", "red", None])),
    st.builds(lambda r: {"action_type": "invoke_function", "target": "clear_range", "params": {"range": r}}, GOOD_RANGE),
)
SIMPLE = st.one_of(SIMPLE, WELL_FORMED, WELL_FORMED)
ACTIONS = st.one_of(SIMPLE, st.builds(lambda items: {"action_type": "batch", "params": {"actions": items}},
                                      st.lists(SIMPLE, min_size=1, max_size=3)))


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, CalcAdapter]:
    workspace = Workspace(tmp_path_factory.mktemp("property"))
    create_spreadsheet(workspace.resolve("book.ods"), [
        {"name": "Data", "rows": [["k", 1], ["j", 2], ["i", "=B1+B2"]]},
        {"name": "Other", "rows": [[5]]},
    ])
    adapter = CalcAdapter(workspace, "book.ods")
    yield workspace, adapter
    adapter.close()


def _state(adapter: CalcAdapter) -> str:
    names = adapter.sheet_names()
    views = [adapter.observe(view=name).to_agent_dict() for name in names]
    for view in views:
        view["metadata"].pop("step")
    return json.dumps(views, sort_keys=True)


def _first_difference(before: str, after: str) -> str:
    """Where two states part, with some context (the states are too long to read whole)."""
    at = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), min(len(before), len(after)))
    return f"before ...{before[max(0, at - 300):at + 200]}... after ...{after[max(0, at - 300):at + 200]}..."


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=ACTIONS)
def test_random_actions_never_crash_or_corrupt(book: tuple[Workspace, CalcAdapter], raw: dict) -> None:
    workspace, adapter = book
    try:
        action = parse_action(raw)
    except InvalidAction:
        return
    before = _state(adapter)
    dirty_before = adapter.dirty
    result = adapter.execute(action, observe=False)
    assert result.status in ("ok", "invalid", "error")
    if result.status != "ok":
        assert result.error is not None and result.error.message
        after = _state(adapter)
        assert after == before, f"{raw} changed the state although it was {result.status}: {_first_difference(before, after)}"
        assert adapter.dirty == dirty_before
    adapter.save()
    RawWorkbook.load(Path(workspace.root, "book.ods"))  # the file on disk is a whole, readable ODS


def test_values_are_held_as_the_ods_file_keeps_them(tmp_path: Path) -> None:
    """What saving would change is refused or rounded up front, so a failed batch's restore (a reload of the
    saved snapshot) cannot seem to change the document: found by the random actions above."""
    workspace = Workspace(tmp_path)
    create_spreadsheet(workspace.resolve("book.ods"), [{"name": "Data", "rows": [["k", 1]]}])
    adapter = CalcAdapter(workspace, "book.ods")
    try:
        _check_held_as_stored(adapter)
    finally:
        adapter.close()


def _check_held_as_stored(adapter: CalcAdapter) -> None:
    long_number = parse_action({"action_type": "set_value", "target": "Data!D6", "params": {"value": -9.299485727170263e19}})
    assert adapter.execute(long_number, observe=False).ok
    cells = {e.id: e.value for e in adapter.observe(view="Data").elements}
    assert cells["Data!D6"] == -9.29948572717026e19  # 15 significant digits
    before = _state(adapter)
    control = parse_action({"action_type": "set_value", "target": "Data!D7", "params": {"value": "a\x1bb"}})
    result = adapter.execute(control, observe=False)
    assert result.status == "invalid" and result.error is not None and "U+001B" in result.error.message
    assert _state(adapter) == before
