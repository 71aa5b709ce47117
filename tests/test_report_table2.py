"""``asil report --table 2``: the ASIL paper's Table 2 layout from real run folders.

The runs are made here with ``asil bench``: the oracle (ASIL), the scripted UNO and draw.io MCP baselines
(replaying their stored demonstrations against the real LibreOffice and draw.io MCP server) and the scripted
GUI participant (real clicks and keys on LibreOffice in a private Xvfb). The UNO run also takes a task that has
no UNO demonstration, so the baseline really fails one identical task and the comparison has something to show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.report import build_report
from asil.report.runs import group_runs, load_runs
from asil.report.table2 import MATCHED, band_ids, native_table
from tests.bench_helpers import asil

pytestmark = [pytest.mark.slow, pytest.mark.gui, pytest.mark.native_baseline]

CALC = ["calc-sort-scores", "calc-total-column"]  # calc-sort-scores is in easy60, calc-total-column is not
NO_UNO_DEMO = "writer-heading-levels"  # in easy60; asil/native/demos has no script for it


def _bench(out: Path, agent: list[str], tasks: list[str]) -> Path:
    picked = [arg for task in tasks for arg in ("--task", task)]
    ran = asil("bench", *agent, *picked, "--workers", "1", "--out", str(out), timeout=600)
    assert ran.returncode in (0, 1), ran.stderr  # 1: some task failed, which the UNO run means to show
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("table2")
    return {
        "oracle": _bench(root / "oracle", ["--agent", "oracle", "--budget", "15"],
                         CALC + [NO_UNO_DEMO, "drawio-connect-missing"]),
        "uno": _bench(root / "uno", ["--agent", "uno", "--model", "scripted", "--budget", "15"], CALC + [NO_UNO_DEMO]),
        "mcp": _bench(root / "mcp", ["--agent", "drawio-mcp", "--model", "scripted", "--budget", "15"],
                      ["drawio-connect-missing"]),
        "gui": _bench(root / "gui", ["--agent", "gui", "--model", "scripted"], ["calc-sort-scores"]),
    }


def _outcome(folder: Path, task: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((folder / task / "result.json").read_text())
    return data


def test_the_runs_are_what_the_table_is_read_from(runs: dict[str, Path]) -> None:
    assert all(_outcome(runs["oracle"], t)["success"] for t in CALC + [NO_UNO_DEMO, "drawio-connect-missing"])
    missing = _outcome(runs["uno"], NO_UNO_DEMO)
    assert not missing["success"] and "No scripted UNO demonstration" in str(missing["error"])
    assert _outcome(runs["gui"], "calc-sort-scores")["success"] and _outcome(runs["gui"], "calc-sort-scores")["budget"] == 50
    assert {"calc-sort-scores", NO_UNO_DEMO, "drawio-connect-missing"} <= band_ids()
    assert "calc-total-column" not in band_ids()


def test_bands_put_gui_50max_and_15max_beside_asil(runs: dict[str, Path]) -> None:
    report = build_report(list(runs.values()), runs["oracle"] / "report.html", paper_table="2")
    bands = next(t for t in report.tables if t.key == "table2-bands")
    # all = the 4 tasks of the oracle and GUI runs; 3 of them are in easy60 (calc-total-column is not)
    assert bands.columns == ["run", "mode", "all (4)", "easy60 (3)"]
    rows = {row[1]: row[2:] for row in bands.rows}
    assert rows["ASIL / 15max"] == ["100.0 (4/4)", "100.0 (3/3)"]
    assert rows["GUI / 50max"] == ["100.0 (1/1)", "100.0 (1/1)"]
    steps = _outcome(runs["gui"], "calc-sort-scores")["steps"]
    assert isinstance(steps, int) and steps <= 15  # the demonstration is short, so the 15-step cut keeps it
    assert rows["GUI / 15max (truncated from B50)"] == ["100.0 (1/1)", "100.0 (1/1)"]
    assert not any("native" in row[0] for row in bands.rows)  # baselines are only in the bottom panel


def test_native_baselines_sit_beside_asil_only_on_identical_tasks(runs: dict[str, Path]) -> None:
    table = native_table(group_runs(load_runs(list(runs.values()))))
    rows = {row[0].split(" (")[0]: row[1:] for row in table.rows}
    assert set(rows) == {"native UNO", "native draw.io MCP"}  # the GUI run is no baseline, nor an ASIL arm
    # UNO ran 3 tasks, all of which the oracle ran too; the one without a demonstration fails
    assert rows["native UNO"] == ["oracle B15", "3", "66.7 (2/3)", "100.0 (3/3)", "+33.3", MATCHED]
    # draw.io MCP ran 1 task; the oracle's other 3 tasks are left out of the comparison
    assert rows["native draw.io MCP"] == ["oracle B15", "1", "100.0 (1/1)", "100.0 (1/1)", "+0.0", MATCHED]


def test_a_pair_with_other_budgets_says_it_is_not_the_matched_setting(runs: dict[str, Path], tmp_path: Path) -> None:
    long = _bench(tmp_path / "oracle-b30", ["--agent", "oracle", "--budget", "30"], ["calc-sort-scores"])
    table = native_table(group_runs(load_runs([runs["uno"], long])))
    assert [row[1:] for row in table.rows] == [["oracle B30", "1", "100.0 (1/1)", "100.0 (1/1)", "+0.0",
                                                "budgets B15 vs B30"]]


def test_asil_report_table_2_prints_table_2_and_report_html_has_it(runs: dict[str, Path], tmp_path: Path) -> None:
    html = tmp_path / "report.html"
    ran = asil("report", *map(str, runs.values()), "--table", "2", "--out", str(html))
    assert ran.returncode == 0, ran.stderr
    assert "Success by task band (ASIL paper Table 2, top)" in ran.stdout
    assert "Native baselines beside ASIL on identical tasks" in ran.stdout
    assert "Success by region" not in ran.stdout  # --table 2 prints Table 2 alone
    page = html.read_text()
    assert 'id="table-table2-bands"' in page and 'id="table-table2-native"' in page
    assert 'id="table-regions"' in page  # the page keeps every table
    assert html.with_suffix(".txt").read_text() == ran.stdout.split("\nwrote ")[0]


def test_an_asil_only_report_leaves_table_2_out_unless_asked(runs: dict[str, Path], tmp_path: Path) -> None:
    plain = build_report([runs["oracle"]], tmp_path / "plain.html")
    assert not any(t.key.startswith("table2") for t in plain.tables)
    asked = build_report([runs["oracle"]], tmp_path / "asked.html", paper_table="2")
    assert [t.key for t in asked.tables][1:3] == ["table2-bands", "table2-native"]
    assert "(no rows)" in asked.text  # no baseline ran: the bottom panel says so rather than inventing a pair
