"""Control-failure annotation (LocalLSTC Tables 6-8): an LLM judge labels failed or suspicious episodes
with the rubric in ``rubric.md``; human labels come from CSV; agreement is per label.

``asil annotate RUN_DIR`` is the command; :func:`annotate` is the same in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from asil.annotate.human import HumanLabels, read_human_labels
from asil.annotate.judge import RUBRIC, Annotation, Judge, parse_reply
from asil.annotate.labels import CONTROL_LABELS, LABELS
from asil.annotate.run import ANNOTATIONS_FILE, RunAnnotations, annotate_run
from asil.annotate.tables import annotation_tables
from asil.report.runs import ReportError, RunSet, group_runs, load_runs
from asil.report.tables import Table

__all__ = ["ANNOTATIONS_FILE", "Annotation", "AnnotationResult", "CONTROL_LABELS", "Judge", "LABELS", "RUBRIC",
           "annotate", "parse_reply", "read_human_labels"]


@dataclass
class AnnotationResult:
    sets: list[RunSet]
    annotated: dict[str, RunAnnotations]  # by run folder
    humans: HumanLabels
    tables: list[Table]


def annotate(folders: list[Path], judge: Judge, human: list[Path] | None = None) -> AnnotationResult:
    """Label every episode of the run folders (a ``--repeats`` folder stands for its repeats) and build
    Tables 6-8; each run's labels are written to ``RUN/annotations.json``."""
    humans = read_human_labels(human or [])
    runs = load_runs(folders)
    if human and len({run.folder.name for run in runs}) < len(runs):
        raise ReportError("Two of the run folders have the same name, so human labels cannot tell them apart.",
                          hint="Annotate them one at a time, or rename one.")
    sets = group_runs(runs)
    annotated = {str(run.folder): annotate_run(run, judge) for run in runs}
    return AnnotationResult(sets, annotated, humans, annotation_tables(sets, annotated, humans, judge.name))

