"""LocalLSTC's deterministic rules, each watched through the trace with the scripted provider:
candidate selection as data, failure routing, unbypassable Final Verification, loops vs toggles,
the failed subgoal status and Context Refinement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import configure
from asil.agents.lstc.control import Executed, LoopGuard
from asil.agents.lstc.planner import parse_commitment
from asil.llm.parse import DecisionParseError
from asil.protocol import Action
from asil.runner.trace import TraceLine
from tests.agents.helpers import prompts, run, system_prompt, trace

TASK = "calc-total-column"
MULTI_STEP = "calc-sheet-management"  # five reference actions


def lstc(tmp_path: Path, faults: list[str] | None = None, task: str = TASK, **config: Any):
    agent = LSTCAgent(model="scripted", faults=faults or [], config=configure(config.pop("ablate", None), **config))
    return agent, run(task, agent, tmp_path)


def routes(steps: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The route each step's outcome got, by the step it belongs to (logged on the next line)."""
    found = [line["agent_log"]["route"] for line in steps if "route" in (line.get("agent_log") or {})]
    return {route["of_step"]: route for route in found}


# ------------------------------------------------------------ candidate selection as data
def _candidate(target: str) -> dict[str, Any]:
    return {"why": "x", "subgoal": {"mode": "new", "text": target},
            "actions": [{"channel": "api", "action": {"action_type": "navigate", "target": target}}]}


def test_a_proposal_carries_one_to_max_candidates_and_a_best_index() -> None:
    cfg = configure()
    chosen = parse_commitment({"candidates": [_candidate("A1"), _candidate("B2")], "best": 1, "rationale": "r"}, cfg)
    assert chosen.subgoal_text == "B2" and chosen.steps[0][1].target == "B2" and chosen.best == 1
    assert [c.subgoal_text for c in chosen.candidates] == ["A1", "B2"]  # type: ignore[union-attr]
    bad = [({"candidates": [], "best": 0}, "1 to 3 decisions, not 0"),
           ({"candidates": [_candidate("A1")] * 4, "best": 0}, "not 4 candidates"),
           ({"subgoal": {"text": "x"}, "actions": []}, "'candidates' = None"),
           ({"candidates": [_candidate("A1"), _candidate("B2")], "best": 2}, "'best' must be the index"),
           ({"candidates": [_candidate("A1"), _candidate("B2")], "best": True}, "'best' must be the index"),
           ({"candidates": [{"actions": "no"}, _candidate("B2")], "best": 0}, "Candidate 0: 'actions' must be")]
    for reply, message in bad:
        with pytest.raises(DecisionParseError, match=message):
            parse_commitment(reply, cfg)
    with pytest.raises(DecisionParseError, match="1 to 1 decisions, not 2"):
        parse_commitment({"candidates": [_candidate("A1")] * 2, "best": 0}, configure(max_candidates=1))
    lone = parse_commitment({"candidates": [_candidate("A1")], "best": 2, "rationale": "r"}, cfg)
    assert lone.subgoal_text == "A1" and lone.best == 0  # nothing to choose: the index is not held against it
    # recorded from SmolLM2-135M: the option it did not choose half-written; only the chosen one must parse
    half = {"why": "2", "control": None, "reason": "r", "subgoal": {"mode": "continue", "text": "yes"}}
    kept = parse_commitment({"candidates": [_candidate("A1"), half], "best": 0, "rationale": "r"}, cfg)
    assert kept.steps[0][1].target == "A1"
    assert kept.record()["candidates"][1] == {"invalid": "Candidate 1: The reply commits to no action and no control."}
    plain = parse_commitment(_candidate("C3"), configure("no-candidates"))
    assert plain.best is None and "candidates" not in plain.record()


def test_every_candidate_is_logged_and_the_best_one_is_executed(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path)
    assert result.success
    assert "Propose 1 to 3 candidates" in system_prompt(agent)
    first = trace(tmp_path, TASK)[0]
    TraceLine.model_validate(first)  # agent_log is part of the trace contract
    planner = first["agent_log"]["planner"][0]
    assert len(planner["candidates"]) == 2 and planner["best"] == 0 and planner["rationale"]
    assert planner["chosen"] == planner["candidates"][0]
    assert first["action"] == planner["chosen"]["steps"][0]["action"]
    assert planner["candidates"][1]["steps"][0]["action"] == {"action_type": "navigate", "target": "A1"}


