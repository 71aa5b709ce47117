"""Agentic-guided re-runs: failed tasks run again with compact or detailed step hints, on real draw.io tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.agents.react import ReActAgent, reply_text
from asil.cli import main
from asil.protocol import Action
from asil.runner.episode import run_episode
from asil.tasks import load_tasks
from asil.training.guided import HintedReAct, operation_name, step_hint
from tests.chat_server import ChatServer

DRAWIO = sorted((t for t in load_tasks(suite="train") if t.apps == ["drawio"]), key=lambda t: t.id)


def test_hints_name_the_next_reference_operation_or_give_the_whole_action() -> None:
    task = DRAWIO[0]
    first = task.reference_steps()[0]
    assert step_hint(task, 0, "compact") == f"Hint: the next operation is {operation_name(first)}."
    assert operation_name(first) == f"invoke_function {first.target}"
    detailed = step_hint(task, 0, "detailed")
    assert detailed is not None and json.loads(detailed.removeprefix("Hint: the next action is ").rstrip(".")) == \
        first.model_dump(mode="json", exclude_defaults=True)
    assert step_hint(task, len(task.reference_steps()), "compact") is None  # past the reference: no hint
    with pytest.raises(ValueError, match="compact, detailed"):
        HintedReAct("verbose")


@pytest.mark.slow
def test_failed_tasks_are_rerun_with_hints_and_their_verified_steps_become_rows(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]
                                                                                ) -> None:
    solved_by_compact, solved_by_detailed = DRAWIO[0], DRAWIO[1]
    policy = ChatServer()
    try:
        policy.behaviours += [{"text": reply_text("Looks finished.", _done())}] * 2  # the first run gives up at once
        for task in (solved_by_compact, solved_by_detailed):
            agent = ReActAgent("m", base_url=policy.url, server="openai", stream=False)
            assert not run_episode(task, agent, tmp_path / "runs", full_observations=True).success
        policy.requests.clear()
        policy.behaviours += [{"text": reply_text("Next.", a)} for a in solved_by_compact.reference_steps()]
        policy.behaviours += [{"text": reply_text("Still done.", _done())}]  # compact does not help the second
        policy.behaviours += [{"text": reply_text("Next.", a)} for a in solved_by_detailed.reference_steps()]
        code = main(["export", "sft", "--out", str(tmp_path / "sft"), "--no-replay", "--runs", str(tmp_path / "runs"),
                     "--rerun-failed", "compact", "--rerun-failed", "detailed", "--model", "m",
                     "--base-url", policy.url])
        prompts = [r["body"]["messages"][-1]["content"] for r in policy.requests]
    finally:
        policy.close()
    out = capsys.readouterr().out
    assert code == 0
    assert "re-ran 2 failed task(s) with compact hints: 1 verified" in out
    assert "re-ran 1 failed task(s) with detailed hints: 1 verified" in out  # the solved one is not re-run
    assert prompts[0].endswith(step_hint(solved_by_compact, 0, "compact") or "?")
    detailed_first = len(solved_by_compact.reference_steps()) + 1  # after A's compact run and B's failed one
    assert prompts[detailed_first].endswith(step_hint(solved_by_detailed, 0, "detailed") or "?")
    assert prompts[-1].endswith(step_hint(solved_by_detailed, 1, "detailed") or "?")  # it follows the progress
    rows = [json.loads(line) for line in (tmp_path / "sft" / "agentic_guided.jsonl").read_text().splitlines()]
    assert {(r["task_id"], r["hint"]) for r in rows} == {(solved_by_compact.id, "compact"),
                                                         (solved_by_detailed.id, "detailed")}
    assert all("Hint:" not in m["content"] for r in rows for m in r["messages"])  # trained to act without one


def test_rerun_failed_needs_runs_and_a_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "sft", "--out", str(tmp_path / "o"), "--no-replay", "--rerun-failed", "compact"]) == 2
    assert "--rerun-failed needs --runs" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def _done() -> Action:
    return Action(action_type="done")
