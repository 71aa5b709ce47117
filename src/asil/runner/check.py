"""Proof that a task is sound: its reference solution succeeds and its untouched state fails."""

from __future__ import annotations

from dataclasses import dataclass

from asil.env import Env
from asil.evaluate.evaluator import CheckpointVerdict, Evaluation, evaluate_paths
from asil.tasks.model import Task
from asil.tasks.setup import prepare_workspace


@dataclass
class TaskCheck:
    task_id: str
    reference_success: bool
    reference_score: float
    initial_success: bool
    initial_score: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.reference_success and not self.initial_success


def check_task(task: Task) -> TaskCheck:
    initial = prepare_workspace(task)
    try:
        untouched = evaluate_paths(task.evaluator.paths, initial)
    finally:
        initial.cleanup()
    detail, reference = _run_reference(task)
    failed = [failed_checkpoint(v) for v in reference.checkpoints if not v.passed] if reference else []
    if failed and not detail:
        detail = "reference fails " + "; ".join(failed)
    if untouched.success:
        detail = (detail + "; " if detail else "") + "the untouched initial state already succeeds"
    return TaskCheck(task.id, bool(reference and reference.success), reference.score if reference else 0.0,
                     untouched.success, untouched.score, detail)


def failed_checkpoint(verdict: CheckpointVerdict) -> str:
    """How a failed checkpoint reads in the check's detail: its type, its target when it has one, what was found."""
    target = "" if verdict.target is None else f" {verdict.target}"
    return f"{verdict.type}{target}: got {verdict.actual!r}{' (' + verdict.detail + ')' if verdict.detail else ''}"


def reference_env(task: Task) -> Env:
    """An Env for playing the task's reference solution: its budget leaves room for every reference action."""
    return Env(task, budget=max(task.budget, len(task.reference) + 1))


def _run_reference(task: Task) -> tuple[str, Evaluation | None]:
    env = reference_env(task)
    try:
        env.reset()
        for index, action in enumerate(task.reference_steps(), start=1):
            outcome = env.step(action)
            if not outcome.result.ok:
                error = outcome.result.error
                return f"reference action {index} was {outcome.result.status}: {error.message if error else ''}", None
        return "", env.evaluate()
    finally:
        env.close()