def test_max_candidates_is_honoured(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path / "one", max_candidates=1)
    assert result.success and "Propose 1 to 1 candidates" in system_prompt(agent)
    assert len(trace(tmp_path / "one", TASK)[0]["agent_log"]["planner"][0]["candidates"]) == 1
    agent, result = lstc(tmp_path / "many", ["too_many_candidates"])
    assert result.success and result.metrics["repairs"] == 1
    repair = [messages for kind, messages in agent.client.provider.calls if kind == "repair"]  # type: ignore[attr-defined]
    assert "1 to 3 decisions, not 5 candidates" in repair[0][-1]["content"]


def test_a_malformed_proposal_is_fed_back_once(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, ["bad_best"])
    assert result.success and result.metrics["repairs"] == 1 and result.metrics["planner_errors"] == 0
    repair = [messages for kind, messages in agent.client.provider.calls if kind == "repair"]  # type: ignore[attr-defined]
    assert len(repair) == 1 and "'best' must be the index (0 to 1) of a candidate, not 2" in repair[0][-1]["content"]
    assert trace(tmp_path, TASK)[0]["status"] == "ok"


def test_a_proposal_still_malformed_after_the_feedback_is_counted(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, ["bad_best_twice"])
    assert result.success  # the next planner call is sound again
    assert result.metrics["repairs"] == 1 and result.metrics["planner_errors"] == 1
    first = trace(tmp_path, TASK)[0]
    assert first["status"] == "invalid" and first.get("action") is None
    assert "'best' must be the index" in first["agent_log"]["planner_error"]
    assert result.metrics["model_calls"]["repair"]["calls"] == 1  # fed back exactly once


# ------------------------------------------------------------ deterministic routing
def test_a_failed_step_the_model_calls_continue_is_forced_to_error(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, ["failure_called_continue"])
    steps = trace(tmp_path, TASK)
    assert steps[0]["status"] == "invalid"
    assert routes(steps)[1] == {"of_step": 1, "model": "continue", "assigned": "error", "rule": "execution_failure",
                                "finding": None, "applied": True}
    assert result.metrics["routes"]["error"] == 1 and result.metrics["routes"]["continue"] == 0
    assert result.metrics["events"]["recovery_entries"] == 1
    assert "RECOVERY" in prompts(agent, "planner")[1] and "NoSuchSheet" in prompts(agent, "planner")[1]
    assert result.success


def test_final_verification_cannot_be_bypassed(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, ["premature_done"] * 3)
    assert result.termination == "verification_failed" and not result.success
    assert [v["verdict"] for v in result.metrics["final_verification"]] == ["reject"] * 3
    assert result.metrics["events"]["rejected_terminations"] == 3
    assert result.metrics["verification_class"] == "Fail"
    assert result.steps == 0 and result.metrics["channel_shares"]["control"] == 0.0  # no done was emitted
    saved = json.loads((tmp_path / TASK / "result.json").read_text())
    assert saved["termination"] == "verification_failed"
    stop = result.metrics["stop_log"]  # the stopping step writes no trace line: its record is kept here
    assert [v["verdict"] for v in stop["verification"]] == ["reject"] * 3 and len(stop["planner"]) == 3
    # one rejection fewer than the limit: the planner recovers and the finish is verified
    _, recovered = lstc(tmp_path / "two", ["premature_done"] * 2)
    assert recovered.termination == "done" and recovered.success
    assert [v["verdict"] for v in recovered.metrics["final_verification"]] == ["reject", "reject", "accept"]


def test_the_replan_limit_is_the_configured_one(tmp_path: Path) -> None:
    _, result = lstc(tmp_path, ["premature_done"], max_replans=1)
    assert result.termination == "verification_failed"
    assert len(result.metrics["final_verification"]) == 1


# ------------------------------------------------------------ loops and toggles
def _executed(action: dict[str, Any], before: str) -> Executed:
    return Executed("api", Action.model_validate(action), before, "", 0)


