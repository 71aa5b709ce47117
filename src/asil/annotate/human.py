"""Human labels from CSV: ``task_id,labels[,annotator][,run]``, labels separated by ``;``."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from asil.annotate.labels import LabelError, label_set
from asil.protocol import AsilError

# annotator -> (run folder name or "", task id) -> labels
HumanLabels = dict[str, dict[tuple[str, str], tuple[str, ...]]]


class HumanLabelError(AsilError):
    code = "bad_human_labels"


def read_human_labels(paths: list[Path]) -> HumanLabels:
    """Every annotator's labels. Without an ``annotator`` column a file's rows belong to an annotator
    named after the file; without a ``run`` column they apply to the task in whichever run holds it."""
    found: HumanLabels = defaultdict(dict)
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise HumanLabelError(f"Cannot read the labels file {str(path)!r}: {exc.strerror}.") from None
        reader = csv.DictReader(text.splitlines())
        columns = set(reader.fieldnames or [])
        if not {"task_id", "labels"} <= columns:
            raise HumanLabelError(f"{path.name} needs the columns task_id and labels (it has: "
                                  f"{', '.join(sorted(columns)) or 'none'}).",
                                  hint="Header: task_id,labels[,annotator][,run]; labels like Loop;Recover or None.")
        for line, row in enumerate(reader, start=2):
            annotator = (row.get("annotator") or "").strip() or path.stem
            key = ((row.get("run") or "").strip(), (row.get("task_id") or "").strip())
            if not key[1]:
                raise HumanLabelError(f"{path.name} line {line}: the task_id is empty.")
            raw = [part for part in (row.get("labels") or "").replace("|", ";").split(";") if part.strip()]
            try:
                labels = label_set(raw)
            except LabelError as exc:
                raise HumanLabelError(f"{path.name} line {line}: {exc.message}", hint=exc.hint) from None
            if key in found[annotator]:
                raise HumanLabelError(f"{path.name} line {line}: {annotator} labelled {key[1]!r} twice.")
            found[annotator][key] = labels
    return dict(found)


def for_run(labels: dict[tuple[str, str], tuple[str, ...]], run: str) -> dict[str, tuple[str, ...]]:
    """One annotator's labels of the tasks of one run (rows naming the run, or naming no run)."""
    return {task: value for (where, task), value in labels.items() if where in ("", run)}
