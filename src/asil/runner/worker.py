"""The worker side of a bench: one episode in, one finished task folder out.

Jobs and outcomes are plain picklable data, so the same function runs in a local worker
process and as a Ray task. A worker runs each episode in a private temporary folder and
returns the folder's files; the parent writes them into the run directory, so workers never
share workspaces and the result layout is the same for every backend.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asil.agents.base import Agent, make_agent
from asil.apps import SPAWN_LOCK
from asil.plugins import lifecycle_hooks
from asil.runner.episode import run_episode
from asil.runner.procs import kill_tree
from asil.runner.progress import LiveStatus
from asil.runner.results import read_task_folder
from asil.tasks.model import Task


@dataclass(frozen=True)
class AgentSpec:
    """How to build a fresh agent in any process: a registered name and its options."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def build(self) -> Agent:
        return make_agent(self.name, **self.options)


@dataclass(frozen=True)
class EpisodeJob:
    task: dict[str, Any]  # the task's JSON; rebuilt in the worker
    source_dir: str | None
    agent: AgentSpec
    budget: int | None = None
    render: bool = False
    full_observations: bool = False
    live: bool = False  # print slow calls and heartbeats of the running episode to stderr (LiveStatus)
    hints: bool = False  # the agent reads the task's success hint
    keep_final_state: bool = False  # final_state.tar.gz in the task folder (asil audit)

    @classmethod
    def of(cls, task: Task, agent: AgentSpec, budget: int | None = None, render: bool = False,
           full_observations: bool = False, live: bool = False, hints: bool = False,
           keep_final_state: bool = False) -> EpisodeJob:
        return cls(task.model_dump(mode="json"), str(task.source_dir) if task.source_dir else None, agent, budget,
                   render, full_observations, live, hints, keep_final_state)

    @property
    def task_id(self) -> str:
        return str(self.task["id"])

    def load_task(self) -> Task:
        task = Task.model_validate(self.task)
        task.source_dir = Path(self.source_dir) if self.source_dir else None
        return task


@dataclass
class EpisodeOutcome:
    task_id: str
    files: dict[str, bytes]
    worker_s: float  # wall time of the job inside the worker, episode included


def run_job(job: EpisodeJob, agent: Agent | None = None) -> EpisodeOutcome:
    """Run one episode in a private folder and return that folder's files.

    The agent is built from ``job.agent`` unless one is given (the inline backend's factories).
    """
    started = time.monotonic()
    task = job.load_task()
    with tempfile.TemporaryDirectory(prefix="asil-episode-") as scratch:
        run_episode(task, agent if agent is not None else job.agent.build(), Path(scratch), budget=job.budget,
                    render=job.render, full_observations=job.full_observations,
                    status=LiveStatus() if job.live else None, hints=job.hints,
                    keep_final_state=job.keep_final_state)
        files = read_task_folder(Path(scratch) / task.id)
    return EpisodeOutcome(task.id, files, time.monotonic() - started)


def warm_up() -> None:
    """Run every app's warm-up hook (a warm LibreOffice, ...) before the first episode, so no episode pays for it.

    A program that cannot start is not an error here: the episodes that need it say why (env_error).
    """
    for hook in lifecycle_hooks("warm_up"):
        hook()


def stop_programs() -> None:
    """Run every app's stop hook, then stop anything else this worker started, before it exits."""
    for hook in lifecycle_hooks("stop"):
        hook()
    kill_tree(os.getpid(), include_self=False)


def watch_parent(scratch: Path | None = None, interval_s: float = 0.5) -> threading.Thread:
    """If the parent dies (even by SIGKILL), kill this worker's programs, remove its scratch, exit at once.

    Otherwise an orphaned worker would finish its episode alone, and its LibreOffice would live on.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        SPAWN_LOCK.acquire()  # never released: no program may start between the kill and the exit
        kill_tree(os.getpid(), include_self=False)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        os._exit(1)

    thread = threading.Thread(target=watch, name="asil-parent-watch", daemon=True)
    thread.start()
    return thread


def arm_deadline(seconds: float) -> threading.Timer:
    """Kill this process's programs and exit when ``seconds`` pass (Ray tasks stop themselves)."""

    def expire() -> None:
        SPAWN_LOCK.acquire()  # never released: the process exits
        kill_tree(os.getpid(), include_self=False)
        os._exit(3)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer
