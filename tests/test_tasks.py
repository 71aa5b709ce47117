"""Every built-in task is sound, and the raw validator agrees with the evaluator on it."""

from __future__ import annotations

import pytest

from asil.evaluate.evaluator import evaluate_paths
from asil.evaluate.raw import raw_verdict
from asil.runner.check import reference_env
from asil.tasks import load_tasks, prepare_workspace
from asil.tasks.model import Task

TASKS = load_tasks()
CALC_TASKS = [t for t in TASKS if "calc" in t.apps]
RAW_CHECKED = TASKS  # every task of every app: each app registers its raw validator


def test_the_calc_suite_has_twenty_tasks_with_an_infeasible_one() -> None:
    assert len(CALC_TASKS) >= 20
    assert any(not t.feasible for t in CALC_TASKS)
    assert len({t.id for t in TASKS}) == len(TASKS)


def _agree(task: Task, workspace: object, outcome: str | None, answer: str | None) -> None:
    evaluation = evaluate_paths(task.evaluator.paths, workspace, outcome, answer)  # type: ignore[arg-type]
    for path, verdicts in zip(task.evaluator.paths, evaluation.paths, strict=False):
        for checkpoint, verdict in zip(path, verdicts.checkpoints, strict=False):
            raw = raw_verdict(checkpoint, workspace, outcome, answer, task.apps[0])  # type: ignore[arg-type]
            assert raw == verdict.passed, (f"{task.id}: {checkpoint.type} {checkpoint.target}: evaluator "
                                           f"{verdict.passed} (actual {verdict.actual!r}) vs raw {raw}")


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_task_is_sound_and_the_raw_validator_agrees(task: Task) -> None:
    """The untouched state fails, the reference succeeds, and on both end states the independent raw
    validator gives the evaluator's verdict on every checkpoint (one episode per task: the suite is big)."""
    initial = prepare_workspace(task)
    try:
        untouched = evaluate_paths(task.evaluator.paths, initial)
        assert not untouched.success, f"{task.id}: the untouched initial state already succeeds"
        _agree(task, initial, None, None)
    finally:
        initial.cleanup()
    env = reference_env(task)
    env.reset()
    try:
        for index, action in enumerate(task.reference_steps(), start=1):
            result = env.play(action).result  # bash steps on the confined shell, like an agent's
            assert result.ok, f"{task.id}: reference action {index} was {result.status}: {result.error}"
        evaluation = env.evaluate()  # saves and closes every app, as at the end of a real episode
        failed = [f"{v.type} {v.target}: got {v.actual!r} {v.detail or ''}" for v in evaluation.checkpoints if not v.passed]
        assert evaluation.success, f"{task.id}: reference fails " + "; ".join(failed)
        assert env.workspace is not None
        _agree(task, env.workspace, env.outcome, env.answer)
    finally:
        env.close()
