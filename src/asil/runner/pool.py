"""The local backend: N spawned worker processes, one episode each at a time, with deadlines.

Why not ``concurrent.futures.ProcessPoolExecutor``: killing one of its workers (a hung episode)
breaks the whole pool and fails every episode in flight. Here each worker has its own pipe, so
the parent can kill exactly the hung one — with the programs it started — and start a fresh one.
Each worker keeps its own warm LibreOffice (``shared_office()``) across the episodes it runs.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from asil.runner.procs import kill_tree
from asil.runner.worker import EpisodeJob, EpisodeOutcome, run_job, stop_programs, warm_up, watch_parent

MARKER_ENV = "ASIL_BENCH_OUT"  # set in workers (and inherited by their programs) to the run folder


@dataclass
class JobEnd:
    """How one job ended: an outcome, or a failure the parent records (timeout / crash)."""

    job: EpisodeJob
    outcome: EpisodeOutcome | None
    failure: str | None = None  # "timeout" | "crash"
    reason: str = ""
    elapsed_s: float = 0.0
    trajectory: bytes = b""  # steps the episode wrote before it was killed, when they can be read
    calls: bytes = b""  # and the model calls it made (calls.jsonl), for their tokens


def _worker_main(conn: Connection, scratch: str, marker: str) -> None:
    """Entry point of a worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    os.environ["TMPDIR"] = scratch
    os.environ[MARKER_ENV] = marker
    tempfile.tempdir = scratch  # workspaces, LibreOffice profiles: all inside the worker's scratch
    watch_parent(Path(scratch))
    try:
        warm_up()
        conn.send(("ready", None))  # deadlines start once a worker is warm, not while it boots
        while True:
            try:
                job = conn.recv()
            except EOFError:
                break
            if job is None:
                break
            try:
                conn.send(("ok", run_job(job)))
            except Exception as exc:  # a bug below the episode's own handlers: report, keep serving
                conn.send(("crash", f"{type(exc).__name__}: {exc}"))
    finally:
        stop_programs()


class _Worker:
    def __init__(self, context: multiprocessing.context.SpawnContext, marker: str):
        self.scratch = Path(tempfile.mkdtemp(prefix="asil-worker-"))
        # Others may pass through (not list): services that drop privileges, like Dovecot serving its
        # Maildir as the mail user, must reach their folders inside the worker's scratch.
        os.chmod(self.scratch, 0o711)
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(target=_worker_main, args=(child, str(self.scratch), marker),
                                                    daemon=True, name="asil-bench-worker")
        self.process.start()
        child.close()
        self.job: EpisodeJob | None = None
        self.started = 0.0
        self.ready = False

    def assign(self, job: EpisodeJob) -> None:
        self.job, self.started = job, time.monotonic()
        self.conn.send(job)

    def salvage(self, name: str) -> bytes:
        """A file a killed episode had flushed (its private folder is in our scratch): traj.jsonl, calls.jsonl."""
        if self.job is None:
            return b""
        for path in self.scratch.glob(f"asil-episode-*/{self.job.task_id}/{name}"):
            try:
                return path.read_bytes()
            except OSError:
                return b""
        return b""

    def kill(self) -> None:
        if self.process.pid is not None and self.process.is_alive():
            kill_tree(self.process.pid)
        self.process.join(timeout=10)
        self.conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=15)
        self.kill()


class LocalPool:
    """Runs jobs on ``workers`` processes; ``on_end`` is called in the parent as each job ends."""

    def __init__(self, workers: int, marker: str, episode_timeout_s: float | None = None):
        self.size = max(1, workers)
        self.marker = marker
        self.timeout = episode_timeout_s
        self.context = multiprocessing.get_context("spawn")
        self.boot_failures = 0

    def run(self, jobs: list[EpisodeJob], on_end: Callable[[JobEnd], None]) -> None:
        pending = deque(jobs)
        workers: list[_Worker] = []
        try:
            workers = [_Worker(self.context, self.marker) for _ in range(min(self.size, len(jobs)))]
            while pending or any(w.job for w in workers):
                for worker in workers:
                    if worker.ready and worker.job is None and pending:
                        worker.assign(pending.popleft())
                self._wait(workers, on_end)
        finally:
            for worker in workers:
                if worker.job is None:
                    worker.stop()
                else:  # interrupted mid-episode: stop it hard, its task stays unfinished
                    worker.kill()

    def _wait(self, workers: list[_Worker], on_end: Callable[[JobEnd], None]) -> None:
        busy = [w for w in workers if w.job is not None]
        booting = [w for w in workers if not w.ready]
        watched = busy + booting
        ready = wait([w.conn for w in watched] + [w.process.sentinel for w in watched],
                     timeout=self._next_deadline(busy))
        now = time.monotonic()
        for index, worker in enumerate(workers):
            if not worker.ready and (worker.conn in ready or worker.process.sentinel in ready):
                workers[index] = self._boot(worker)
                continue
            if worker.job is None:
                continue
            if worker.conn in ready or worker.process.sentinel in ready:
                end = self._receive(worker, now)
            elif self.timeout is not None and now - worker.started >= self.timeout:
                end = JobEnd(worker.job, None, "timeout", f"The episode did not finish within {self.timeout:g} s "
                             "and was stopped.", now - worker.started, worker.salvage("traj.jsonl"),
                             worker.salvage("calls.jsonl"))
            else:
                continue
            if end.failure is not None:  # the worker is dead or must die: replace it
                worker.kill()
                workers[index] = _Worker(self.context, self.marker)
            else:
                worker.job = None
            on_end(end)

    def _boot(self, worker: _Worker) -> _Worker:
        """A booting worker said it is ready — or died while booting, and is replaced."""
        try:
            kind, _ = worker.conn.recv()
            worker.ready = kind == "ready"
            return worker
        except (EOFError, OSError):
            worker.kill()
            self.boot_failures += 1
            if self.boot_failures > 3 * self.size:
                raise RuntimeError("bench workers keep dying while they start; see the worker's stderr") from None
            return _Worker(self.context, self.marker)

    def _receive(self, worker: _Worker, now: float) -> JobEnd:
        assert worker.job is not None
        elapsed = now - worker.started
        try:
            if worker.conn.poll():
                kind, payload = worker.conn.recv()
                if kind == "ok":
                    return JobEnd(worker.job, payload, elapsed_s=elapsed)
                return JobEnd(worker.job, None, "crash", f"The worker failed outside the episode: {payload}", elapsed,
                              worker.salvage("traj.jsonl"), worker.salvage("calls.jsonl"))
        except (EOFError, OSError):
            pass
        worker.process.join(timeout=5)
        return JobEnd(worker.job, None, "crash", f"The worker process died (exit code {worker.process.exitcode}) "
                      "during the episode.", elapsed, worker.salvage("traj.jsonl"), worker.salvage("calls.jsonl"))

    def _next_deadline(self, busy: list[_Worker]) -> float | None:
        if self.timeout is None or not busy:
            return None
        earliest = min(w.started for w in busy) + self.timeout
        return max(0.0, earliest - time.monotonic())
