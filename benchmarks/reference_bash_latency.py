"""Latency of bash steps in task references, next to the ASIL actions of the same references.

For each core task whose reference uses the bash channel it plays the reference ``--repeats`` times on the
real programs (``Env.play``, as ``asil tasks check`` does) and reports, per step, the ``latency_ms`` the step's
result carries: for a bash step that is the whole bash channel (save every document, run the command under
bubblewrap, reopen documents the command changed), for an ASIL action the adapter's own timing. A bare
sandboxed ``true`` (``asil.shell.run_shell``) is the floor of any bash step. Each repeat checks that the
reference still succeeds; timings are never asserted.

    PYTHONPATH=src .venv/bin/python benchmarks/reference_bash_latency.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import platform

from timing import percentile, timed

from asil.env import Env
from asil.protocol import Action
from asil.shell import run_shell
from asil.tasks import get_task
from asil.tasks.reference import ShellStep, reference_channel
from asil.workspace import Workspace

TASKS = ("jupyter-bash-drop-refunds", "codeserver-bash-first-commit", "audacity-bash-unpack-and-mix",
         "drawio-bash-rename-product")


def play(task_id: str, repeats: int) -> dict[str, list[float]]:
    """Milliseconds per reference step (keyed ``channel target``) over ``repeats`` replays."""
    task = get_task(task_id)
    samples: dict[str, list[float]] = {}
    for _ in range(repeats):
        env = Env(task, budget=len(task.reference) + 1)
        env.reset()
        try:
            for step in task.reference:
                result = env.play(step).result
                assert result.ok, f"{task_id}: {result.error}"
                samples.setdefault(_label(step), []).append(result.latency_ms)
            assert env.evaluate().success, f"{task_id}: the reference no longer succeeds"
        finally:
            env.close()
    return samples


def _label(step: Action) -> str:
    if isinstance(step, ShellStep):
        return f"bash `{step.command.split()[0]} ...`"
    return f"{reference_channel(step)} {step.target}"


def sandbox_floor(repeats: int) -> list[float]:
    workspace = Workspace.temporary(prefix="asil-bench-bash-")
    try:
        return [timed(lambda: run_shell("true", workspace))[0] for _ in range(repeats)]
    finally:
        workspace.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"# bash steps in references ({platform.machine()}, {args.repeats} repeats, ms)\n")
    print("| task | step | p50 | p95 |")
    print("|---|---|---:|---:|")
    floor = sandbox_floor(args.repeats * 4)
    print(f"| (none) | bash `true` (sandbox floor) | {percentile(floor, 50):.1f} | {percentile(floor, 95):.1f} |")
    for task_id in TASKS:
        for step, ms in play(task_id, args.repeats).items():
            print(f"| {task_id} | {step} | {percentile(ms, 50):.1f} | {percentile(ms, 95):.1f} |")


if __name__ == "__main__":
    main()
