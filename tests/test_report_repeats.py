"""Repeated runs: ``asil bench --repeats N`` records a seed per repeat, and every report table shows
mean ± SD over the repeats; LocalLSTC's Table 2 is per application and execution channel."""

from __future__ import annotations

import json
from pathlib import Path

from asil.report.runs import group_runs, load_runs
from asil.report.tables import budget_table, runtime_table, success_table
from asil.runner.results import RunRecord, RunSettings, commit_task_folder, open_run
from asil.runner.trace import EpisodeResult
from tests.bench_helpers import asil, task_dir

SET = {"action_type": "set_value", "target": "A1", "params": {"value": 1}}
BASH = {"action_type": "invoke_function", "target": "bash", "params": {"command": "ls"}}
DONE = {"action_type": "done", "params": {}}


def _write(folder: Path, seed: int, outcomes: dict[str, tuple[str, bool, list[tuple[str, dict[str, object]]]]]) -> None:
    open_run(folder, RunRecord(settings=RunSettings(agent="react", model="m", budget=15, seed=seed)))
    for task_id, (app, success, steps) in outcomes.items():
        result = EpisodeResult(task_id=task_id, suite="core", apps=[app], agent="react", score=float(success),
                               success=success, checkpoints=[], steps=len(steps), budget=15, time_s=1.0,
                               termination="done")
        trace = "".join(json.dumps({"step": n, "observation_digest": "sha256:0", "action": action, "channel": channel,
                                    "status": "ok", "latency_ms": 1.0}) + "\n"
                        for n, (channel, action) in enumerate(steps, start=1))
        commit_task_folder(folder, task_id, {"traj.jsonl": trace.encode(), "result.json": result.model_dump_json().encode()})


def test_repeats_form_one_set_whose_cells_are_mean_and_sample_sd(tmp_path: Path) -> None:
    # repeat 1: the calc task succeeds with api, api, done; the writer task with bash, gui, gui, done
    _write(tmp_path / "series" / "repeat-1", 42, {
        "c": ("calc", True, [("api", SET), ("api", SET), ("api", DONE)]),
        "w": ("writer", True, [("bash", BASH), ("gui", SET), ("gui", SET), ("api", DONE)])})
    # repeat 2: the calc task fails with api, done
    _write(tmp_path / "series" / "repeat-2", 43, {
        "c": ("calc", False, [("api", SET), ("api", DONE)]),
        "w": ("writer", True, [("bash", BASH), ("gui", SET), ("gui", SET), ("api", DONE)])})
    (item,) = group_runs(load_runs([tmp_path / "series"]))  # the folder stands for its repeats
    assert item.label == "react m B15 x2" and item.seeds == [42, 43]

    # calc SR per repeat: 1.0 and 0.0 -> mean 50.0, sample SD sqrt(((1-.5)^2 + (0-.5)^2) / 1) = 0.7071 -> 70.7
    success = {tuple(row[:2]): row[2:] for row in success_table([item], "app").rows}
    assert success[("react m B15 x2", "calc")] == ["1", "0.5 ± 0.7", "50.0 ± 70.7", "0.500 ± 0.707", "2.5 ± 0.7"]
    assert success[("react m B15 x2", "writer")][2] == "100.0 ± 0.0"

    table = runtime_table(item)  # a GUI column appears because a trace used a gui channel
    assert table.columns[7:11] == ["API (%)", "Bash (%)", "GUI (%)", "Control (%)"]
    rows = {row[0]: row for row in table.rows}
    # calc API share: 2/3 and 1/2 -> mean 58.3, SD |2/3 - 1/2| / sqrt(2) = 11.8; control 1/3 and 1/2
    assert rows["calc"][7:11] == ["58.3 ± 11.8", "0.0 ± 0.0", "0.0 ± 0.0", "41.7 ± 11.8"]
    assert rows["writer"][7:11] == ["0.0 ± 0.0", "25.0 ± 0.0", "50.0 ± 0.0", "25.0 ± 0.0"]
    assert rows["calc"][4] == "–"  # no LocalLSTC metrics in a react run
    assert any("seeds: 42, 43" in note for note in table.notes)
    budgets = {row[1]: row[2:] for row in budget_table([item]).rows}
    assert budgets["separate runs"] == ["75.0 ± 35.4 (n=2)", "–", "–"]


def test_bench_repeats_2_with_the_scripted_lstc_agent_reports_table_2_per_app_with_sd(tmp_path: Path) -> None:
    tasks = task_dir(tmp_path, "calc-total-column", "calc-infeasible-macro")
    out = tmp_path / "out"
    ran = asil("bench", "--tasks-dir", str(tasks), "--agent", "lstc", "--model", "scripted", "--repeats", "2",
               "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    assert "repeat 2 of 2 (seed 43)" in ran.stdout
    records = [json.loads((out / f"repeat-{n}" / "run.json").read_text()) for n in (1, 2)]
    assert [(r["repeat"], r["repeats"], r["settings"]["seed"]) for r in records] == [(1, 2, 42), (2, 2, 43)]

    report = asil("report", str(out))
    assert report.returncode == 0, report.stderr
    text = report.stdout
    block = text.split("Runtime behaviour by app and channel — lstc scripted B15 x2", 1)[1].split("\n\n", 1)[0]
    header = block.splitlines()[2].split()
    assert header[:3] == ["app", "tasks", "SR"] and "API" in header and "Bash" in header and "GUI" not in header
    calc = next(line for line in block.splitlines() if line.startswith("calc"))
    # both scripted repeats solve both tasks: one api action + done, and one infeasible
    assert "100.0 ± 0.0" in calc and "25.0 ± 0.0" in calc and "75.0 ± 0.0" in calc
    assert "seeds: 42, 43" in block
    assert (out / "report.html").is_file()

    # Table 8 over the repeats: the scripted agent solves both tasks cleanly, so both are None without a judge call
    annotated = asil("annotate", str(out), "--provider", "scripted")
    assert annotated.returncode == 0, annotated.stderr
    row = next(line for line in annotated.stdout.splitlines() if line.startswith("lstc scripted B15 x2"))
    assert row.split()[4:] == ["2", "2"] + ["0.0", "±", "0.0"] * 5 + ["100.0", "±", "0.0"] + ["0.0", "±", "0.0"] * 2
    assert (out / "repeat-2" / "annotations.json").is_file()


def test_a_repeat_seed_reaches_the_model_client_and_keeps_the_other_runtime_parameters() -> None:
    from asil.llm.params import RuntimeParams
    from asil.runner.bench import AgentSpec, agent_seed, with_seed

    spec = AgentSpec("lstc", {"model": "m", "base_url": "http://127.0.0.1:9/v1",
                              "params": RuntimeParams(top_k=7)})
    seeded = with_seed(spec, 43)
    client = seeded.build().client.provider  # type: ignore[attr-defined]
    assert client.request_body([])["seed"] == 43 and client.params.top_k == 7
    assert agent_seed(seeded) == 43 and agent_seed(spec) == 42 and agent_seed(AgentSpec("oracle")) is None
    assert with_seed(AgentSpec("react", {"model": "m", "params": {"seed": 1, "top_p": 0.5}}), 2).options["params"] == \
        {"seed": 2, "top_p": 0.5}
