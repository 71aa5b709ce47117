"""Per-label agreement between two labellings: prevalence, agreement, precision, recall, F1, Cohen's kappa.

Each label is scored as its own yes/no question over the episodes both labellings cover, as in the
paper's Tables 6 and 7. Statistics come from scikit-learn (the ``annotate`` extra).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from asil.annotate.labels import LABELS
from asil.extras import require


@dataclass
class LabelAgreement:
    label: str
    items: int
    prevalence_a: float  # share of items the reference (a) gives the label
    prevalence_b: float
    agreement: float
    precision: float | None  # b against a as the reference; None where undefined
    recall: float | None
    f1: float | None
    kappa: float | None  # None when chance agreement is 1 (both labellings constant and equal)


def _defined(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def label_agreement(a: dict[str, tuple[str, ...]], b: dict[str, tuple[str, ...]],
                    labels: tuple[str, ...] = LABELS) -> list[LabelAgreement]:
    """Per-label statistics over the items both ``a`` (the reference) and ``b`` label."""
    metrics = require("sklearn.metrics", "annotate")
    items = sorted(set(a) & set(b))
    if not items:
        return []
    found = []
    for label in labels:
        ya = [int(label in a[item]) for item in items]
        yb = [int(label in b[item]) for item in items]
        pa, pb = sum(ya) / len(items), sum(yb) / len(items)
        chance = pa * pb + (1 - pa) * (1 - pb)
        kappa = None if chance == 1 else float(metrics.cohen_kappa_score(ya, yb))
        nan = float("nan")
        found.append(LabelAgreement(
            label, len(items), pa, pb, sum(x == y for x, y in zip(ya, yb, strict=True)) / len(items),
            _defined(metrics.precision_score(ya, yb, zero_division=nan)),
            _defined(metrics.recall_score(ya, yb, zero_division=nan)),
            _defined(metrics.f1_score(ya, yb, zero_division=nan)), kappa))
    return found
