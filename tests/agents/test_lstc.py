"""LocalLSTC end to end on real Calc tasks with the scripted provider, including injected faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.tasks import load_tasks
from tests.agents.helpers import prompts, run, trace
from tests.chat_server import ChatServer

CALC = [t.id for t in load_tasks(suite="core", app="calc")]


@pytest.mark.slow
@pytest.mark.parametrize("task_id", CALC)
def test_lstc_completes_every_calc_task(task_id: str, tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted")
    result = run(task_id, agent, tmp_path)
    assert result.success, result
    metrics = result.metrics
    assert metrics["verification_class"] == "Pass"
    assert metrics["planner_steps"] >= 1 and metrics["actions"] + 1 == result.steps
    totals = metrics["tokens"]
    assert result.tokens == totals and totals["total"] == totals["prompt"] + totals["completion"]  # one total
    saved = json.loads((tmp_path / task_id / "result.json").read_text())
    assert saved["metrics"]["model_calls"]["planner"]["calls"] == metrics["planner_steps"]


def test_a_wrong_action_routes_to_error_and_recovery_feedback_reaches_the_planner(tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted", faults=["wrong_action"])
    result = run("calc-total-column", agent, tmp_path)
    assert result.success
    assert result.metrics["routes"]["error"] == 1 and result.metrics["events"]["recovery_entries"] == 1
    second = prompts(agent, "planner")[1]
    assert "RECOVERY" in second and "NoSuchSheet" in second
    assert "RECOVERY" not in prompts(agent, "planner")[0]
    assert trace(tmp_path, "calc-total-column")[0]["status"] == "invalid"


def test_a_repeated_action_is_a_stall_and_repeated_stalls_cut_the_episode(tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted", faults=["repeat", "repeat"])
    result = run("calc-total-column", agent, tmp_path / "one")
    assert result.success and result.metrics["events"]["stalls"] == 1
    assert "STALL" in prompts(agent, "planner")[2]

    agent = LSTCAgent(model="scripted", faults=["repeat"] * 8)
    result = run("calc-total-column", agent, tmp_path / "many")
    assert result.termination == "stall_cutoff" and not result.success
    assert result.metrics["events"]["stalls"] == 3 and result.metrics["verification_class"] == "Bypass"
    by_kind = result.metrics["model_calls"]  # the last stall's step abstraction is counted too
    assert result.tokens["prompt"] == sum(k["prompt_tokens"] for k in by_kind.values())
    assert result.tokens["completion"] == sum(k["completion_tokens"] for k in by_kind.values())


def test_a_premature_finish_is_rejected_by_final_verification(tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted", faults=["premature_done"])
    result = run("calc-total-column", agent, tmp_path)
    assert result.success and result.termination == "done"
    history = result.metrics["final_verification"]
    assert [v["verdict"] for v in history] == ["reject", "accept"]
    assert result.metrics["verification_class"] == "Fail"
    assert result.metrics["events"]["rejected_terminations"] == 1
    assert "FINAL VERIFICATION REJECTED" in prompts(agent, "planner")[1]


def test_malformed_json_is_repaired_once(tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted", faults=["malformed"])
    result = run("calc-total-column", agent, tmp_path)
    assert result.success and result.metrics["repairs"] == 1
    repair = agent.client.provider.calls[1]  # type: ignore[attr-defined]
    assert repair[0] == "repair" and "could not be read as a JSON object" in repair[1][-1]["content"]


def test_a_dead_model_server_ends_the_episode_with_the_reason(tmp_path: Path) -> None:
    server = ChatServer()
    server.behaviours += [{"status": 500}] * 10
    try:
        agent = LSTCAgent(model="qwen3.5-9b", base_url=server.url, retries=2, backoff_s=0.01)
        result = run("calc-total-column", agent, tmp_path)
    finally:
        server.close()
    assert result.termination == "llm_error" and not result.success
    assert "failed 3 times (HTTP 500)" in (result.error or "")
    assert len(server.requests) == 3
    saved = json.loads((tmp_path / "calc-total-column" / "result.json").read_text())
    assert saved["termination"] == "llm_error"


def test_the_bash_channel_runs_confined_in_the_workspace(tmp_path: Path) -> None:
    replies = tmp_path / "replies.jsonl"
    planner = {"subgoal": {"mode": "new", "text": "note the files"},
               "actions": [{"channel": "bash", "command": "echo done > note.txt && ls"},
                           {"channel": "bash", "command": "touch /etc/escape"}]}
    finish = {"control": "infeasible", "reason": "cannot"}
    lines = [{"kind": "planner", "text": json.dumps({"candidates": [planner], "best": 0})},
             {"kind": "planner", "text": json.dumps({"candidates": [finish], "best": 0})}]
    replies.write_text("\n".join(json.dumps(line) for line in lines))
    agent = LSTCAgent(model=f"replay:{replies}", ablate="no-step-abstraction")
    result = run("calc-total-column", agent, tmp_path / "out")
    steps = trace(tmp_path / "out", "calc-total-column")
    assert [s["channel"] for s in steps] == ["bash", "bash", "api"]
    assert steps[0]["status"] == "ok" and steps[0]["output"].split() == ["note.txt", "sales.ods"]
    assert steps[1]["status"] == "error" and "Read-only file system" in steps[1]["output"]
    assert result.termination == "infeasible"
    assert result.metrics["channel_shares"] == {"api": 0.0, "bash": 0.667, "control": 0.333}
    assert not Path("/etc/escape").exists()
