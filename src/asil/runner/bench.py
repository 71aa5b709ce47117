"""Benchmark runs: many episodes on a backend, resumable, one summary.

Backends: ``local`` (spawned worker processes, see pool.py), ``ray`` (Ray tasks, see
ray_backend.py) and ``inline`` (this process, one episode after another; for Python callers
that pass an agent factory — no deadlines). All three write the same run folder: run.json,
one folder per task (written whole by this process), summary.json.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

from asil.agents.base import Agent
from asil.agents.lstc.config import ablation_names
from asil.llm.params import RuntimeParams
from asil.runner.pool import JobEnd, LocalPool
from asil.runner.results import (
    PRIVATE,
    RunRecord,
    RunSettings,
    commit_task_folder,
    failure_files,
    open_run,
    plan_resume,
)
from asil.runner.summary import BenchSummary, format_table, summarize
from asil.runner.trace import EpisodeResult
from asil.runner.worker import AgentSpec, EpisodeJob, run_job
from asil.tasks.model import Task
from asil.workspace import atomic_write

Backend = Literal["inline", "local", "ray"]
BACKENDS = ("local", "ray")  # what the CLI offers

__all__ = ["AgentSpec", "BACKENDS", "repeat_folder", "run_bench", "run_repeats", "run_settings", "format_table",
           "summarize"]


class Runner(Protocol):
    def run(self, jobs: list[EpisodeJob], on_end: Callable[[JobEnd], None]) -> None: ...


class InlineRunner:
    """Episodes in this process, one after another, with agents from a factory."""

    def __init__(self, make_agent: Callable[[], Agent]):
        self.make_agent = make_agent

    def run(self, jobs: list[EpisodeJob], on_end: Callable[[JobEnd], None]) -> None:
        for job in jobs:
            started = time.monotonic()
            outcome = run_job(job, self.make_agent())
            on_end(JobEnd(job, outcome, elapsed_s=time.monotonic() - started))


def make_runner(backend: Backend, agent: AgentSpec | Callable[[], Agent], out_dir: Path, workers: int,
                episode_timeout_s: float | None, ray_address: str | None) -> Runner:
    if backend == "inline":
        factory = agent.build if isinstance(agent, AgentSpec) else agent
        return InlineRunner(factory)
    if not isinstance(agent, AgentSpec):
        raise ValueError(f"the {backend} backend builds agents in other processes: pass an AgentSpec")
    if backend == "ray":
        from asil.runner.ray_backend import RayRunner

        return RayRunner(workers, episode_timeout_s, ray_address)
    return LocalPool(workers, str(out_dir.resolve()), episode_timeout_s)


def run_settings(agent: AgentSpec | Callable[[], Agent], budget: int | None, backend: str,
                 hints: bool = False) -> RunSettings:
    """What makes a run comparable, resolved once from the agent, the run-wide budget, the backend and
    whether agents see success hints.

    ``budget`` stays None when each task keeps its own (``Task.step_budget`` resolves it per episode).
    """
    if isinstance(agent, AgentSpec):
        return RunSettings(agent=agent.name, model=agent.options.get("model"), budget=budget,
                           ablations=sorted(ablation_names(agent.options.get("ablate"))), backend=backend,
                           seed=agent_seed(agent), hints=hints)
    return RunSettings(agent=str(getattr(agent(), "name", "custom")), budget=budget, backend=backend, hints=hints)


def agent_seed(spec: AgentSpec) -> int | None:
    """The sampling seed the agent's model calls carry (Table 5 default 42); None for agents without a model."""
    if "model" not in spec.options:
        return None
    params = spec.options.get("params")
    if isinstance(params, RuntimeParams):
        return params.seed
    if isinstance(params, dict) and "seed" in params:
        return int(params["seed"])
    return RuntimeParams().seed


def with_seed(spec: AgentSpec, seed: int) -> AgentSpec:
    """The same agent whose model calls carry ``seed`` (other runtime parameters kept)."""
    params = spec.options.get("params")
    if isinstance(params, dict):
        seeded: RuntimeParams | dict[str, Any] = {**params, "seed": seed}
    else:
        seeded = (params if isinstance(params, RuntimeParams) else RuntimeParams()).model_copy(update={"seed": seed})
    return AgentSpec(spec.name, {**spec.options, "params": seeded})


