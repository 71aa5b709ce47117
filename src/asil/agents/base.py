"""The Agent protocol and the agent registry (lazy, like adapters)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol

from asil.protocol import Action, ActionResult, ActionSchema, AsilError, Observation
from asil.tasks.model import Task


@dataclass
class Decision:
    """What an agent returns for one step. ``action`` is None when its output was unusable."""

    action: Action | None
    thought: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    error: AsilError | None = None
    channel: str = "api"  # execution channel: api (ASIL actions) or bash
    stop: str | None = None  # the agent ends the episode without an action (e.g. "stall_cutoff")


class Agent(Protocol):
    name: str

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None: ...

    def act(self, observation: Observation, last: ActionResult | None) -> Decision: ...


def agent_metrics(agent: Agent, termination: str) -> dict[str, Any]:
    """Episode metrics of agents that keep them (``metrics(termination)``), else nothing."""
    method = getattr(agent, "metrics", None)
    return dict(method(termination)) if callable(method) else {}


AGENTS: dict[str, str] = {
    "oracle": "asil.agents.oracle:OracleAgent",
    "react": "asil.agents.react:ReActAgent",
    "lstc": "asil.agents.lstc.agent:LSTCAgent",
}


class UnknownAgent(AsilError):
    code = "unknown_agent"


def make_agent(name: str, **options: Any) -> Agent:
    if name not in AGENTS:
        raise UnknownAgent(f"Unknown agent {name!r}.", hint=f"Agents: {', '.join(sorted(AGENTS))}.")
    module, _, attr = AGENTS[name].partition(":")
    agent: Agent = getattr(importlib.import_module(module), attr)(**options)
    return agent
