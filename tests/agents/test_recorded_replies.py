"""Real replies of a real small model (SmolLM2-135M-Instruct on llama-cpp-python's server, recorded from
``benchmarks/real_model.py`` on 2026-12-02 into ``recorded/``), replayed through the ReAct agent: the failure
cases of the real-models issue must end the way the agent promises, never as a crash."""

from __future__ import annotations

import json
from pathlib import Path

from asil.agents.react import ReActAgent
from tests.agents.helpers import run, trace

RECORDED = Path(__file__).parent / "recorded"


def replay(task_id: str, tmp_path: Path) -> tuple[ReActAgent, object]:
    agent = ReActAgent(model=f"replay:{RECORDED / f'smollm2-react-{task_id}.jsonl'}")
    return agent, run(task_id, agent, tmp_path, budget=4)


def test_a_reply_cut_off_at_the_cap_is_fed_back_without_a_repair_round(tmp_path: Path) -> None:
    # call 1 rambled to the 384-token cap (finish_reason "length") copying the observation's JSON
    agent, result = replay("calc-fix-sum-range", tmp_path)
    assert result.termination not in ("agent_error", "llm_error"), result.error
    calls = (tmp_path / "calc-fix-sum-range" / "calls.jsonl").read_text().splitlines()
    kinds = [json.loads(line)["kind"] for line in calls]
    assert kinds[:2] == ["react", "react"]  # no repair call after either cut-off reply
    first = trace(tmp_path, "calc-fix-sum-range")[0]
    assert first["error"]["code"] == "truncated_output" and "cut off at the completion cap" in first["error"]["message"]


def test_prose_instead_of_json_is_quoted_back_and_ends_at_the_stall_cutoff(tmp_path: Path) -> None:
    # calls 2-5: prose about the task, then the same prose again after the repair prompt
    agent, result = replay("calc-total-column", tmp_path)
    assert result.termination == "stall_cutoff" and result.checkpoints  # evaluated, not crashed
    steps = trace(tmp_path, "calc-total-column")
    assert all(step["status"] == "invalid" for step in steps)
    assert any("The task is to add a header" in step["thought"] for step in steps)  # the raw reply is kept
    assert any("PARSE ERROR" in entry for entry in agent.history)
    assert result.tokens["total"] == 10615  # the server's own usage, summed over every call
