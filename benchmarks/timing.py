"""What every latency benchmark shares: timing a call, percentiles, and printing a Markdown table.

Benchmark scripts run as ``python benchmarks/<script>.py``, so this folder is on ``sys.path``
and they import it as ``from timing import ...``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from typing import Any


def percentile(samples: list[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method), q in [0, 100]; NaN for no samples."""
    data = sorted(samples)
    if not data:
        return math.nan
    pos = (len(data) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Milliseconds ``fn()`` took, and what it returned."""
    started = time.perf_counter()
    result = fn()
    return (time.perf_counter() - started) * 1000.0, result


def fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def pair(samples: list[float]) -> str:
    """'p50 / p95' of millisecond samples."""
    return f"{fmt(percentile(samples, 50))} / {fmt(percentile(samples, 95))}"


def observation_tokens(observation: Any) -> int:
    """Approximate tokens (characters / 4) of what an agent sees of an observation."""
    return len(json.dumps(observation.to_agent_dict())) // 4


def markdown_table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> None:
    """Print a Markdown table: the first column left-aligned, the (numeric) rest right-aligned."""
    widths = [max(len(h), *(len(line[k]) for line in lines)) if lines else len(h) for k, h in enumerate(header)]

    def row(cells: Sequence[str]) -> str:
        padded = (c.rjust(w) if k else c.ljust(w) for k, (c, w) in enumerate(zip(cells, widths, strict=True)))
        return "| " + " | ".join(padded) + " |"

    print(row(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for line in lines:
        print(row(line))
