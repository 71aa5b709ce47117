"""Run folders as the report reads them: settings, results, a label; repeats of one configuration as a set."""

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
    def budget_label(self) -> str:
        """The budget the run used, as a label: ``B15``; ``B10-30`` when tasks kept budgets of their own that differ."""
        if self.budget is not None:
            return f"B{self.budget}"
        budgets = sorted({r.budget for r in self.results.values()})
        return f"B{budgets[0]}-{budgets[-1]}" if budgets else "B?"

    @property
    def hints(self) -> bool:
        """Whether the agent was shown the tasks' success hints (``--hints on``)."""
        return self.record is not None and self.record.settings.hints

    @property
    def config_key(self) -> str:
        """What the run compares on besides its budget: agent, model, ablations, hints."""
        return self.base_config_key + (" +hints" if self.hints else "")

    @property
    def base_config_key(self) -> str:
        """The configuration without the hint arm: a hint-on and a hint-off run of it are compared."""
        if self.record is None:
            agents = sorted({r.agent for r in self.results.values()})
            return "/".join(agents)
        settings = self.record.settings
        parts = [settings.agent] + ([settings.model] if settings.model else [])
        if settings.ablations:
            parts.append("-" + ",".join(settings.ablations))
        return " ".join(parts)


@dataclass
class RunSet:
    """One configuration run one or more times on the same tasks (``asil bench --repeats N``).

    Every table shows a set's cells as mean ± SD over its runs (sample SD; a lone run shows its value).
    """

    label: str
    runs: list[Run]

    @property
    def config_key(self) -> str:
        return self.runs[0].config_key

    @property
    def budget(self) -> int | None:
        return self.runs[0].budget

    @property
    def base_config_key(self) -> str:
        return self.runs[0].base_config_key

    @property
    def hints(self) -> bool:
        return self.runs[0].hints

    @property
    def seeds(self) -> list[int | None]:
        return [run.record.settings.seed if run.record else None for run in self.runs]


def group_runs(runs: list[Run]) -> list[RunSet]:
    """Runs with the same configuration, budget and task set are repeats of one another."""
    groups: dict[tuple[str, str, frozenset[str]], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.config_key, run.budget_label, frozenset(run.results)), []).append(run)
    sets = [RunSet(f"{key[0]} {key[1]}" + (f" x{len(group)}" if len(group) > 1 else ""), group)
            for key, group in groups.items()]
    labels = [s.label for s in sets]
    for item in sets:
        if labels.count(item.label) > 1:  # same settings on other tasks: tell them apart by folder
            item.label = f"{item.label} ({item.runs[0].folder.name})"
    return sets


def run_folders(folders: list[Path]) -> list[Path]:
    """The run folders among ``folders``: a folder written by ``--repeats N`` stands for its repeats."""
    found = []
    for folder in folders:
        repeats = sorted((p for p in folder.glob("repeat-*") if (p / "run.json").is_file()),
                         key=lambda p: int(p.name.rsplit("-", 1)[1]) if p.name.rsplit("-", 1)[1].isdigit() else 0)
        found += repeats if repeats and not (folder / "run.json").is_file() else [folder]
    return found


def load_run(folder: Path) -> Run:
    if not folder.is_dir():
        raise ReportError(f"The run folder {str(folder)!r} does not exist.", hint="Give folders written by 'asil bench'.")
    results = load_results(folder)
    if not results:
        raise ReportError(f"The folder {str(folder)!r} holds no finished task results (no <task>/result.json).",
                          hint="Give folders written by 'asil bench' or 'asil run'.")
    run = Run(folder, read_record(folder), results, "")
    run.label = f"{run.config_key} {run.budget_label}"
    return run


def load_runs(folders: list[Path]) -> list[Run]:
    runs = [load_run(folder) for folder in run_folders(folders)]
    labels = [run.label for run in runs]
    for run in runs:
        if labels.count(run.label) > 1:  # same settings twice: tell them apart by folder
            run.label = f"{run.label} ({run.folder.name})"
    return runs
