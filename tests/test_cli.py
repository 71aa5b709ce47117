"""The asil command line, run as a user runs it (a real subprocess, real LibreOffice)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

from asil.tasks import get_task
from tests.chat_server import ChatServer
from tests.conftest import lo_convert, run_cli


def _csv_made_ods(tmp_path: Path) -> Path:
    source = tmp_path / "team.csv"
    with source.open("w", newline="") as handle:
        csv.writer(handle).writerows([["name", "hours"], ["Ana", 12], ["Bo", 30]])
    return lo_convert(source, "ods", tmp_path)


def test_apps_schema_and_doctor() -> None:
    apps = run_cli("apps")
    assert apps.returncode == 0 and "calc" in apps.stdout and "file" in apps.stdout
    schema = json.loads(run_cli("schema", "calc").stdout)
    assert schema["app"] == "calc" and "sort_range" in schema["functions"]
    assert run_cli("doctor").returncode == 0
    unknown = run_cli("schema", "photoshop")
    assert unknown.returncode == 2 and "Unknown app 'photoshop'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_observe_and_act_on_a_libreoffice_file(tmp_path: Path) -> None:
    ods = _csv_made_ods(tmp_path)
    observed = run_cli("observe", str(ods), "--json")
    assert observed.returncode == 0, observed.stderr
    cells = {e["id"]: e for e in json.loads(observed.stdout)["elements"]}
    assert cells["team!B3"]["value"] == 30
    done = run_cli("act", str(ods), "--action",
                   '{"action_type": "set_value", "target": "team!B4", "params": {"formula": "=SUM(B2:B3)"}}')
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] == ["team!B4"]
    text = run_cli("observe", str(ods))
    assert "team!B4" in text.stdout and "=SUM(B2:B3)" in text.stdout and "42" in text.stdout
    exported = lo_convert(ods, "csv", tmp_path / "back")
    assert exported.read_text().splitlines()[3] == ",42"


def test_bad_input_exits_2_with_one_sentence_and_leaves_the_file_alone(tmp_path: Path) -> None:
    ods = _csv_made_ods(tmp_path)
    original = ods.read_bytes()
    cases = [
        ("{not json", "not valid JSON"),
        ('{"action_type": "teleport"}', "Unknown action_type"),
        ('{"action_type": "set_value", "target": "Sheet9!ZZ0", "params": {"value": 1}}', "Row 0"),
        ('{"action_type": "set_value", "target": "team!B2", "params": {"value": "12", "formula": "=1"}}', "exactly one"),
        ('{"action_type": "set_value", "target": "team!C2", "params": {"formula": "=SUMM(B2:B3)"}}', "unknown function"),
    ]
    for action, fragment in cases:
        out = run_cli("act", str(ods), "--action", action)
        assert out.returncode == 2, (action, out.stderr)
        assert fragment in out.stderr and "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    assert ods.read_bytes() == original
    broken = tmp_path / "broken.ods"
    broken.write_bytes(b"garbage")
    out = run_cli("observe", str(broken))
    assert out.returncode == 2 and "corrupted or not an OpenDocument" in out.stderr
    assert broken.read_bytes() == b"garbage"
    missing = run_cli("observe", str(tmp_path / "nope.ods"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_tasks_run_and_bench(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    for task_id in ("calc-total-column", "calc-infeasible-macro"):
        source = get_task(task_id).source_dir / f"{task_id}.json"  # type: ignore[operator]
        shutil.copy(source, tasks_dir)
    listed = run_cli("tasks", "list", "--tasks-dir", str(tasks_dir))
    assert listed.returncode == 0 and listed.stdout.count("calc-") == 2
    checked = run_cli("tasks", "check", "--tasks-dir", str(tasks_dir))
    assert checked.returncode == 0 and "2/2 tasks sound" in checked.stdout
    ran = run_cli("run", "calc-total-column", "--tasks-dir", str(tasks_dir), "--out", str(tmp_path / "run"))
    assert ran.returncode == 0 and "success" in ran.stdout
    assert (tmp_path / "run" / "calc-total-column" / "result.txt").read_text() == "1\n"
    bench = run_cli("bench", "--tasks-dir", str(tasks_dir), "--out", str(tmp_path / "bench"))
    assert bench.returncode == 0 and "calc" in bench.stdout and "100.0%" in bench.stdout
    assert sorted(p.name for p in (tmp_path / "bench").iterdir()) == [
        "calc-infeasible-macro", "calc-total-column", "run.json", "summary.json"]


def test_a_broken_task_is_reported_not_crashed(tmp_path: Path) -> None:
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "bad.json").write_text('{"id": "bad", "suite": "x"}')
    out = run_cli("tasks", "list", "--tasks-dir", str(tasks_dir))
    assert out.returncode == 2 and "bad.json" in out.stderr and "Traceback" not in out.stderr


def test_run_lstc_with_the_scripted_model_writes_metrics(tmp_path: Path) -> None:
    ran = run_cli("run", "calc-fix-sum-range", "--agent", "lstc", "--model", "scripted", "--ablate", "no-candidates",
                  "--out", str(tmp_path))
    assert ran.returncode == 0 and "success" in ran.stdout, ran.stderr
    result = json.loads((tmp_path / "calc-fix-sum-range" / "result.json").read_text())
    assert result["agent"] == "lstc" and result["metrics"]["verification_class"] == "Pass"
    assert result["metrics"]["config"]["candidates"] is False
    wrong = run_cli("run", "calc-fix-sum-range", "--agent", "react", "--ablate", "no-l2s", "--out", str(tmp_path))
    assert wrong.returncode == 2 and "lstc agent only" in wrong.stderr


def test_table_5_runtime_parameters_are_flags_with_the_papers_defaults(tmp_path: Path) -> None:
    from asil.agents.base import make_agent
    from asil.cli import _agent_kwargs, build_parser

    def options(*flags: str) -> dict[str, Any]:
        return _agent_kwargs(build_parser().parse_args(["run", "calc-fix-sum-range", *flags]))

    defaults = options("--agent", "lstc", "--model", "m")["params"]
    assert defaults == {"temperature": 0.0, "top_p": 0.95, "top_k": 20, "seed": 42, "thinking_budget": 16384,
                        "answer_tokens": 4096, "caps": "local"}
    assert make_agent("lstc", **options("--agent", "lstc")).cfg.max_candidates == 3  # type: ignore[attr-defined]
    given = ("--top-k", "7", "--top-p", "0.5", "--temperature", "0.3", "--seed", "9", "--thinking-budget", "1024",
             "--caps", "table5")
    expected = {  # what each server kind accepts of them
        "openai": {"temperature": 0.3, "top_p": 0.5, "seed": 9},
        "vllm": {"temperature": 0.3, "top_p": 0.5, "seed": 9, "top_k": 7, "thinking_token_budget": 1024},
        "llamacpp": {"temperature": 0.3, "top_p": 0.5, "seed": 9, "top_k": 7, "thinking_budget_tokens": 1024},
        "ollama": {"temperature": 0.3, "top_p": 0.5, "seed": 9}}
    for server, sent in expected.items():
        for agent in ("lstc", "react"):
            built = make_agent(agent, **options("--agent", agent, "--model", "m", "--server", server, *given))
            body = built.client.provider.request_body([])  # type: ignore[attr-defined]
            assert {k: body[k] for k in sent} == sent and body["max_tokens"] == 1024 + 4096, (server, agent)
    lstc = make_agent("lstc", **options("--agent", "lstc", "--max-candidates", "2"))
    assert lstc.cfg.max_candidates == 2  # type: ignore[attr-defined]
    wrong = run_cli("run", "calc-fix-sum-range", "--agent", "react", "--max-candidates", "2", "--out", str(tmp_path))
    assert wrong.returncode == 2 and "--max-candidates applies to the lstc agent only" in wrong.stderr
    bad = run_cli("run", "calc-fix-sum-range", "--agent", "lstc", "--top-p", "1.5", "--out", str(tmp_path))
    assert bad.returncode == 2 and "--top-p" in bad.stderr and "Traceback" not in bad.stderr


def test_runtime_flags_reach_a_real_server(tmp_path: Path) -> None:
    from tests.chat_server import ChatServer

    finish = {"candidates": [{"control": "infeasible", "reason": "testing the flags"}], "best": 0}
    server = ChatServer()
    server.behaviours.append({"text": json.dumps(finish)})
    try:
        ran = run_cli("run", "calc-fix-sum-range", "--agent", "lstc", "--model", "local", "--base-url", server.url,
                      "--server", "llamacpp", "--top-k", "11", "--seed", "5", "--thinking-budget", "512",
                      "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    body = server.requests[0]["body"]
    assert (body["top_k"], body["seed"], body["thinking_budget_tokens"], body["top_p"]) == (11, 5, 512, 0.95)
    assert json.loads((tmp_path / "calc-fix-sum-range" / "result.json").read_text())["termination"] == "infeasible"


def test_bench_picks_tasks_by_id(tmp_path: Path) -> None:
    bench = run_cli("bench", "--task", "calc-total-column", "--task", "calc-infeasible-macro", "--out", str(tmp_path))
    assert bench.returncode == 0, bench.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["calc-infeasible-macro", "calc-total-column"]
    assert json.loads((tmp_path / "run.json").read_text())["task_ids"] == ["calc-total-column", "calc-infeasible-macro"]
    unknown = run_cli("bench", "--task", "calc-no-such-task", "--out", str(tmp_path / "none"))
    assert unknown.returncode == 2 and "No task 'calc-no-such-task'" in unknown.stderr


def test_call_and_episode_timeouts_are_flags(tmp_path: Path) -> None:
    server = ChatServer()
    try:
        server.behaviours.append({"delay": 2.0, "text": '{"action": {"action_type": "done"}}'})
        ran = run_cli("run", "calc-total-column", "--agent", "react", "--model", "small", "--base-url", server.url,
                      "--call-timeout", "0.3", "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 1 and "llm_error" in ran.stdout and "timed out after 0.3 s" in ran.stderr
    assert len(server.requests) == 1  # cancelled, not retried behind itself
    result = json.loads((tmp_path / "calc-total-column" / "result.json").read_text())
    assert result["tokens"]["prompt"] > 0 and result["metrics"]["model_calls"]["react"]["failed"] == 1
    ended = run_cli("run", "calc-total-column", "--agent", "react", "--episode-timeout", "0.000001",
                    "--out", str(tmp_path / "late"))
    assert "(timeout)" in ended.stdout, ended.stderr
    assert run_cli("run", "calc-total-column", "--call-timeout", "0", "--agent", "react").returncode == 2
