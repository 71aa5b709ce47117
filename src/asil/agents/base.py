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


class Agent(Protocol):
    name: str

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None: ...

    def act(self, observation: Observation, last: ActionResult | None) -> Decision: ...


AGENTS: dict[str, str] = {
    "oracle": "asil.agents.oracle:OracleAgent",
}


class UnknownAgent(AsilError):
    code = "unknown_agent"


def make_agent(name: str, **options: Any) -> Agent:
    if name not in AGENTS:
        raise UnknownAgent(f"Unknown agent {name!r}.", hint=f"Agents: {', '.join(sorted(AGENTS))}.")
    module, _, attr = AGENTS[name].partition(":")
    agent: Agent = getattr(importlib.import_module(module), attr)(**options)
    return agent
