"""Throughput of the bench harness: the whole built-in suite with the oracle agent, rendering off.

Runs ``asil bench`` as a user does (a subprocess, fresh --out each time) with 1 and 2 local
workers and with the Ray backend on 2 CPUs, and prints wall time, tasks per minute and the
harness overhead per episode: the parent-observed time of an episode (from handing it to a worker
to its folder being committed) minus the episode's own time (``time_s``: environment, adapter,
agent and evaluation). Worker and LibreOffice start-up happen once per worker and are in the
wall time, not in the per-episode overhead.

The ASIL paper's suites (``--paper-suites``): the main benchmark (``core`` + ``multi``) and the held-out
``hard`` suite, each with 2 local workers; target under 5 minutes each on the idle 2-core machine.

    .venv/bin/python benchmarks/bench_throughput.py [--skip-ray] [--paper-suites]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from asil.runner.bench import AgentSpec, run_bench
from asil.runner.results import RunRecord, RunSettings
from asil.tasks import load_tasks

TARGET_SUITE_S = 600.0
TARGET_RAY_RATIO = 1.15
TARGET_OVERHEAD_MS = 50.0
TARGET_PAPER_SUITE_S = 300.0
PAPER_SUITES = {"main benchmark (core + multi)": ("core", "multi"), "hard suite": ("hard",)}


def cli_run(out: Path, *extra: str, suite: str = "core") -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "asil.cli", "bench", "--suite", suite, "--agent", "oracle", "--out",
                    str(out), *extra], check=True, capture_output=True, text=True,
                   env={**os.environ, "ASIL_DISABLE_RENDER": "1"})
    return time.monotonic() - started


def paper_suites(root: Path) -> int:
    """Wall time of the paper's suites with the oracle and 2 workers; every episode must succeed."""
    print("| suite | tasks | wall s | succeeded |")
    print("|---|---|---|---|")
    walls = []
    for name, suites in PAPER_SUITES.items():
        wall, tasks, won = 0.0, 0, 0
        for suite in suites:
            cli_run(root / f"warm-{suite}", "--workers", "2", suite=suite)  # builds set-up files into the cache
            out = root / suite
            wall += cli_run(out, "--workers", "2", suite=suite)
            total = json.loads((out / "summary.json").read_text())["total"]
            tasks, won = tasks + len(load_tasks(suite=suite)), won + total["success"]
        walls.append(wall)
        print(f"| {name} | {tasks} | {wall:.1f} | {won} |")
    print(f"\nload average {os.getloadavg()[0]:.1f}; target each < {TARGET_PAPER_SUITE_S:.0f} s: "
          f"{'MET' if max(walls) < TARGET_PAPER_SUITE_S else 'MISSED'}")
    return 0


def harness_overhead_ms(workers: int, out: Path) -> tuple[float, float]:
    """Per-episode overhead through the Python API: time between an episode's dispatch and its commit,
    minus the episode's own time. Measured with one worker so queueing does not count."""
    tasks = load_tasks(suite="core")
    ends: list[float] = []
    episode: list[float] = []
    last = [time.monotonic()]

    def progress(result: object) -> None:
        now = time.monotonic()
        ends.append(now - last[0])
        episode.append(result.time_s)  # type: ignore[attr-defined]
        last[0] = now

    record = RunRecord(settings=RunSettings(agent="oracle", backend="local"), workers=workers)
    run_bench(tasks, AgentSpec("oracle"), out, progress=progress, workers=workers, record=record)
    # the first episode's interval includes the worker's start; leave it out
    gaps = [(gap - own) * 1000 for gap, own in zip(ends[1:], episode[1:], strict=True)]
    return statistics.median(gaps), statistics.mean(gaps)


def ray_after_init_s(out: Path) -> float:
    """The Ray backend with Ray already running (as on an existing cluster): the run without ``ray.init``."""
    import ray

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ["ASIL_DISABLE_RENDER"] = "1"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        started = time.monotonic()
        record = RunRecord(settings=RunSettings(agent="oracle", backend="ray"), workers=2)
        run_bench(load_tasks(suite="core"), AgentSpec("oracle"), out, backend="ray", workers=2, record=record)
        return time.monotonic() - started
    finally:
        ray.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--paper-suites", action="store_true", help="time only the main benchmark and the hard suite")
    args = parser.parse_args()
    if args.paper_suites:
        with tempfile.TemporaryDirectory(prefix="asil-throughput-") as scratch:
            return paper_suites(Path(scratch))
    tasks = len(load_tasks(suite="core"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="asil-throughput-") as scratch:
        root = Path(scratch)
        cli_run(root / "warm", "--workers", "1")  # builds the task spreadsheets into the cache once
        for name, extra in [("local, 1 worker", ["--workers", "1"]), ("local, 2 workers", ["--workers", "2"])] + (
                [] if args.skip_ray else [("ray, 2 CPUs", ["--backend", "ray", "--workers", "2"])]):
            out = root / name.replace(" ", "").replace(",", "-")
            wall = cli_run(out, *extra)
            summary = json.loads((out / "summary.json").read_text())
            assert summary["total"]["success"] == tasks, f"{name}: not every oracle episode succeeded"
            rows.append((name, wall, summary["total"]["time_s"]))
        if not args.skip_ray:
            rows.append(("ray, 2 CPUs, Ray already up", ray_after_init_s(root / "ray-up"), float("nan")))
        median_ms, mean_ms = harness_overhead_ms(1, root / "overhead")
    print(f"built-in suite: {tasks} tasks, oracle agent, rendering off, load average {os.getloadavg()[0]:.1f}\n")
    print("| backend | wall s | tasks/min | sum of episode s |")
    print("|---|---|---|---|")
    for name, wall, episode_s in rows:
        episodes = "-" if episode_s != episode_s else f"{episode_s:.1f}"  # NaN: not read back
        print(f"| {name} | {wall:.1f} | {tasks / wall * 60:.0f} | {episodes} |")
    print(f"\nharness overhead per episode (1 worker): median {median_ms:.1f} ms, mean {mean_ms:.1f} ms")
    walls = {name: wall for name, wall, _ in rows}
    print(f"target whole suite < {TARGET_SUITE_S:.0f} s: {'MET' if max(walls.values()) < TARGET_SUITE_S else 'MISSED'}")
    if "ray, 2 CPUs" in walls:
        for name, note in (("ray, 2 CPUs", "ray.init included"), ("ray, 2 CPUs, Ray already up", "ray.init excluded")):
            ratio = walls[name] / walls["local, 2 workers"]
            print(f"target Ray within 15% of the local pool: {'MET' if ratio <= TARGET_RAY_RATIO else 'MISSED'} "
                  f"({ratio:.2f}x, {note})")
    print(f"target overhead <= {TARGET_OVERHEAD_MS:.0f} ms: {'MET' if median_ms <= TARGET_OVERHEAD_MS else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
