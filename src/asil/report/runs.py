"""Run folders as the report reads them: settings, results, a label."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from asil.protocol import AsilError
from asil.runner.results import RunRecord, load_results, read_record
from asil.runner.trace import EpisodeResult


class ReportError(AsilError):
    code = "bad_report_input"


@dataclass
class Run:
    folder: Path
    record: RunRecord | None
    results: dict[str, EpisodeResult]
    label: str

    @property
    def ordered(self) -> list[EpisodeResult]:
        return [self.results[key] for key in sorted(self.results)]

    @property
    def budget(self) -> int | None:
        """The run's step budget: the --budget it ran with, or the tasks' own when they all agree."""
        if self.record is not None and self.record.settings.budget is not None:
            return self.record.settings.budget
        budgets = {r.budget for r in self.results.values()}
        return budgets.pop() if len(budgets) == 1 else None

    @property
    def config_key(self) -> str:
        """What the run compares on besides its budget: agent, model, ablations."""
        if self.record is None:
            agents = sorted({r.agent for r in self.results.values()})
            return "/".join(agents)
        settings = self.record.settings
        parts = [settings.agent] + ([settings.model] if settings.model else [])
        if settings.ablations:
            parts.append("-" + ",".join(settings.ablations))
        return " ".join(parts)


def load_run(folder: Path) -> Run:
    if not folder.is_dir():
        raise ReportError(f"The run folder {str(folder)!r} does not exist.", hint="Give folders written by 'asil bench'.")
    results = load_results(folder)
    if not results:
        raise ReportError(f"The folder {str(folder)!r} holds no finished task results (no <task>/result.json).",
                          hint="Give folders written by 'asil bench' or 'asil run'.")
    run = Run(folder, read_record(folder), results, "")
    run.label = f"{run.config_key} B{run.budget or '?'}"
    return run


def load_runs(folders: list[Path]) -> list[Run]:
    runs = [load_run(folder) for folder in folders]
    labels = [run.label for run in runs]
    for run in runs:
        if labels.count(run.label) > 1:  # same settings twice: tell them apart by folder
            run.label = f"{run.label} ({run.folder.name})"
    return runs
