"""The oracle agent: replays a task's reference actions, then says done."""

from __future__ import annotations

from typing import Any

from asil.agents.base import Decision
from asil.protocol import Action, ActionResult, ActionSchema, Observation
from asil.tasks.model import Task


class OracleAgent:
    name = "oracle"

    def __init__(self, **options: Any):
        self._queue: list[Action] = []

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self._queue = task.reference_steps()

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        action = self._queue.pop(0) if self._queue else Action(action_type="done")
        return Decision(action=action, thought="replaying the reference solution")
