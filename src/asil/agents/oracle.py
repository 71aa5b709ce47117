"""The oracle agent: replays a task's reference actions, then says done."""

from __future__ import annotations

from typing import Any

from asil.agents.base import Decision
from asil.protocol import Action, ActionResult, ActionSchema, AsilError, Observation
from asil.tasks.model import Task
from asil.tasks.reference import describe_failed_step, reference_channel


class ReferenceFailed(AsilError):
    """A bash step of the reference failed, so the replay stops (the episode ends as ``agent_error``)."""

    code = "reference_failed"


class OracleAgent:
    name = "oracle"

    def __init__(self, **options: Any):
        self._queue: list[Action] = []
        self._played: tuple[int, Action] | None = None  # the step played last, numbered from 1

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self._queue = task.reference_steps()
        self._played = None

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        self._stop_after_failed_shell(last)
        action = self._queue.pop(0) if self._queue else Action(action_type="done")
        self._played = (self._played[0] + 1 if self._played else 1, action)
        return Decision(action=action, channel=reference_channel(action), thought="replaying the reference solution")

    def _stop_after_failed_shell(self, last: ActionResult | None) -> None:
        # A refused ASIL action leaves the state unchanged (the contract), so the replay goes on as before;
        # a shell command that failed may have done half its work, and the later steps assume all of it.
        if self._played is None or last is None or last.ok:
            return
        index, step = self._played
        if reference_channel(step) == "bash":
            sentence = describe_failed_step(index, step, last)
            raise ReferenceFailed(sentence[0].upper() + sentence[1:])
