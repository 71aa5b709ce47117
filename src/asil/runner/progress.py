"""A plain-text progress line: tasks done, success so far, ETA."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from asil.runner.trace import EpisodeResult


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
        return (f"[{self.done:>{width}}/{self.total}] {self.done / self.total:4.0%} | success {self.succeeded} "
                f"({rate:.0%}) | elapsed {clock(elapsed)} ETA {eta} | {mark} {result.task_id} "
                f"score {result.score:.2f} {result.time_s:.1f}s")
