"""``OUT/summary.json`` (contract): totals, per app, per domain, per task."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.plugins import region_of, region_order
from asil.runner.results import RunSettings
from asil.runner.trace import EpisodeResult, Termination


class SummaryRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: int
    success: int
    success_rate: float
    mean_score: float
    mean_steps: float
    time_s: float


class TaskSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    app: str
    domain: str = ""
    success: bool
    score: float
    steps: int
    budget: int
    termination: Termination
    time_s: float


class BenchSummary(BaseModel):
    """The summary of a run folder; rebuilt from every finished task each time a run ends."""

    model_config = ConfigDict(extra="forbid")

    settings: RunSettings | None = None
    total: SummaryRow
    apps: dict[str, SummaryRow]
    regions: dict[str, SummaryRow] = Field(default_factory=dict, description="per region of the ASIL paper's "
                                           "Table 1 (the app records' regions; Multi-App for several apps)")
    domains: dict[str, SummaryRow] = Field(default_factory=dict, description="per free-text domain tag")
    terminations: dict[str, int] = Field(default_factory=dict)
    tasks: dict[str, TaskSummary]
    wall_s: float | None = Field(None, description="wall time of the last bench invocation on this folder")


def summarize(results: Iterable[EpisodeResult], settings: RunSettings | None = None,
              wall_s: float | None = None) -> BenchSummary:
    everything = sorted(results, key=lambda r: r.task_id)
    by_app: dict[str, list[EpisodeResult]] = defaultdict(list)
    by_domain: dict[str, list[EpisodeResult]] = defaultdict(list)
    by_region: dict[str, list[EpisodeResult]] = defaultdict(list)
    for result in everything:
        by_app[app_of(result)].append(result)
        by_region[region_of(result.apps)].append(result)
        by_domain[result.domain or "-"].append(result)
    return BenchSummary(
        settings=settings, total=row(everything),
        apps={app: row(rows) for app, rows in sorted(by_app.items())},
        regions={region: row(by_region[region]) for region in region_order(set(by_region))},
        domains={domain: row(rows) for domain, rows in sorted(by_domain.items())},
        terminations=dict(sorted(Counter(r.termination for r in everything).items())),
        tasks={r.task_id: TaskSummary(app=app_of(r), domain=r.domain, success=r.success, score=r.score, steps=r.steps,
                                      budget=r.budget, termination=r.termination, time_s=r.time_s) for r in everything},
        wall_s=None if wall_s is None else round(wall_s, 3))


def app_of(result: EpisodeResult) -> str:
    """Single-app tasks count under their app; tasks with several apps under ``multi``."""
    return result.apps[0] if len(result.apps) == 1 else "multi"


def row(results: list[EpisodeResult]) -> SummaryRow:
    count = len(results)
    if not count:
        return SummaryRow(tasks=0, success=0, success_rate=0.0, mean_score=0.0, mean_steps=0.0, time_s=0.0)
    return SummaryRow(
        tasks=count, success=sum(r.success for r in results),
        success_rate=round(sum(r.success for r in results) / count, 4),
        mean_score=round(sum(r.score for r in results) / count, 4),
        mean_steps=round(sum(r.steps for r in results) / count, 2),
        time_s=round(sum(r.time_s for r in results), 2))


def format_table(summary: BenchSummary | dict[str, Any]) -> str:
    """Per app, then per region (the ASIL paper's Table 1 columns) and the total."""
    if isinstance(summary, dict):
        summary = BenchSummary.model_validate(summary)
    header = f"{'app':<21} {'tasks':>5} {'success':>7} {'SR':>6} {'score':>6} {'steps':>6} {'time s':>7}"
    lines = [header, "-" * len(header)]
    rows = list(summary.apps.items()) + [("", None)] + list(summary.regions.items()) + [("total", summary.total)]
    for name, item in rows:
        if item is None:
            lines.append("-" * len(header))
            continue
        lines.append(f"{name:<21} {item.tasks:>5} {item.success:>7} {item.success_rate:>6.1%} "
                     f"{item.mean_score:>6.3f} {item.mean_steps:>6.1f} {item.time_s:>7.1f}")
    if set(summary.terminations) - {"done", "infeasible"}:
        lines.append("endings: " + ", ".join(f"{name} {count}" for name, count in summary.terminations.items()))
    return "\n".join(lines)
