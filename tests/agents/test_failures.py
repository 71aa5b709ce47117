"""Failures a model can learn from, and honest accounting (issue 20, items 6 and 7).

Every fault comes from the shipped ``scripted`` provider (``asil.llm.scripted``): unparseable, cut-off,
timed-out and slow calls, with no mock of ASIL's own code.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from asil.agents.llm_agent import quote_reply
from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import LSTCConfig
from asil.agents.react import ReActAgent
from asil.llm.scripted import MALFORMED, TIMEOUT_WAIT_S
from asil.runner.bench import AgentSpec, run_bench
from asil.runner.episode import run_episode
from asil.runner.progress import LiveStatus, Progress
from asil.runner.trace import EpisodeResult
from asil.tasks import get_task
from tests.agents.helpers import prompts, run, trace
from tests.chat_server import ChatServer

TASK = "calc-total-column"


def calls(out: Path, task_id: str = TASK) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / task_id / "calls.jsonl").read_text().splitlines()]


def provider_calls(agent: Any) -> list[str]:
    return [kind for kind, _ in agent.client.provider.calls]


def assert_one_token_total(result: EpisodeResult, out: Path) -> None:
    made = calls(out, result.task_id)
    prompt = sum(c["prompt_tokens"] for c in made)
    completion = sum(c["completion_tokens"] for c in made)
    assert result.tokens == {"prompt": prompt, "completion": completion, "total": prompt + completion,
                             "calls": len(made)}
    assert result.metrics["tokens"] == result.tokens
    by_kind = result.metrics["model_calls"]  # the agent's own per-kind accounting agrees with the call log
    assert sum(k["prompt_tokens"] for k in by_kind.values()) == prompt
    assert sum(k["completion_tokens"] for k in by_kind.values()) == completion
    assert sum(k["calls"] for k in by_kind.values()) == len(made)


# ----------------------------------------------------------------------------- parse errors reach the model
def test_react_feeds_a_parse_error_back_with_the_reply_quoted(tmp_path: Path) -> None:
    agent = ReActAgent(model="scripted", faults=["malformed_twice"])
    result = run(TASK, agent, tmp_path)
    assert result.success
    second = prompts(agent, "react")[1]  # type: ignore[arg-type]
    assert "PARSE ERROR" in second and quote_reply(MALFORMED) in second  # the raw reply, quoted
    first = trace(tmp_path, TASK)[0]
    assert first["status"] == "invalid" and first["thought"].startswith("unusable reply: ")
    assert "actions" in first["thought"]  # the raw reply is visible in the trace, not an empty thought
    assert result.metrics["parse_errors"] == 1


def test_react_parse_failures_count_toward_the_stall_cutoff(tmp_path: Path) -> None:
    result = run(TASK, ReActAgent(model="scripted", faults=["malformed_twice"] * 10), tmp_path)
    assert result.termination == "stall_cutoff" and result.steps == 3  # not the whole 15-step budget


def test_lstc_feeds_a_planner_parse_error_back_and_counts_it_as_a_stall(tmp_path: Path) -> None:
    agent = LSTCAgent(model="scripted", faults=["malformed_twice"])
    result = run(TASK, agent, tmp_path / "once")
    assert result.success
    second = prompts(agent, "planner")[1]
    assert "PARSE ERROR" in second and "action_type" in second
    assert trace(tmp_path / "once", TASK)[0]["thought"].startswith("unusable reply: ")

    agent = LSTCAgent(model="scripted", faults=["malformed_twice"] * 10)
    result = run(TASK, agent, tmp_path / "always")
    assert result.termination == "stall_cutoff" and result.steps == 3
    assert result.metrics["parse_errors"]["planner"] == 3


@pytest.mark.parametrize(("fault", "kind"), [("malformed_abstraction", "abstraction"),
                                             ("malformed_refinement", "refinement"),
                                             ("malformed_verification", "verification")])
def test_no_lstc_call_kind_ends_an_episode_as_agent_error(tmp_path: Path, fault: str, kind: str) -> None:
    agent = LSTCAgent(model="scripted", faults=[fault] * 10)
    result = run(TASK, agent, tmp_path)
    assert result.termination not in ("agent_error", "llm_error"), result.error
    assert result.metrics["parse_errors"][kind] >= 1
    if kind == "verification":  # an unreadable verdict accepts nothing
        assert result.termination == "verification_failed"
        assert "could not be read" in result.metrics["final_verification"][0]["reason"]
    else:  # deterministic evidence stands in for the abstraction; the refined history stays as it was
        assert result.success
    assert kind in [c["kind"] for c in calls(tmp_path)] and "repair" in [c["kind"] for c in calls(tmp_path)]


# ----------------------------------------------------------------------------- finish_reason
def test_a_truncated_reply_is_reported_as_such_and_not_repaired(tmp_path: Path) -> None:
    agent = ReActAgent(model="scripted", faults=["truncated"])
    result = run(TASK, agent, tmp_path)
    assert result.success
    assert "repair" not in provider_calls(agent)  # no repair round resent the cut-off text
    first = trace(tmp_path, TASK)[0]
    assert first["error"]["code"] == "truncated_output" and "cut off at the completion cap" in first["error"]["message"]
    assert calls(tmp_path)[0]["finish_reason"] == "length"


# ----------------------------------------------------------------------------- accounting
@pytest.mark.parametrize("agent_name", ["react", "lstc"])
def test_a_failed_call_is_counted_and_its_wait_is_not_controller_time(tmp_path: Path, agent_name: str) -> None:
    agent = (ReActAgent if agent_name == "react" else LSTCAgent)(model="scripted", faults=["timeout"])
    result = run(TASK, agent, tmp_path)
    assert result.termination == "llm_error" and "timed out" in (result.error or "")
    failed = calls(tmp_path)[-1]
    assert failed["error"] and failed["text"] == "" and failed["prompt_tokens"] > 0
    assert failed["seconds"] >= TIMEOUT_WAIT_S
    kind = "react" if agent_name == "react" else "planner"
    assert result.metrics["model_calls"][kind]["failed"] == 1
    assert result.metrics["model_calls"][kind]["seconds"] >= TIMEOUT_WAIT_S
    assert_one_token_total(result, tmp_path)
    if agent_name == "lstc":
        assert result.metrics["controller_ms_per_step"] < TIMEOUT_WAIT_S * 1000 / 2
        assert result.metrics["verification_class"] is None  # it never verified


def test_verification_class_only_for_episodes_that_verified_or_were_cut_off(tmp_path: Path) -> None:
    done = run(TASK, LSTCAgent(model="scripted"), tmp_path / "done")
    assert done.metrics["verification_class"] == "Pass"
    unverified = run(TASK, LSTCAgent(model="scripted", config=LSTCConfig(final_verification=False)), tmp_path / "ablated")
    assert unverified.termination == "done" and unverified.metrics["verification_class"] is None


@pytest.mark.parametrize("agent_name", ["react", "lstc"])
def test_one_token_total_per_episode_and_every_raw_reply_kept(tmp_path: Path, agent_name: str) -> None:
    faults = ["wrong_action", "malformed_twice"]
    agent = (ReActAgent if agent_name == "react" else LSTCAgent)(model="scripted", faults=faults)
    result = run(TASK, agent, tmp_path, budget=4)
    assert_one_token_total(result, tmp_path)
    made = calls(tmp_path)
    assert [c["kind"] for c in made] == provider_calls(agent)
    assert MALFORMED in [c["text"] for c in made]  # the raw reply, exactly as sent
    assert all(c["text"] for c in made)


# ----------------------------------------------------------------------------- timeouts
def test_an_episode_timeout_keeps_the_trajectory_and_is_still_evaluated(tmp_path: Path) -> None:
    agent = ReActAgent(model="scripted", faults=["slow"] * 5)
    result = run_episode(get_task(TASK), agent, tmp_path, timeout_s=0.5)
    assert result.termination == "timeout" and result.steps == 1
    assert len(trace(tmp_path, TASK)) == 1 and result.checkpoints  # evaluated, not thrown away
    assert_one_token_total(result, tmp_path)


@pytest.mark.slow
def test_a_killed_episode_keeps_its_partial_trajectory_and_every_calls_tokens(tmp_path: Path) -> None:
    task = "calc-sheet-management"  # five reference actions: six slow steps, killed part-way
    spec = AgentSpec("react", {"model": "scripted", "faults": ["slow"] * 10})
    run_bench([get_task(task)], spec, tmp_path, workers=1, episode_timeout_s=3.5)
    result = EpisodeResult.model_validate_json((tmp_path / task / "result.json").read_text())
    assert result.termination == "timeout" and 1 <= result.steps < 6
    made = calls(tmp_path, task)
    assert len(made) >= result.steps == len(trace(tmp_path, task))
    prompt = sum(c["prompt_tokens"] for c in made)
    assert result.tokens["prompt"] == prompt > 0 and result.metrics["tokens"] == result.tokens


# ----------------------------------------------------------------------------- progress while a slow model works
def test_the_live_status_shows_the_step_and_tokens_per_second_of_slow_calls(tmp_path: Path) -> None:
    stream = io.StringIO()
    agent = ReActAgent(model="scripted", faults=["slow"] * 5)
    result = run_episode(get_task(TASK), agent, tmp_path, status=LiveStatus(stream, after_s=0.5, every_s=0.3))
    assert result.success
    lines = stream.getvalue().splitlines()
    assert any(re.search(rf"{TASK} step 1: react \d+ tok in \d+\.\d s \(\d+\.\d tok/s\) \| episode \d+ tok, "
                         r"\d+\.\d tok/s", line) for line in lines), lines
    assert any(f"{TASK} step 2: react" in line for line in lines)
    assert any(re.search(rf"{TASK} step \d: waiting for the model for \d+ s", line) for line in lines), lines


def test_a_fast_episode_prints_no_live_status(tmp_path: Path) -> None:
    stream = io.StringIO()
    run_episode(get_task(TASK), ReActAgent(model="scripted"), tmp_path, status=LiveStatus(stream))
    assert stream.getvalue() == ""


def test_the_progress_line_shows_tokens_per_second(tmp_path: Path) -> None:
    result = run(TASK, ReActAgent(model="scripted"), tmp_path)
    line = Progress(1, stream=io.StringIO()).line(result)
    total = result.tokens["total"]
    assert f"| {total} tok {total / result.time_s:.1f} tok/s" in line


def test_over_http_a_cut_off_reply_is_fed_back_not_resent_and_server_usage_is_the_total(tmp_path: Path) -> None:
    # Hand-written replies (not recorded): a reply cut off at the cap, then a usable one.
    server = ChatServer()
    try:
        server.behaviours += [
            {"text": '{"thought": "First I will look at every column and', "finish_reason": "length",
             "usage": {"prompt_tokens": 900, "completion_tokens": 64}},
            {"text": 'Done.\n```json\n{"thought": "stop", "action": {"action_type": "done",},}\n```',
             "usage": {"prompt_tokens": 950, "completion_tokens": 20}}]
        agent = ReActAgent(model="small", base_url=server.url, backoff_s=0.01, stream=False)
        result = run(TASK, agent, tmp_path)
    finally:
        server.close()
    assert len(server.requests) == 2  # no repair request carried the cut-off text
    second = server.requests[1]["body"]["messages"][-1]["content"]
    assert "PARSE ERROR" in second and "cut off at the completion cap" in second
    assert result.termination == "done"
    assert result.tokens == {"prompt": 1850, "completion": 84, "total": 1934, "calls": 2}
    assert [c["finish_reason"] for c in calls(tmp_path)] == ["length", "stop"]