def repeat_folder(out_dir: Path, repeat: int) -> Path:
    return Path(out_dir) / f"repeat-{repeat}"


def run_repeats(tasks: list[Task], agent: AgentSpec, out_dir: Path, repeats: int, record: RunRecord,
                **options: Any) -> list[dict[str, Any]]:
    """``repeats`` runs of the same tasks into ``out_dir/repeat-1`` ... ``repeat-N``; returns their summaries.

    Repeat i's model calls carry seed ``base + i - 1`` (base: the agent's seed, 42 by default), recorded
    in each ``run.json``; agents without a model run unchanged and record no seed. ``asil report out_dir``
    reads the repeats as one set and shows every table as mean ± SD.
    """
    base = agent_seed(agent)
    summaries = []
    for repeat in range(1, repeats + 1):
        spec = agent if base is None else with_seed(agent, base + repeat - 1)
        settings = record.settings.model_copy(update={"seed": agent_seed(spec)})
        summaries.append(run_bench(tasks, spec, repeat_folder(out_dir, repeat), record=record.model_copy(
            update={"settings": settings, "repeat": repeat, "repeats": repeats}), **options))
    return summaries


def run_bench(tasks: list[Task], agent: AgentSpec | Callable[[], Agent], out_dir: Path, budget: int | None = None,
              progress: Callable[[EpisodeResult], None] | None = None, render: bool = False, *,
              backend: Backend | None = None, workers: int = 1, episode_timeout_s: float | None = None,
              ray_address: str | None = None, full_observations: bool = False, record: RunRecord | None = None,
              on_resume: Callable[[dict[str, EpisodeResult]], None] | None = None,
              live: bool = False, hints: bool = False, keep_final_state: bool = False) -> dict[str, Any]:
    """Run the unfinished tasks of ``out_dir`` and write ``out_dir/summary.json``; returns the summary.

    ``agent`` is an AgentSpec (any backend) or a factory of agents (inline backend only). ``live`` makes
    each running episode print its slow model calls and heartbeats to stderr (``LiveStatus``). ``hints``
    shows agents each task's success hint; ``keep_final_state`` keeps each episode's judged files as
    ``<task>/final_state.tar.gz`` for ``asil audit``. A given ``record``'s settings decide ``hints``.
    """
    out_dir = Path(out_dir)
    chosen: Backend = backend or ("local" if isinstance(agent, AgentSpec) else "inline")
    record = record or RunRecord(settings=run_settings(agent, budget, chosen, hints), workers=workers,
                                 episode_timeout_s=episode_timeout_s, render=render,
                                 keep_final_state=keep_final_state)
    hints, keep_final_state = record.settings.hints, keep_final_state or record.keep_final_state
    open_run(out_dir, record)
    started = time.monotonic()
    results, todo = plan_resume(out_dir, tasks)
    if on_resume is not None:
        on_resume(results)
    by_id = {task.id: task for task in todo}
    spec = agent if isinstance(agent, AgentSpec) else AgentSpec(record.settings.agent)

    def on_end(end: JobEnd) -> None:
        task = by_id[end.job.task_id]
        if end.outcome is not None:
            files = end.outcome.files
        else:
            files = failure_files(task, spec.name, budget, "timeout" if end.failure == "timeout" else "crash",
                                  end.reason, end.elapsed_s, end.trajectory, end.calls)
        commit_task_folder(out_dir, task.id, files)
        result = EpisodeResult.model_validate_json(files["result.json"])
        results[task.id] = result
        if progress is not None:
            progress(result)

    jobs = [EpisodeJob.of(task, spec, budget, render, full_observations, live, hints, keep_final_state)
            for task in todo]
    if jobs:
        make_runner(chosen, agent, out_dir, workers, episode_timeout_s, ray_address).run(jobs, on_end)
    wanted = {task.id for task in tasks}
    summary = summarize([r for r in results.values() if r.task_id in wanted], record.settings,
                        time.monotonic() - started)
    write_summary(out_dir, summary)
    shutil.rmtree(out_dir / PRIVATE, ignore_errors=True)  # only staging lives there, and it is empty now
    return summary.model_dump(mode="json")


def write_summary(out_dir: Path, summary: BenchSummary) -> None:
    atomic_write(out_dir / "summary.json", summary.model_dump_json(indent=2).encode())
