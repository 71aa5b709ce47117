"""Plain-text progress: a line per finished task (success so far, ETA, tokens/s), and while an episode
runs, a line per slow model call plus a heartbeat during a long wait (current step, tokens/s)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from asil.runner.trace import EpisodeResult, ModelCall


def clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """One line per finished task; the ETA uses only tasks run in this session (resumed ones are free)."""

    def __init__(self, total: int, already_done: int = 0, already_succeeded: int = 0, stream: TextIO | None = None):
        self.total, self.done, self.succeeded = total, already_done, already_succeeded
        self.resumed = already_done
        self.stream = stream or sys.stdout
        self.started = time.monotonic()

    def start(self) -> None:
        if self.resumed:
            print(f"resuming: {self.resumed}/{self.total} tasks already finished "
                  f"({self.succeeded} succeeded)", file=self.stream, flush=True)

    def update(self, result: EpisodeResult) -> None:
        self.done += 1
        self.succeeded += result.success
        print(self.line(result), file=self.stream, flush=True)

    def line(self, result: EpisodeResult) -> str:
        elapsed = time.monotonic() - self.started
        ran = self.done - self.resumed
        remaining = self.total - self.done
        eta = clock(elapsed / ran * remaining) if ran else "?"
        width = len(str(self.total))
        mark = "ok  " if result.success else ("FAIL" if result.termination not in ("timeout", "crash")
                                             else result.termination.upper())
        rate = self.succeeded / self.done if self.done else 0.0
        tokens = result.tokens.get("total", 0)
        speed = f" | {tokens} tok {tokens / result.time_s:.1f} tok/s" if tokens and result.time_s > 0 else ""
        return (f"[{self.done:>{width}}/{self.total}] {self.done / self.total:4.0%} | success {self.succeeded} "
                f"({rate:.0%}) | elapsed {clock(elapsed)} ETA {eta} | {mark} {result.task_id} "
                f"score {result.score:.2f} {result.time_s:.1f}s{speed}")


class LiveStatus:
    """What a running episode is doing, for a user waiting on a slow model.

    After every model call that took ``after_s`` or longer: the step, the call kind, its completion tokens
    and tokens/s, and the episode's running totals. While nothing has returned for ``every_s``, a heartbeat
    line says which step is waiting and for how long. Fast episodes (the scripted model) print nothing.
    """

    def __init__(self, stream: TextIO | None = None, after_s: float = 2.0, every_s: float = 30.0):
        self.stream, self.after_s, self.every_s = stream or sys.stderr, after_s, every_s
        self.task_id = ""
        self.step: Callable[[], int] = lambda: 0
        self.completion = self.total = 0
        self.model_seconds = 0.0
        self.last_event = self.last_line = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def rate(self) -> float:
        return self.completion / self.model_seconds if self.model_seconds else 0.0

    def call(self, call: ModelCall) -> None:
        self.completion += call.completion_tokens
        self.total += call.prompt_tokens + call.completion_tokens
        self.model_seconds += call.seconds
        self.last_event = time.monotonic()
        if call.seconds < self.after_s:
            return
        speed = call.completion_tokens / call.seconds if call.seconds else 0.0
        what = f"failed after {call.seconds:.1f} s" if call.error else (
            f"{call.completion_tokens} tok in {call.seconds:.1f} s ({speed:.1f} tok/s)")
        self._print(f"{self.task_id} step {call.step + 1}: {call.kind} {what}")

    def beat(self) -> None:
        now = time.monotonic()
        if now - self.last_event >= self.every_s and now - self.last_line >= self.every_s:
            self._print(f"{self.task_id} step {self.step() + 1}: waiting for the model for "
                        f"{now - self.last_event:.0f} s")

    def _print(self, text: str) -> None:
        self.last_line = time.monotonic()
        print(f"  {text} | episode {self.total} tok, {self.rate():.1f} tok/s", file=self.stream, flush=True)

    def start(self, task_id: str, step: Callable[[], int]) -> None:
        """Follow the episode of ``task_id``; ``step`` tells how many steps it has executed."""
        self.task_id, self.step = task_id, step
        self.completion = self.total = 0
        self.model_seconds = 0.0
        self.last_event = self.last_line = time.monotonic()
        self._stop.clear()

        def run() -> None:
            while not self._stop.wait(min(self.every_s, 5.0)):
                self.beat()

        self._thread = threading.Thread(target=run, name=f"asil-status-{task_id}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
