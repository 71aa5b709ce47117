"""The Ray backend: the same jobs as Ray tasks, on a local Ray or an existing cluster.

Results come back as data (the task folder's files), so the driver writes the run directory
exactly as the local backend does, and a cluster needs no shared file system for results.
Deadlines: a task stops itself when its time is up (killing its LibreOffice first — on a remote
node only the task can reach it); the driver force-cancels it a few seconds later if it is still
there (the grace also covers a fresh worker's start), and records the timeout either way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.protocol import AsilError
from asil.runner.pool import JobEnd
from asil.runner.procs import descendants, kill_tree
from asil.runner.worker import EpisodeJob, EpisodeOutcome, arm_deadline, run_job, warm_up

CANCEL_GRACE_S = 30.0  # covers a fresh Ray worker's start; the task itself stops on time


class RayUnavailable(AsilError):
    code = "ray_unavailable"


def _ray_episode(job: EpisodeJob, timeout_s: float | None) -> EpisodeOutcome:
    warm_up()  # a fresh Ray worker starts its LibreOffice before the episode's clock starts
    timer = arm_deadline(timeout_s) if timeout_s else None
    try:
        return run_job(job)
    finally:
        if timer is not None:
            timer.cancel()


def _stop_worker_programs() -> None:
    """Ray SIGKILLs its workers at shutdown, and the programs they started (LibreOffice runs in its own
    session) would live on as orphans: stop every local worker's descendants first."""
    for pid in descendants(os.getpid()):
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(b"ray::") and not title.endswith(b"Agent"):  # task workers, not Ray's own agents
            kill_tree(pid, include_self=False)


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("The Ray backend needs Ray, which is not installed.",
                             hint="Install it with: pip install 'asil[ray]'.") from None
    return ray


class RayRunner:
    """Runs jobs as Ray tasks, at most ``workers`` at a time (so deadlines start when tasks start)."""

    def __init__(self, workers: int, episode_timeout_s: float | None = None, address: str | None = None):
        self.workers = max(1, workers)
        self.timeout = episode_timeout_s
        self.address = address

    def run(self, jobs: list[EpisodeJob], on_end: Callable[[JobEnd], None]) -> None:
        ray = import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            self._init(ray)
        remote = ray.remote(num_cpus=1, max_retries=0)(_ray_episode)
        pending = list(reversed(jobs))
        inflight: dict[Any, tuple[EpisodeJob, float]] = {}
        try:
            while pending or inflight:
                while pending and len(inflight) < self.workers:
                    job = pending.pop()
                    inflight[remote.remote(job, self.timeout)] = (job, time.monotonic())
                self._collect(ray, inflight, on_end)
        finally:
            for ref in inflight:
                ray.cancel(ref, force=True)
            if started_here:
                _stop_worker_programs()
                ray.shutdown()

    def _init(self, ray: Any) -> None:
        if self.address:
            ray.init(address=self.address, log_to_driver=False)
            return
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a private local instance needs no token
        ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)

    def _collect(self, ray: Any, inflight: dict[Any, tuple[EpisodeJob, float]], on_end: Callable[[JobEnd], None]) -> None:
        wait_s = None
        if self.timeout is not None:
            earliest = min(started for _, started in inflight.values()) + self.timeout + CANCEL_GRACE_S
            wait_s = max(0.05, earliest - time.monotonic())
        ready, _ = ray.wait(list(inflight), num_returns=1, timeout=wait_s)
        now = time.monotonic()
        for ref in list(inflight):
            job, started = inflight[ref]
            elapsed = now - started
            if ref in ready:
                del inflight[ref]
                on_end(self._result(ray, ref, job, elapsed))
            elif self.timeout is not None and elapsed >= self.timeout + CANCEL_GRACE_S:
                del inflight[ref]
                ray.cancel(ref, force=True)
                on_end(JobEnd(job, None, "timeout", self._timeout_reason(), elapsed))

    def _result(self, ray: Any, ref: Any, job: EpisodeJob, elapsed: float) -> JobEnd:
        try:
            return JobEnd(job, ray.get(ref), elapsed_s=elapsed)
        except Exception as exc:  # the task raised, or its worker died (stopped itself at the deadline)
            if self.timeout is not None and elapsed >= self.timeout:
                return JobEnd(job, None, "timeout", self._timeout_reason(), elapsed)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return JobEnd(job, None, "crash", f"The Ray task failed: {type(exc).__name__}: {first}", elapsed)

    def _timeout_reason(self) -> str:
        return f"The episode did not finish within {self.timeout:g} s and was stopped."
