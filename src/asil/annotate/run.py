"""Annotating run folders: every episode gets labels (judged, or None for a clean success), kept on disk."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from asil.annotate.episodes import load_episodes
from asil.annotate.judge import RUBRIC_DIGEST, Annotation, Judge
from asil.protocol import AsilError
from asil.report.runs import Run
from asil.tasks.loader import load_tasks
from asil.workspace import atomic_write

ANNOTATIONS_FILE = "annotations.json"


class AnnotationRecord(BaseModel):
    """``RUN/annotations.json``: which judge and rubric labelled the run, and every episode's labels."""

    model_config = ConfigDict(extra="forbid")

    judge: str
    rubric: str = Field(description="sha256 prefix of the rubric text the judge was given")
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    annotations: list[Annotation]


@dataclass
class RunAnnotations:
    run: Run
    record: AnnotationRecord

    @property
    def labels(self) -> dict[str, tuple[str, ...]]:
        """Task id -> labels, for the episodes whose labels are usable (not malformed, not an error)."""
        return {a.task_id: tuple(a.labels) for a in self.record.annotations if a.status == "ok"}

    @property
    def unusable(self) -> list[Annotation]:
        return [a for a in self.record.annotations if a.status != "ok"]


def instructions(run: Run) -> dict[str, str]:
    """Task id -> instruction, from the tasks folder the run was made with (the built-in suites by default)."""
    root = Path(run.record.tasks_dir) if run.record and run.record.tasks_dir else None
    try:
        tasks = load_tasks(root=root)
    except (AsilError, OSError, ValueError):  # a moved or edited tasks folder: the judge reads the trace alone
        return {}
    return {task.id: task.instruction for task in tasks if task.id in run.results}


def annotate_run(run: Run, judge: Judge) -> RunAnnotations:
    """Label every episode of ``run`` and write ``RUN/annotations.json``."""
    annotations = [judge.label(episode) for episode in load_episodes(run, instructions(run))]
    record = AnnotationRecord(judge=judge.name, rubric=RUBRIC_DIGEST, annotations=annotations)
    atomic_write(run.folder / ANNOTATIONS_FILE, record.model_dump_json(indent=2).encode())
    return RunAnnotations(run, record)
