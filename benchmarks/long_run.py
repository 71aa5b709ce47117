"""Long runs: thousands of actions against each warm program in one process; do resources stay flat?

Per app it opens the sample document, runs ``--actions`` actions (each followed by an observation, as an
agent step is), and measures, after a warm-up of a tenth of the run (at least 50 actions) and at the end:
the resident memory (RSS) of this process and every process below it, their open file descriptors, the
files in this run's private temporary folder and the workspace, and the number of child processes. It
prints the growth per 1,000 actions after warm-up and marks the target (growth < 5 % of the warm-up value
per 1,000 actions) MET or MISSED. It never asserts.

The action repeated is the app's first published example that succeeds twice on the sample, ``set_value`` ones
first (they overwrite one value, so the document itself does not grow); a repeat that is refused (an OBS
scene that exists) still runs the whole validate-and-observe path. A line per app under the table gives
the action, the time taken and the statuses.

    .venv/bin/python benchmarks/long_run.py [--apps calc,drawio] [--actions 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from timing import markdown_table

from asil.adapters import app_names
from asil.adapters.base import Adapter
from asil.plugins import adapter_class
from asil.protocol import Action
from asil.runner.procs import descendants
from asil.workspace import Workspace

TARGET = 5.0  # per cent of the warm-up value, per 1,000 actions
MEASURES = (("rss_mb", "RSS (MB)"), ("fds", "open fds"), ("temp_files", "temp files"), ("children", "child processes"))


@dataclass
class Sample:
    rss_mb: float
    fds: int
    temp_files: int
    children: int


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def fd_count(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def file_count(*folders: Path) -> int:
    return sum(1 for folder in folders for _, _, files in os.walk(folder) for _ in files)


def measure(workspace: Workspace, scratch: Path) -> Sample:
    pids = [os.getpid(), *descendants(os.getpid())]
    return Sample(rss_mb=sum(rss_kb(pid) for pid in pids) / 1024, fds=sum(fd_count(pid) for pid in pids),
                  temp_files=file_count(scratch, workspace.root), children=len(pids) - 1)


def steady_action(adapter: Adapter) -> Action:
    """The first published example that succeeds here twice in a row, ``set_value`` ones first (they
    overwrite, so the document does not grow); the first example when none does."""
    examples = [e for e in adapter.schema().examples if not e.is_control]
    ordered = sorted(examples, key=lambda e: e.action_type != "set_value")
    repeatable = (e for e in ordered if adapter.execute(e, observe=False).ok and adapter.execute(e, observe=False).ok)
    return next(repeatable, examples[0])


def run(name: str, actions: int, root: Path, scratch: Path
        ) -> tuple[Sample, Sample, int, float, dict[str, int], str]:
    """(warm-up sample, end sample, actions after warm-up, seconds, count of each status, the action) for one app."""
    cls = adapter_class(name)
    workspace = Workspace(root / name / "ws")
    warm_up = max(50, actions // 10)
    statuses = {"ok": 0, "invalid": 0, "error": 0}
    with cls(workspace, cls.create_sample(workspace)) as adapter:
        action = steady_action(adapter)
        started = time.perf_counter()
        warm = measure(workspace, scratch)
        for done in range(1, actions + 1):
            statuses[adapter.execute(action).status] += 1
            if done == warm_up:
                warm = measure(workspace, scratch)
        end = measure(workspace, scratch)
        seconds = time.perf_counter() - started
    what = f"{action.action_type} {action.target or ''}".strip()
    return warm, end, actions - warm_up, seconds, statuses, what


def growth_rows(name: str, warm: Sample, end: Sample, after: int) -> list[tuple[str, ...]]:
    rows = []
    for metric, label in MEASURES:
        before, now = getattr(warm, metric), getattr(end, metric)
        per_1000 = (now - before) / max(after, 1) * 1000
        percent = per_1000 / before * 100 if before else (0.0 if per_1000 <= 0 else float("inf"))
        verdict = "MET" if percent < TARGET else "MISSED"
        rows.append((name, label, f"{before:.1f}", f"{now:.1f}", f"{per_1000:+.2f}",
                     f"{percent:+.2f} %", verdict))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", default=",".join(n for n in app_names() if n != "gitea"),
                        help="comma-separated app names (default: every app but gitea, which needs a server)")
    parser.add_argument("--actions", type=int, default=2000, help="actions per app")
    args = parser.parse_args()
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="asil-long-run-") as folder:
        scratch = Path(folder) / "tmp"
        scratch.mkdir()
        os.environ["TMPDIR"] = tempfile.tempdir = str(scratch)  # this run's temporary files only, ours and the programs'
        for name in args.apps.split(","):
            readiness = adapter_class(name).readiness()
            if not readiness.ready:
                rows.append((name, "-", "-", "-", "-", "-", f"not ready: {readiness.detail[:50]}"))
                continue
            warm, end, after, seconds, statuses, action_name = run(name, args.actions, Path(folder), scratch)
            rows.extend(growth_rows(name, warm, end, after))
            notes.append(f"{name}: {action_name} x {args.actions} in {seconds:.1f} s, "
                         + ", ".join(f"{count} {status}" for status, count in statuses.items()))
            print(notes[-1], file=sys.stderr)
            for row in rows[-len(MEASURES):]:  # each app's rows as soon as it is done: a long run may be cut short
                print(" | ".join(row), file=sys.stderr, flush=True)
    print(f"long run, {args.actions} actions per app (warm-up {max(50, args.actions // 10)}), {platform.node()} "
          f"({os.cpu_count()} cores, shared), Python {platform.python_version()}\n")
    markdown_table(["app", "measure", "after warm-up", "at the end", "growth / 1,000 actions", "% / 1,000",
                    f"target < {TARGET:.0f} %"], rows)
    print("\n" + "\n".join(notes))


if __name__ == "__main__":
    main()
