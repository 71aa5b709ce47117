"""The evaluator: success paths of typed checkpoints over the final state.

Score = max over paths of the weighted share of passed checkpoints; success = some
path whose required checkpoints all pass.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, CheckpointUnreadable, EvalContext
from asil.evaluate.compare import judge_value
from asil.plugins import plugin
from asil.protocol import AsilError
from asil.workspace import Workspace


class CheckpointVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: str
    target: str | None
    passed: bool
    required: bool
    weight: float
    expected: Any = None
    actual: Any = None
    detail: str | None = None


class PathVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float
    success: bool
    checkpoints: list[CheckpointVerdict]


class Evaluation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float
    success: bool
    best_path: int
    paths: list[PathVerdict] = Field(default_factory=list)

    @property
    def checkpoints(self) -> list[CheckpointVerdict]:
        return self.paths[self.best_path].checkpoints if self.paths else []


def judge(ctx: EvalContext, cp: Checkpoint) -> CheckpointVerdict:
    """Read and compare one checkpoint; anything unreadable fails (fail closed)."""
    kind = _checkpoint_kind(cp)
    verdict = {"type": cp.type, "target": cp.target, "required": cp.required, "weight": cp.weight,
               "expected": cp.expected}
    if kind is None:
        return CheckpointVerdict(**verdict, passed=False, detail=f"unknown checkpoint type {cp.type!r}")
    try:
        actual = kind.read(ctx, cp)
    except (CheckpointUnreadable, AsilError) as exc:
        return CheckpointVerdict(**verdict, passed=False, detail=exc.message)
    except Exception as exc:  # a reader's bug or an unreadable state fails this checkpoint, not the episode
        return CheckpointVerdict(**verdict, passed=False,
                                 detail=f"Reading the checkpoint failed: {type(exc).__name__}: {exc}.")
    passed, why = judge_value(cp.compare or kind.default_compare, actual, cp.expected, cp.tolerance)
    return CheckpointVerdict(**verdict, passed=passed, actual=actual, detail=why)


def _checkpoint_kind(cp: Checkpoint) -> Any:
    if cp.app:
        plugin(cp.app).load_checkpoints()  # the named app's types, without importing every other app's
    return CHECKPOINT_TYPES.get(cp.type)


def score_path(verdicts: list[CheckpointVerdict]) -> PathVerdict:
    total = sum(v.weight for v in verdicts)
    score = sum(v.weight for v in verdicts if v.passed) / total if total else 0.0
    success = bool(verdicts) and all(v.passed for v in verdicts if v.required)
    return PathVerdict(score=round(score, 6), success=success, checkpoints=verdicts)


def evaluate_paths(paths: list[list[Checkpoint]], workspace: Workspace, outcome: str | None = None,
                   answer: str | None = None) -> Evaluation:
    """Judge every success path against the workspace's current files."""
    ctx = EvalContext(workspace=workspace, outcome=outcome, answer=answer)
    try:
        scored = [score_path([judge(ctx, cp) for cp in path]) for path in paths]
    finally:
        ctx.close()
    if not scored:
        return Evaluation(score=0.0, success=False, best_path=0)
    best = max(range(len(scored)), key=lambda i: (scored[i].success, scored[i].score))
    return Evaluation(score=max(p.score for p in scored), success=any(p.success for p in scored),
                      best_path=best, paths=scored)
