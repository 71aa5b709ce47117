"""The Agent protocol and the agent registry (lazy, like adapters)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from asil.protocol import Action, ActionResult, ActionSchema, AsilError, Observation
from asil.registry import Registry
from asil.tasks.model import Task


@dataclass
class Decision:
    """What an agent returns for one step. ``action`` is None when its output was unusable."""

    action: Action | None
    thought: str = ""
    tokens: dict[str, int] = field(default_factory=dict)
    error: AsilError | None = None
    channel: str = "api"  # execution channel: api (ASIL actions), bash, uno, or gui (computer-use input)
    stop: str | None = None  # the agent ends the episode without an action (e.g. "stall_cutoff")
    log: dict[str, Any] | None = None  # the agent's own record of this step, written to the trace as agent_log


class Agent(Protocol):
    name: str

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None: ...

    def act(self, observation: Observation, last: ActionResult | None) -> Decision: ...


def agent_metrics(agent: Agent, termination: str) -> dict[str, Any]:
    """Episode metrics of agents that keep them (``metrics(termination)``), else nothing."""
    method = getattr(agent, "metrics", None)
    return dict(method(termination)) if callable(method) else {}


class UnknownAgent(AsilError):
    code = "unknown_agent"


AGENTS: Registry[Callable[..., Agent]] = Registry("agent", group="asil.agents", error=UnknownAgent)
AGENTS.declare("oracle", "asil.agents.oracle:OracleAgent")
AGENTS.declare("react", "asil.agents.react:ReActAgent")
AGENTS.declare("lstc", "asil.agents.lstc.agent:LSTCAgent")
AGENTS.declare("uno", "asil.agents.uno:UnoAgent")  # the LibreOffice UNO native baseline
AGENTS.declare("drawio-mcp", "asil.agents.drawio_mcp:DrawioMcpAgent")  # the draw.io MCP native baseline
AGENTS.declare("gui", "asil.agents.gui:GuiAgent")  # screenshots and computer-use input (asil.gui)


def make_agent(name: str, **options: Any) -> Agent:
    """A new agent of the registered kind ``name``, built with ``options``."""
    return AGENTS.require(name)(**options)
