"""Benchmark runs: many episodes, one summary (sequential here; parallel backends come later)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from asil.agents.base import Agent
from asil.runner.episode import run_episode
from asil.runner.trace import EpisodeResult
from asil.tasks.model import Task
from asil.workspace import atomic_write


def run_bench(tasks: list[Task], make_agent: Callable[[], Agent], out_dir: Path, budget: int | None = None,
              progress: Callable[[EpisodeResult, int, int], None] | None = None, render: bool = False) -> dict[str, Any]:
    """Run every task with a fresh agent; write ``out_dir/summary.json`` and return it."""
    results = []
    for index, task in enumerate(tasks, start=1):
        result = run_episode(task, make_agent(), out_dir, budget=budget, render=render)
        results.append(result)
        if progress:
            progress(result, index, len(tasks))
    summary = summarize(results)
    atomic_write(out_dir / "summary.json", json.dumps(summary, indent=2).encode())
    return summary


def summarize(results: Iterable[EpisodeResult]) -> dict[str, Any]:
    by_app: dict[str, list[EpisodeResult]] = defaultdict(list)
    everything = list(results)
    for result in everything:
        by_app[result.apps[0]].append(result)
    return {
        "total": _row(everything),
        "apps": {app: _row(rows) for app, rows in sorted(by_app.items())},
        "tasks": {r.task_id: {"success": r.success, "score": r.score, "steps": r.steps,
                              "termination": r.termination} for r in everything},
    }


def _row(results: list[EpisodeResult]) -> dict[str, Any]:
    count = len(results)
    if not count:
        return {"tasks": 0, "success": 0, "success_rate": 0.0, "mean_score": 0.0, "mean_steps": 0.0, "time_s": 0.0}
    return {
        "tasks": count,
        "success": sum(r.success for r in results),
        "success_rate": round(sum(r.success for r in results) / count, 4),
        "mean_score": round(sum(r.score for r in results) / count, 4),
        "mean_steps": round(sum(r.steps for r in results) / count, 2),
        "time_s": round(sum(r.time_s for r in results), 2),
    }


def format_table(summary: dict[str, Any]) -> str:
    header = f"{'app':<10} {'tasks':>5} {'success':>7} {'SR':>6} {'score':>6} {'steps':>6} {'time s':>7}"
    lines = [header, "-" * len(header)]
    rows = list(summary["apps"].items()) + [("total", summary["total"])]
    for name, row in rows:
        lines.append(f"{name:<10} {row['tasks']:>5} {row['success']:>7} {row['success_rate']:>6.1%} "
                     f"{row['mean_score']:>6.3f} {row['mean_steps']:>6.1f} {row['time_s']:>7.1f}")
    return "\n".join(lines)
