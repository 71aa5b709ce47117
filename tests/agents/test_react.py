"""The ReAct baseline and the replay provider on real Calc tasks."""

from __future__ import annotations

import json
from pathlib import Path

from asil.agents.react import ReActAgent
from tests.agents.helpers import run, trace


def test_react_completes_a_task_with_the_whole_history_in_every_prompt(tmp_path: Path) -> None:
    agent = ReActAgent(model="scripted", faults=["wrong_action"])
    result = run("calc-sheet-management", agent, tmp_path)
    assert result.success
    user_prompts = [m[-1]["content"] for kind, m in agent.client.provider.calls if kind == "react"]  # type: ignore[attr-defined]
    assert len(user_prompts) == result.steps
    assert "(none yet)" in user_prompts[0]
    assert "NoSuchSheet" in user_prompts[-1] and "-> invalid" in user_prompts[-1]  # the failure stays in history
    assert all(len(a) < len(b) for a, b in zip(user_prompts, user_prompts[1:], strict=False))
    assert result.metrics["model_calls"]["react"]["calls"] == result.steps


def test_replay_plays_recorded_replies(tmp_path: Path) -> None:
    replies = tmp_path / "replies.jsonl"
    action = {"action_type": "invoke_function", "target": "set_range", "params": {
        "range": "Orders!D1", "values": [["Total"], ["=B2*C2"], ["=B3*C3"], ["=B4*C4"], ["=B5*C5"], ["=SUM(D2:D5)"]]}}
    lines = [{"kind": "react", "text": "Sure! " + json.dumps({"thought": "fill D", "action": action})},
             {"kind": "react", "text": '{"thought": "finished", "action": {"action_type": "done"}}'}]
    replies.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = run("calc-total-column", ReActAgent(model=f"replay:{replies}"), tmp_path / "ok")
    assert result.success and [t["thought"] for t in trace(tmp_path / "ok", "calc-total-column")] == [
        "fill D", "finished"]
    replies.write_text(json.dumps(lines[0]) + "\n")
    short = run("calc-total-column", ReActAgent(model=f"replay:{replies}"), tmp_path / "short")
    assert short.termination == "llm_error" and "no reply left" in (short.error or "")
