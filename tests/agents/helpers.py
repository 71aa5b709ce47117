"""Running model-driven agents on built-in tasks for tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.agents.lstc.agent import LSTCAgent
from asil.runner.episode import run_episode
from asil.runner.trace import EpisodeResult
from asil.tasks import get_task


def run(task_id: str, agent: Any, out: Path, budget: int | None = None) -> EpisodeResult:
    return run_episode(get_task(task_id), agent, out, budget=budget)


def prompts(agent: LSTCAgent, kind: str) -> list[str]:
    """The user prompts the scripted provider received for one call kind, in order."""
    calls = agent.client.provider.calls  # type: ignore[attr-defined]
    return [messages[-1]["content"] for call_kind, messages in calls if call_kind == kind]


def system_prompt(agent: LSTCAgent) -> str:
    calls = agent.client.provider.calls  # type: ignore[attr-defined]
    return next(messages[0]["content"] for kind, messages in calls if kind == "planner")


def trace(out: Path, task_id: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / task_id / "traj.jsonl").read_text().splitlines()]
