"""Each LocalLSTC ablation switch changes the behaviour it names (paper Tables 10 and 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import ABLATIONS, UnknownAblation, configure
from tests.agents.helpers import prompts, run, system_prompt

MULTI_STEP = "calc-sheet-management"  # five reference actions


def lstc(tmp_path: Path, ablate: str | None, faults: list[str] | None = None, task: str = "calc-total-column"):
    agent = LSTCAgent(model="scripted", ablate=ablate, faults=faults or [])
    return agent, run(task, agent, tmp_path / (ablate or "full"))


def test_every_ablation_of_the_paper_is_a_switch() -> None:
    assert set(ABLATIONS) == {"no-l2s", "no-s2l", "no-persistent-subgoal", "no-candidates", "no-multi-action",
                              "no-step-abstraction", "no-routing", "no-stall-loop"}
    assert configure("no-candidates,no-multi-action").model_dump(include={"candidates", "multi_action"}) == {
        "candidates": False, "multi_action": False}
    with pytest.raises(UnknownAblation, match="no-magic"):
        configure("no-magic")


def test_no_persistent_subgoal(tmp_path: Path) -> None:
    full, _ = lstc(tmp_path, None, ["wrong_action"])
    assert "Current subgoal" in prompts(full, "planner")[1]
    agent, result = lstc(tmp_path, "no-persistent-subgoal", ["wrong_action"])
    assert result.success
    assert not any("Current subgoal" in p for p in prompts(agent, "planner"))
    # every committing call opens a subgoal; the finish call does not
    assert result.metrics["subgoals"] == result.metrics["planner_steps"] - 1
    assert '"continue"' not in system_prompt(agent)


def test_no_candidates(tmp_path: Path) -> None:
    full, _ = lstc(tmp_path, None)
    assert '"candidates"' in system_prompt(full)
    agent, result = lstc(tmp_path, "no-candidates")
    assert result.success and '"candidates"' not in system_prompt(agent)


def test_no_multi_action(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None, task=MULTI_STEP)
    assert full.metrics["actions_per_step"] > 1
    agent, result = lstc(tmp_path, "no-multi-action", task=MULTI_STEP)
    assert result.success and result.metrics["actions_per_step"] == 1.0
    assert result.metrics["planner_steps"] == result.metrics["actions"] + 1  # one action a call, then finish
    assert 'Give exactly one step in "action".' in system_prompt(agent)
    assert "ordered list of at most" not in system_prompt(agent)


def test_no_step_abstraction(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None)
    assert full.metrics["model_calls"]["abstraction"]["calls"] == full.metrics["actions"]
    agent, result = lstc(tmp_path, "no-step-abstraction")
    assert result.success and "abstraction" not in result.metrics["model_calls"]
    assert agent.state.all_evidence()[0].startswith('api {"action_type": "invoke_function"')


def test_no_routing(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-routing", ["premature_done"])
    assert result.termination == "done" and result.steps == 1 and not result.success  # finish accepted unverified
    assert "verification" not in result.metrics["model_calls"]
    agent, result = lstc(tmp_path / "err", "no-routing", ["wrong_action"])
    assert result.metrics["routes"]["error"] == 1 and result.metrics["events"]["recovery_entries"] == 0
    assert not any("RECOVERY" in p for p in prompts(agent, "planner"))


def test_no_stall_loop(tmp_path: Path) -> None:
    _, full = lstc(tmp_path, None, ["repeat"] * 5)
    assert full.termination == "stall_cutoff"
    _, result = lstc(tmp_path, "no-stall-loop", ["repeat"] * 5)
    assert result.success and result.termination == "done"
    assert result.metrics["events"]["stall_repetition"] == 0


def test_no_l2s(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-l2s", ["wrong_action"], task=MULTI_STEP)
    assert result.success and result.metrics["actions_per_step"] == 1.0
    assert '"candidates"' not in system_prompt(agent)
    assert not any("Current subgoal" in p for p in prompts(agent, "planner"))
    assert all("Evidence for the task" in p for p in prompts(agent, "planner"))
    assert result.metrics["model_calls"]["verification"]["calls"] == 1  # Final Verification is retained
    assert any("RECOVERY" in p for p in prompts(agent, "planner"))  # task-level recovery is retained


def test_no_s2l(tmp_path: Path) -> None:
    agent, result = lstc(tmp_path, "no-s2l", ["wrong_action"])
    assert result.success
    assert "verification" not in result.metrics["model_calls"]
    assert not any("RECOVERY" in p for p in prompts(agent, "planner"))
    assert all("Evidence for the task" in p for p in prompts(agent, "planner"))
    assert '"candidates"' in system_prompt(agent)  # L2S is intact
