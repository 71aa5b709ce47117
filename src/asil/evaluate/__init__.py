"""The evaluator and its checkpoint and comparator registries."""

from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, EvalContext, checkpoint_type
from asil.evaluate.compare import COMPARATORS, comparator
from asil.evaluate.evaluator import CheckpointVerdict, Evaluation, PathVerdict, evaluate_paths

__all__ = [
    "CHECKPOINT_TYPES",
    "COMPARATORS",
    "Checkpoint",
    "CheckpointVerdict",
    "EvalContext",
    "Evaluation",
    "PathVerdict",
    "checkpoint_type",
    "comparator",
    "evaluate_paths",
]
