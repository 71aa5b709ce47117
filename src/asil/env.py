"""Env: one task's episode over real applications — reset, step with a budget, evaluate."""

from __future__ import annotations

from dataclasses import dataclass

from asil.adapters.base import Adapter
from asil.adapters.registry import get_adapter_class
from asil.evaluate.evaluator import Evaluation, evaluate_paths
from asil.protocol import Action, ActionError, ActionResult, ActionSchema, AsilError, InvalidAction, Observation
from asil.tasks.model import Task
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace


@dataclass
class StepOutcome:
    result: ActionResult
    terminated: bool  # the agent ended the episode (done / infeasible)
    truncated: bool  # the step budget ran out
    reason: str | None = None


class Env:
    """An episode: an isolated workspace, one adapter per app, a step budget, an evaluator."""

    def __init__(self, task: Task, budget: int | None = None, workspace: Workspace | None = None):
        self.task = task
        self._budget_override = budget
        self.budget = budget or task.budget
        self._workspace_given = workspace
        self.workspace: Workspace | None = None
        self.adapters: dict[str, Adapter] = {}
        self.steps = 0
        self.outcome: str | None = None
        self.answer: str | None = None
        self.finished = False

    @property
    def primary(self) -> Adapter:
        return self.adapters[self.task.apps[0]]

    def reset(self, task: Task | None = None) -> Observation:
        """Build a fresh workspace (for ``task``, or the current one) and open its applications."""
        self.close()
        if task is not None:
            self.task = task
            self.budget = self._budget_override or task.budget
        self.workspace = prepare_workspace(self.task, self._workspace_given)
        for app in self.task.apps:
            self.adapters[app] = get_adapter_class(app)(self.workspace, self.task.document_for(app))
        self.steps, self.outcome, self.answer, self.finished = 0, None, None, False
        return self.observe()

    def observe(self, app: str | None = None) -> Observation:
        return self.adapters[app or self.task.apps[0]].observe()

    def schemas(self) -> dict[str, ActionSchema]:
        return {app: adapter.schema() for app, adapter in self.adapters.items()}

    def step(self, action: Action, app: str | None = None) -> StepOutcome:
        """Apply one action (control actions end the episode); every step counts toward the budget."""
        if self.finished:
            raise RuntimeError("step() after the episode ended; call reset() first")
        self.steps += 1
        if action.is_control:
            self.outcome = action.action_type
            answer = action.params.get("answer") or action.params.get("reason")
            self.answer = str(answer) if answer is not None else None
            result = ActionResult(ok=True, status="ok", observation=self.observe())
            return self._outcome(result, terminated=True, reason=action.action_type)
        result = self.adapters[app or self.task.apps[0]].execute(action)
        return self._outcome(result, terminated=False)

    def reject(self, error: AsilError) -> StepOutcome:
        """Record a step whose model output could not be turned into an action."""
        self.steps += 1
        result = ActionResult(ok=False, status="invalid", error=error.to_error(), observation=self.observe())
        return self._outcome(result, terminated=False)

    def _outcome(self, result: ActionResult, terminated: bool, reason: str | None = None) -> StepOutcome:
        truncated = not terminated and self.steps >= self.budget
        if truncated:
            reason = "budget"
        self.finished = terminated or truncated
        return StepOutcome(result=result, terminated=terminated, truncated=truncated, reason=reason)

    def evaluate(self) -> Evaluation:
        """Save every document, release the applications, and judge the final files."""
        if self.workspace is None:
            raise RuntimeError("evaluate() before reset()")
        for adapter in self.adapters.values():
            adapter.save()
            adapter.close()
        self.adapters.clear()
        return evaluate_paths(self.task.evaluator.paths, self.workspace, self.outcome, self.answer)

    def close(self, remove_workspace: bool = True) -> None:
        for adapter in self.adapters.values():
            adapter.close()
        self.adapters.clear()
        if self.workspace is not None and remove_workspace and self._workspace_given is None:
            self.workspace.cleanup()
        self.workspace = None


def invalid_output(message: str, hint: str | None = None) -> InvalidAction:
    return InvalidAction(message, hint=hint, code="unparseable_output")


__all__ = ["ActionError", "Env", "StepOutcome", "invalid_output"]
