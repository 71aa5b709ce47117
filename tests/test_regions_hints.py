"""Regions (the ASIL paper's Table 1 columns), the default 15-step budget, success hints, and budget labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.agents.base import Decision
from asil.plugins import APPS, AppPlugin, plugin, region_of, region_order, register_app, unregister_app
from asil.protocol import Action, ActionResult, ActionSchema, Observation
from asil.report import build_report
from asil.report.runs import group_runs, load_runs
from asil.report.tables import hint_table, region_table
from asil.runner.bench import run_bench
from asil.runner.results import RunRecord, RunSettings, commit_task_folder, open_run
from asil.runner.trace import EpisodeResult
from asil.tasks import load_tasks
from asil.tasks.hints import GENERIC_WORDS
from asil.tasks.model import DEFAULT_BUDGET, Task
from tests.bench_helpers import asil, task_dir

TASKS = load_tasks()
PAPER_REGIONS = {  # Appendix A of the ASIL paper
    "Creative Media": {"audacity", "blender", "gimp", "inkscape", "kdenlive", "obs"},
    "Office & Diagrams": {"drawio", "calc", "impress", "writer"},
    "Developer Workflows": {"codeserver", "gitea", "jupyter"},
    "Files & Communication": {"nautilus", "thunderbird"},
}
MAIN_SUITES = ("core", "multi", "live")  # the paper's main benchmark (Gitea's tasks are the live suite here)


def test_every_app_record_names_its_paper_region_and_multi_app_tasks_are_their_own() -> None:
    for region, apps in PAPER_REGIONS.items():
        for app in apps:
            assert plugin(app).region == region, app
    assert {t.region for t in TASKS if len(t.apps) > 1} == {"Multi-App"}
    # the apps onboarded from profiles are not among the paper's fifteen: their tasks count as Other
    assert all(t.region in PAPER_REGIONS for t in TASKS if len(t.apps) == 1 and t.suite != "onboarded")
    assert {t.region for t in TASKS if t.suite == "onboarded"} == {"Other"}
    assert region_of(["calc", "calc"]) == "Office & Diagrams"


def test_an_app_without_a_region_and_an_unknown_app_are_under_other() -> None:
    register_app(AppPlugin(name="notes", adapter="tests.nowhere:Notes", pattern="file"))
    try:
        assert region_of(["notes"]) == "Other"
        register_app(AppPlugin(name="notes", adapter="tests.nowhere:Notes", pattern="file", region="Science"))
        assert region_of(["notes"]) == "Science"
    finally:
        unregister_app("notes")
    assert "notes" not in APPS and region_of(["not-an-app"]) == "Other"
    assert region_order({"Other", "Science", "Multi-App", "Creative Media"}) == [
        "Creative Media", "Multi-App", "Science", "Other"]


def test_main_benchmark_tasks_have_the_papers_15_step_budget_unless_they_say_why() -> None:
    for task in TASKS:
        if task.suite in MAIN_SUITES:
            assert task.budget == DEFAULT_BUDGET or (task.budget > DEFAULT_BUDGET and task.budget_reason), (
                f"{task.id}: budget {task.budget}; main-benchmark tasks use {DEFAULT_BUDGET} steps, or more with a "
                "budget_reason saying why")


def _values(expected: Any) -> list[str]:
    if isinstance(expected, dict):
        return [v for item in expected.values() for v in _values(item)]
    if isinstance(expected, list):
        return [v for item in expected for v in _values(item)]
    return [] if expected is None or isinstance(expected, bool) else [str(expected)]


def test_hints_say_what_is_checked_without_values_the_instruction_does_not_state() -> None:
    for task in TASKS:
        hint = task.success_hint().replace(GENERIC_WORDS["outcome"], "how the episode ends")  # names both endings
        checkpoints = [cp for path in task.evaluator.paths for cp in path]
        named = " ".join(f"{cp.target} {cp.document}" for cp in checkpoints) + task.instruction
        for value in {v for cp in checkpoints for v in _values(cp.expected)}:
            if len(value) >= 3 and value not in named:
                assert value not in hint, f"{task.id}: the hint gives away {value!r}: {hint}"
        assert "infeasible" not in hint and "done" not in hint, f"{task.id}: the hint tells how to end: {hint}"
    total = next(t for t in TASKS if t.id == "calc-total-column")
    assert "cell value of" in total.success_hint() or "formula" in total.success_hint(), total.success_hint()


class InstructionRecorder:
    """An agent that notes the instruction it was given, then replays the reference (like the oracle)."""

    name = "recorder"
    seen: list[str] = []

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        InstructionRecorder.seen.append(task.instruction)
        self.queue = task.reference_steps()

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        return Decision(action=self.queue.pop(0) if self.queue else Action(action_type="done"))


def test_agents_see_the_hint_only_with_hints_on_and_the_run_records_it(tmp_path: Path) -> None:
    tasks = load_tasks(root=task_dir(tmp_path, "calc-total-column"))
    InstructionRecorder.seen = []
    summary = run_bench(tasks, InstructionRecorder, tmp_path / "off", backend="inline")
    assert list(summary["regions"]) == ["Office & Diagrams"] and summary["regions"]["Office & Diagrams"]["tasks"] == 1
    run_bench(tasks, InstructionRecorder, tmp_path / "on", backend="inline", hints=True)
    off, on = InstructionRecorder.seen
    assert off == tasks[0].instruction and "Success hint" not in off
    assert on == f"{tasks[0].instruction}\n\nSuccess hint: {tasks[0].success_hint()}"
    records = [json.loads((tmp_path / arm / "run.json").read_text())["settings"]["hints"] for arm in ("off", "on")]
    assert records == [False, True]
    report = build_report([tmp_path / "off", tmp_path / "on"])
    assert "recorder B15" in report.text and "recorder +hints B15" in report.text  # the budget it used, not B?
    assert "Success-hint effect" in report.text and "+0.0" in report.text


def _result(task_id: str, apps: list[str], success: bool, budget: int = 15) -> EpisodeResult:
    return EpisodeResult(task_id=task_id, suite="core", apps=apps, domain="x", agent="react", score=float(success),
                         success=success, checkpoints=[], steps=2, budget=budget, time_s=1.0, termination="done")


def _write_run(folder: Path, results: list[EpisodeResult], hints: bool = False) -> None:
    open_run(folder, RunRecord(settings=RunSettings(agent="react", model="m", hints=hints)))
    for result in results:
        commit_task_folder(folder, result.task_id, {"traj.jsonl": b"", "result.json": result.model_dump_json().encode()})


def test_the_region_table_has_the_papers_columns_with_counts_and_overall(tmp_path: Path) -> None:
    results = [_result("c1", ["calc"], True), _result("c2", ["calc"], False), _result("i1", ["inkscape"], True),
               _result("m1", ["calc", "drawio"], True), _result("n1", ["not-registered"], False)]
    _write_run(tmp_path / "off", results)
    _write_run(tmp_path / "on", [r.model_copy(update={"success": True, "score": 1.0}) for r in results], hints=True)
    sets = group_runs(load_runs([tmp_path / "off", tmp_path / "on"]))
    table = region_table(sets)
    assert table.columns == ["run", "Creative Media (1)", "Office & Diagrams (2)", "Multi-App (1)", "Other (1)",
                             "Overall (5)"]
    rows = {row[0]: row[1:] for row in table.rows}
    assert rows["react m B15"] == ["100.0 (1.000)", "50.0 (0.500)", "100.0 (1.000)", "0.0 (0.000)", "60.0 (0.600)"]
    assert rows["react m +hints B15"][-1] == "100.0 (1.000)"
    hints = hint_table(sets)
    assert hints is not None and hints.rows == [["react m B15", "5", "60.0", "100.0", "+40.0", "5/5 vs 3/5"]]


def test_a_run_without_a_budget_is_labelled_with_the_budgets_its_tasks_used(tmp_path: Path) -> None:
    _write_run(tmp_path / "mixed", [_result("a", ["calc"], True, 15), _result("b", ["calc"], True, 30)])
    assert [run.label for run in load_runs([tmp_path / "mixed"])] == ["react m B15-30"]


def test_bench_and_run_take_hints_and_tasks_list_shows_regions() -> None:
    listed = asil("tasks", "list", "--app", "drawio")
    assert listed.returncode == 0 and "Office & Diagrams" in listed.stdout
    bad = asil("bench", "--hints", "maybe")
    assert bad.returncode == 2 and "--hints" in bad.stderr
