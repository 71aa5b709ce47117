"""asil report: tables from real runs, the SR-K truncation rule, and report.html in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from asil.report.runs import group_runs, load_runs
from asil.report.tables import budget_table, comparison_table, truncated_success
from asil.runner.bench import AgentSpec, run_bench
from asil.runner.results import RunRecord, RunSettings
from asil.runner.trace import EpisodeResult
from asil.tasks import load_tasks
from tests import png
from tests.bench_helpers import asil, task_dir
from tests.conftest import lo_convert

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _result(task_id: str, success: bool, steps: int, termination: str = "done", budget: int = 100) -> EpisodeResult:
    return EpisodeResult(task_id=task_id, suite="core", apps=["calc"], domain="office", agent="lstc",
                         score=1.0 if success else 0.0, success=success, checkpoints=[], steps=steps, budget=budget,
                         time_s=1.0, termination=termination)  # type: ignore[arg-type]


def test_a_truncated_success_must_have_ended_successfully_within_k_steps() -> None:
    assert truncated_success(_result("a", True, 12), 15)
    assert truncated_success(_result("a", True, 15), 15)  # done at step 15
    assert not truncated_success(_result("a", True, 16), 15)
    assert not truncated_success(_result("a", False, 3), 15)
    # cut off by its own 100-step budget: a success at 100, not at 15 or 50
    assert truncated_success(_result("a", True, 100, "budget"), 100)
    assert not truncated_success(_result("a", True, 100, "budget"), 50)
    assert not truncated_success(_result("a", True, 10, "timeout"), 15)


def _write_run(folder: Path, budget: int | None, results: list[EpisodeResult]) -> None:
    from asil.runner.results import commit_task_folder, open_run

    open_run(folder, RunRecord(settings=RunSettings(agent="lstc", model="m", budget=budget)))
    for result in results:
        commit_task_folder(folder, result.task_id, {"traj.jsonl": b"", "result.json": result.model_dump_json().encode()})


def test_budget_table_shows_separate_runs_and_labelled_truncations(tmp_path: Path) -> None:
    _write_run(tmp_path / "b15", 15, [_result("a", True, 4, budget=15), _result("b", False, 15, "budget", 15)])
    _write_run(tmp_path / "b100", 100, [_result("a", True, 4), _result("b", True, 40), _result("c", True, 100, "budget")])
    runs = group_runs(load_runs([tmp_path / "b15", tmp_path / "b100"]))
    table = budget_table(runs)
    rows = {row[1]: row[2:] for row in table.rows}
    assert rows["separate runs"] == ["50.0 (n=2)", "–", "100.0 (n=3)"]
    assert rows["truncated from the B100 run"] == ["33.3 (n=3)", "66.7 (n=3)", "100.0 (n=3)"]
    assert any("ended successfully within K steps" in note for note in table.notes)
    comparison = {row[0]: row[1:] for row in comparison_table(runs).rows}
    assert comparison["SR (%)"] == ["50.0", "100.0 (+50.0)"] and comparison["tasks"] == ["2", "3 (+1)"]


def test_report_refuses_a_folder_without_results(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    ran = asil("report", str(tmp_path / "empty"))
    assert ran.returncode == 2 and "holds no finished task results" in ran.stderr


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--hide-scrollbars", f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/install-system.sh installs it)")
def test_report_html_renders_tables_charts_and_step_images_in_chromium(tmp_path: Path, sales: Path) -> None:
    tasks = load_tasks(root=task_dir(tmp_path, "calc-total-column", "calc-delete-column"))
    full, short = tmp_path / "full", tmp_path / "short"
    run_bench(tasks, AgentSpec("oracle"), full, backend="inline")
    run_bench(tasks, AgentSpec("oracle"), short, budget=1, backend="inline")  # calc-delete-column needs 2 steps
    # a render as an adapter's render() writes it: a PNG of a real spreadsheet made by LibreOffice
    render = lo_convert(sales, "png", tmp_path / "render")
    shutil.copy(render, full / "calc-total-column" / "step_1.png")
    width, height = png.size(render)

    report_path = tmp_path / "site" / "report.html"
    ran = asil("report", str(full), str(short), "--out", str(report_path))
    assert ran.returncode == 0, ran.stderr
    assert "Runs side by side" in ran.stdout and "SR-15 (%)" in ran.stdout
    assert (tmp_path / "site" / "report.txt").read_text() in ran.stdout
    html = report_path.read_text()
    assert not re.search(r'(src|href)="(https?:)?//|url\(', html)  # self-contained: nothing from the network
    assert 'src="../full/calc-total-column/step_1.png"' in html  # linked relative to the report

    dom = _chromium("--dump-dom", report_path.as_uri(), profile=tmp_path / "profile-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for table in ("table-regions", "table-success-app", "table-events", "table-resources", "table-budgets",
                  "table-comparison"):
        assert f'id="{table}"' in dom.stdout, table
    assert re.search(r"<td>SR \(%\)</td><td>100\.0</td><td>50\.0 \(-50\.0\)</td>", dom.stdout)
    assert f"({width}×{height} px)" in dom.stdout  # the browser loaded and decoded the step render
    assert 'class="size missing"' not in dom.stdout
    assert 'data-series="oracle B1" data-category="all" data-value="0.5000"' in dom.stdout

    shot = tmp_path / "shot.png"
    taken = _chromium("--window-size=1280,1100", f"--screenshot={shot}", report_path.as_uri(),
                      profile=tmp_path / "profile-shot")
    assert taken.returncode == 0 and shot.is_file(), taken.stderr[-2000:]
    counts = png.colour_counts(shot, ["#1f77b4", "#ff7f0e"])
    # the full run's bars (100%) are painted taller than the budget-1 run's (50%)
    assert counts["#ff7f0e"] > 1000, counts
    assert counts["#1f77b4"] > 1.5 * counts["#ff7f0e"], counts
