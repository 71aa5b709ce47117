"""Each LocalLSTC ablation switch changes the behaviour it names (paper Tables 10 and 11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import ABLATIONS, UnknownAblation, configure
from tests.agents.helpers import prompts, run, system_prompt, trace

MULTI_STEP = "calc-sheet-management"  # five reference actions


def lstc(tmp_path: Path, ablate: str | None, faults: list[str] | None = None, task: str = "calc-total-column"):
    agent = LSTCAgent(model="scripted", ablate=ablate, faults=faults or [])
    return agent, run(task, agent, tmp_path / (ablate or "full"))


def test_every_ablation_of_the_paper_is_a_switch() -> None:
    assert set(ABLATIONS) == {"no-l2s", "no-s2l", "no-persistent-subgoal", "no-candidates", "no-multi-action",
                              "no-step-abstraction", "no-routing", "no-stall-loop", "no-failure-abstraction"}
    assert configure("no-candidates,no-multi-action").model_dump(include={"candidates", "multi_action"}) == {
        "candidates": False, "multi_action": False}
    with pytest.raises(UnknownAblation, match="no-magic"):
        configure("no-magic")


def planner_records(tmp_path: Path, ablate: str | None, task: str = "calc-total-column") -> list[dict[str, Any]]:
    """The planner decisions the agent logged in the trace, in order."""
    lines = trace(tmp_path / (ablate or "full"), task)
    return [record for line in lines for record in (line.get("agent_log") or {}).get("planner", [])]


def route_logs(tmp_path: Path, ablate: str | None, task: str = "calc-total-column") -> list[dict[str, Any]]:
    lines = trace(tmp_path / (ablate or "full"), task)
    return [line["agent_log"]["route"] for line in lines if "route" in (line.get("agent_log") or {})]


@pytest.mark.parametrize("ablate", [None, *ABLATIONS])
def test_the_loop_guard_logs_in_every_ablation(tmp_path: Path, ablate: str | None) -> None:
    agent, result = lstc(tmp_path, ablate, ["repeat", "repeat"])
    assert result.metrics["events"]["stalls"] == 1 and result.metrics["events"]["entered"]["stall_repetition"]
    stalled = [r for r in route_logs(tmp_path, ablate) if r["finding"] == "stall"]
    assert len(stalled) == 1
    enforced = agent.cfg.stall_loop and agent.cfg.routing
    assert stalled[0]["applied"] == agent.cfg.routing
    assert (stalled[0]["assigned"] == "stall") == agent.cfg.stall_loop
    assert any("STALL" in p for p in prompts(agent, "planner")) == (enforced and agent.cfg.recovery_feedback)


def test_no_persistent_subgoal(tmp_path: Path) -> None:
    full, _ = lstc(tmp_path, None, ["wrong_action"])
    assert "Current subgoal" in prompts(full, "planner")[1]
    agent, result = lstc(tmp_path, "no-persistent-subgoal", ["wrong_action"])
    assert result.success
    assert not any("Current subgoal" in p for p in prompts(agent, "planner"))
    # every committing call opens a subgoal; the finish call does not
    assert result.metrics["subgoals"] == result.metrics["planner_steps"] - 1
    assert '"continue"' not in system_prompt(agent)
    # unchanged: a subgoal label is still asked for, candidates, action lists, routing and verification remain
    assert '"subgoal"' in system_prompt(agent) and '"candidates"' in system_prompt(agent)
    assert "ordered list of at most" in system_prompt(agent)
    assert all("candidates" in r for r in planner_records(tmp_path, "no-persistent-subgoal"))
    assert result.metrics["events"]["recovery_entries"] == 1 and "RECOVERY" in prompts(agent, "planner")[1]
    assert result.metrics["model_calls"]["verification"]["calls"] == 1


def test_no_candidates(tmp_path: Path) -> None:
    full, _ = lstc(tmp_path, None)
    assert '"candidates"' in system_prompt(full)
    agent, result = lstc(tmp_path, "no-candidates")
    assert result.success and '"candidates"' not in system_prompt(agent) and '"best"' not in system_prompt(agent)
    assert [set(r) for r in planner_records(tmp_path, "no-candidates")] == [{"chosen"}, {"chosen"}]
    # unchanged: persistent subgoals, ordered action lists, Final Verification
    assert '"subgoal"' in system_prompt(agent) and "ordered list of at most" in system_prompt(agent)
    assert "Current subgoal" in prompts(agent, "planner")[1]
    assert result.metrics["model_calls"]["verification"]["calls"] == 1


def test_no_multi_action(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None, task=MULTI_STEP)
    assert full.metrics["actions_per_step"] > 1
    agent, result = lstc(tmp_path, "no-multi-action", task=MULTI_STEP)
    assert result.success and result.metrics["actions_per_step"] == 1.0
    assert result.metrics["planner_steps"] == result.metrics["actions"] + 1  # one action a call, then finish
    assert 'Give exactly one step in "action".' in system_prompt(agent)
    assert "ordered list of at most" not in system_prompt(agent)
    # unchanged: candidates (each with one step) and subgoals
    records = planner_records(tmp_path, "no-multi-action", MULTI_STEP)
    assert all(len(r["candidates"]) == 2 and len(r["chosen"]["steps"]) <= 1 for r in records)
    assert '"subgoal"' in system_prompt(agent) and '"candidates"' in system_prompt(agent)


def test_no_step_abstraction(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None)
    assert full.metrics["model_calls"]["abstraction"]["calls"] == full.metrics["actions"]
    agent, result = lstc(tmp_path, "no-step-abstraction")
    assert result.success and "abstraction" not in result.metrics["model_calls"]
    assert agent.state.all_evidence()[0].startswith('api {"action_type": "invoke_function"')
    # unchanged: routing is applied, refinement and Final Verification run, candidates are proposed
    assert [r["applied"] for r in route_logs(tmp_path, "no-step-abstraction")] == [True]
    assert result.metrics["context_refinements"] == full.metrics["context_refinements"] == 1
    assert result.metrics["model_calls"]["verification"]["calls"] == 1
    assert all("candidates" in r for r in planner_records(tmp_path, "no-step-abstraction"))


def test_no_failure_abstraction(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None, ["wrong_action"])
    agent, result = lstc(tmp_path, "no-failure-abstraction", ["wrong_action"])
    assert result.success and full.success and result.metrics["abstractions_skipped"] == 1
    calls = result.metrics["model_calls"]["abstraction"]["calls"]
    assert calls == full.metrics["model_calls"]["abstraction"]["calls"] - 1 == result.metrics["actions"] - 1
    failed = route_logs(tmp_path, "no-failure-abstraction")[0]
    assert (failed["assigned"], failed["rule"]) == ("error", "execution_failure")
    assert agent.state.all_evidence()[0].startswith('api {"action_type"')  # the error message is the evidence
    # unchanged: recovery feedback reaches the planner
    assert result.metrics["events"]["recovery_entries"] == 1 and "RECOVERY" in prompts(agent, "planner")[1]


def test_no_routing(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-routing", ["premature_done"])
    assert result.termination == "done" and result.steps == 1 and not result.success  # finish accepted unverified
    assert "verification" not in result.metrics["model_calls"]
    agent, result = lstc(tmp_path / "err", "no-routing", ["wrong_action"])
    assert result.metrics["routes"]["error"] == 1 and result.metrics["events"]["recovery_entries"] == 0
    assert not any("RECOVERY" in p for p in prompts(agent, "planner"))
    logged = route_logs(tmp_path / "err", "no-routing")
    assert logged[0]["assigned"] == "error" and not any(r["applied"] for r in logged)  # logged, not applied
    # unchanged: Step Abstraction, candidates, subgoals
    assert result.metrics["model_calls"]["abstraction"]["calls"] == result.metrics["actions"]
    assert '"candidates"' in system_prompt(agent) and "Current subgoal" in prompts(agent, "planner")[1]


def test_no_stall_loop(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None, ["repeat"] * 5)
    assert full.termination == "stall_cutoff"
    agent, result = lstc(tmp_path, "no-stall-loop", ["repeat"] * 5)
    assert result.success and result.termination == "done" and result.metrics["routes"]["stall"] == 0
    assert result.metrics["events"]["stall_repetition"] == 4  # still found and logged, not applied
    assert not any("STALL" in p for p in prompts(agent, "planner"))
    # a failure the model calls "continue" is not remapped without stall-and-loop handling
    agent, result = lstc(tmp_path / "misread", "no-stall-loop", ["failure_called_continue"])
    first = route_logs(tmp_path / "misread", "no-stall-loop")[0]
    assert (first["assigned"], first["rule"]) == ("continue", "model")
    assert result.metrics["events"]["recovery_entries"] == 0
    # unchanged: an error the model reports routes to recovery; Final Verification runs
    agent, result = lstc(tmp_path / "err", "no-stall-loop", ["wrong_action"])
    assert result.metrics["events"]["recovery_entries"] == 1 and "RECOVERY" in prompts(agent, "planner")[1]
    assert result.metrics["model_calls"]["verification"]["calls"] == 1


def test_no_l2s(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-l2s", ["wrong_action"], task=MULTI_STEP)
    assert result.success and result.metrics["actions_per_step"] == 1.0
    assert '"candidates"' not in system_prompt(agent)
    assert '"subgoal"' not in system_prompt(agent)  # no subgoal is asked for at all
    assert result.metrics["subgoals"] == 0 and result.metrics["subgoal_history"] == []
    assert all(r["chosen"]["subgoal"]["text"] == "" for r in planner_records(tmp_path, "no-l2s", MULTI_STEP))
    assert not any("Current subgoal" in p for p in prompts(agent, "planner"))
    assert all("Evidence for the task" in p for p in prompts(agent, "planner"))
    # unchanged: Final Verification, task-level recovery, Step Abstraction
    assert result.metrics["model_calls"]["verification"]["calls"] == 1
    assert any("RECOVERY" in p for p in prompts(agent, "planner"))
    assert result.metrics["model_calls"]["abstraction"]["calls"] == result.metrics["actions"]


def test_no_s2l(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-s2l", ["wrong_action"])
    assert result.success
    assert "verification" not in result.metrics["model_calls"]
    assert not any("RECOVERY" in p for p in prompts(agent, "planner"))
    assert all("Evidence for the task" in p for p in prompts(agent, "planner"))
    assert not any(r["applied"] for r in route_logs(tmp_path, "no-s2l"))
    # unchanged: L2S is intact (candidates, subgoal labels, action lists)
    assert '"candidates"' in system_prompt(agent) and '"subgoal"' in system_prompt(agent)
    assert "ordered list of at most" in system_prompt(agent)
    assert all("candidates" in r for r in planner_records(tmp_path, "no-s2l"))