def test_the_loop_guard_tells_a_toggle_from_a_loop() -> None:
    a, b = {"action_type": "navigate", "target": "A1"}, {"action_type": "navigate", "target": "B2"}
    guard = LoopGuard(6)  # A -> B -> A, moving only: the state after A recurs, nothing changed between
    assert guard.check(_executed(a, "s0"), "sA", False) is None
    assert guard.check(_executed(b, "sA"), "sB", False) is None
    assert guard.check(_executed(a, "sB"), "sA", False) == "loop"
    guard = LoopGuard(6)  # the same shape, but each step changed the document: a toggle, progress
    assert guard.check(_executed(a, "s0"), "sA", True) is None
    assert guard.check(_executed(b, "sA"), "sB", True) is None
    assert guard.check(_executed(a, "sB"), "sA", True) is None
    guard = LoopGuard(6)
    assert guard.check(_executed(a, "s0"), "sA", False) is None
    assert guard.check(_executed(a, "sA"), "sA", False) == "stall"  # the same action again, no change


def test_a_cycle_is_a_loop_and_a_toggle_is_progress(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path / "cycle", ["cycle"])
    steps = trace(tmp_path / "cycle", TASK)
    assert [s["action"]["target"] for s in steps[:3]] == ["A1", "B2", "A1"] and not any(s["changed"] for s in steps[:3])
    assert routes(steps)[3]["finding"] == "loop" and routes(steps)[3]["assigned"] == "stall"
    assert result.metrics["events"]["loops"] == 1 and result.metrics["routes"]["stall"] == 1
    assert "returned to a state seen before" in prompts(agent, "planner")[1]
    assert result.success

    agent, result = lstc(tmp_path / "toggle", ["toggle"])
    steps = trace(tmp_path / "toggle", TASK)
    assert [s["action"]["params"]["value"] for s in steps[:3]] == ["on", "off", "on"]
    assert all(s["changed"] == ["Orders!F1"] for s in steps[:3])
    assert all(r["finding"] is None for r in routes(steps).values())
    assert result.metrics["events"]["stall_repetition"] == 0 and result.metrics["routes"]["stall"] == 0
    assert not any("STALL" in p for p in prompts(agent, "planner"))


# ------------------------------------------------------------ subgoal status
def test_a_subgoal_abandoned_after_a_failure_is_failed(tmp_path: Path) -> None:
    _, result = lstc(tmp_path / "new", ["wrong_action"], ablate="no-persistent-subgoal")
    statuses = [s["status"] for s in result.metrics["subgoal_history"]]
    assert statuses == ["failed", "done"]  # the failed step's subgoal was replaced, not completed
    _, result = lstc(tmp_path / "cut", ["repeat"] * 8)
    assert result.termination == "stall_cutoff"
    assert [s["status"] for s in result.metrics["subgoal_history"]][-1] == "failed"
    assert result.metrics["stop_log"]["route"]["assigned"] == "stall"  # the third stall, logged at the stop
    _, result = lstc(tmp_path / "ok", task=MULTI_STEP)
    assert {s["status"] for s in result.metrics["subgoal_history"]} == {"done"}


# ------------------------------------------------------------ Context Refinement
def test_context_refinement_on_advance_reaches_the_next_planner_call(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path)
    assert result.metrics["context_refinements"] == result.metrics["model_calls"]["refinement"]["calls"] == 1
    steps = trace(tmp_path, TASK)
    assert steps[1]["agent_log"]["refinement"] == "advance"
    assert "1 facts established so far" in prompts(agent, "planner")[1]
    assert "(nothing yet)" in prompts(agent, "planner")[0]


def test_context_refinement_falls_back_to_the_interval(tmp_path: Path) -> None:
    _, result = lstc(tmp_path, task=MULTI_STEP, ablate="no-routing,no-multi-action", refine_interval=2)
    assert result.metrics["actions"] == 5 and result.metrics["context_refinements"] == 2
    kinds = [line["agent_log"].get("refinement") for line in trace(tmp_path, MULTI_STEP) if line.get("agent_log")]
    assert kinds.count("interval") == 2 and "advance" not in kinds
