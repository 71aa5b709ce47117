"""The control-failure labels of LocalLSTC (Tables 6-8) and the rule a label set must follow."""

from __future__ import annotations

from collections.abc import Iterable

from asil.protocol import AsilError

CONTROL_LABELS = ("Stage", "Assess", "Loop", "Recover", "Stop")
LABELS = CONTROL_LABELS + ("Other", "None")
EXCLUSIVE = ("Other", "None")  # each stands alone; "Any" in Table 8 counts episodes with a control label


class LabelError(AsilError):
    code = "bad_labels"


def label_set(raw: Iterable[str]) -> tuple[str, ...]:
    """The canonical, ordered label set of ``raw``; raises LabelError if it breaks the rubric's rules.

    A set is one or more control labels, or ``Other`` alone, or ``None`` alone.
    """
    canonical = {name.lower(): name for name in LABELS}
    found: list[str] = []
    for item in raw:
        name = canonical.get(str(item).strip().lower())
        if name is None:
            raise LabelError(f"{item!r} is not a label.", hint=f"Labels: {', '.join(LABELS)}.")
        if name not in found:
            found.append(name)
    if not found:
        raise LabelError("The label set is empty.", hint='Use "None" when there is no failure.')
    for alone in EXCLUSIVE:
        if alone in found and len(found) > 1:
            raise LabelError(f'"{alone}" cannot be combined with other labels ({", ".join(found)}).',
                             hint="Give control labels, or Other alone, or None alone.")
    return tuple(name for name in LABELS if name in found)


def has_control_failure(labels: Iterable[str]) -> bool:
    return any(name in CONTROL_LABELS for name in labels)
