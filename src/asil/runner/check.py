"""Proof that a task is sound: its reference solution succeeds and its untouched state fails.

With ``raw=True`` the check also requires each app's independent raw validator to give the evaluator's
verdict on every checkpoint of both end states (what ``tests/test_tasks.py`` requires of the built-in tasks,
and what task generation requires of every task it keeps).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from asil.env import Env
from asil.evaluate.evaluator import CheckpointVerdict, Evaluation, evaluate_paths
from asil.evaluate.raw import raw_verdict
from asil.tasks.model import Task
from asil.tasks.reference import describe_failed_step
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace


@dataclass
class TaskCheck:
    task_id: str
    reference_success: bool
    reference_score: float
    initial_success: bool
    initial_score: float
    detail: str = ""
    raw_disagreements: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.reference_success and not self.initial_success and not self.raw_disagreements


def check_task(task: Task, raw: bool = False) -> TaskCheck:
    disagreements: list[str] = []
    initial = prepare_workspace(task)
    try:
        untouched = evaluate_paths(task.evaluator.paths, initial)
        if raw:
            disagreements += raw_disagreements(task, untouched, initial, None, None, "untouched")
    finally:
        initial.cleanup()
    detail, reference = _run_reference(task, disagreements if raw else None)
    failed = [failed_checkpoint(v) for v in reference.checkpoints if not v.passed] if reference else []
    if failed and not detail:
        detail = "reference fails " + "; ".join(failed)
    if untouched.success:
        detail = (detail + "; " if detail else "") + "the untouched initial state already succeeds"
    if disagreements:
        detail = (detail + "; " if detail else "") + "raw validator disagrees: " + "; ".join(disagreements)
    return TaskCheck(task.id, bool(reference and reference.success), reference.score if reference else 0.0,
                     untouched.success, untouched.score, detail, disagreements)


def raw_disagreements(task: Task, evaluation: Evaluation, workspace: Workspace, outcome: str | None,
                      answer: str | None, state: str) -> list[str]:
    """The checkpoints on which the app's raw validator and the evaluator differ, in one end state."""
    found = []
    for path, verdicts in zip(task.evaluator.paths, evaluation.paths, strict=False):
        for checkpoint, verdict in zip(path, verdicts.checkpoints, strict=False):
            if raw_verdict(checkpoint, workspace, outcome, answer, task.apps[0]) != verdict.passed:
                found.append(f"{state} {checkpoint.type} {checkpoint.target}: evaluator {verdict.passed}")
    return found


def failed_checkpoint(verdict: CheckpointVerdict) -> str:
    """How a failed checkpoint reads in the check's detail: its type, its target when it has one, what was found."""
    target = "" if verdict.target is None else f" {verdict.target}"
    return f"{verdict.type}{target}: got {verdict.actual!r}{' (' + verdict.detail + ')' if verdict.detail else ''}"


def reference_env(task: Task) -> Env:
    """An Env for playing the task's reference solution: its budget leaves room for every reference action."""
    return Env(task, budget=max(task.budget, len(task.reference) + 1))


def _run_reference(task: Task, disagreements: list[str] | None = None) -> tuple[str, Evaluation | None]:
    env = reference_env(task)
    try:
        env.reset()
        for index, step in enumerate(task.reference_steps(), start=1):
            outcome = env.play(step)
            if not outcome.result.ok:  # a failed step stops the reference: later steps assume its effect
                return describe_failed_step(index, step, outcome.result), None
        evaluation = env.evaluate()
        if disagreements is not None and env.workspace is not None:
            disagreements += raw_disagreements(task, evaluation, env.workspace, env.outcome, env.answer, "reference")
        return "", evaluation
    finally:
        env.close()
