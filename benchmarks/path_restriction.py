"""The paper's LibreOffice path-restriction study (Table 4(b)) on the Calc tasks (issue 15).

The same tasks, action vocabulary, observation builder and evaluator, reached through two access paths of
the Calc adapter (the adapter option ``access_path``, set here in each task's ``setup.options``):

* ``file``: the .ods package's XML read and written directly (lxml), no LibreOffice while acting; formulas
  are stored but not computed (observed as ``uncomputed``) until LibreOffice opens the saved file;
* ``dispatch``: every action routed to ASIL's engine script in a warm headless LibreOffice (UNO).

The evaluator is the same for both: LibreOffice reads the saved file (``asil.evaluate``). Per path it prints
tasks, success %, mean steps and mean action latency (control actions excluded; latency is the adapter's
``latency_ms``, validation + execution, without the observation the episode builds afterwards).

    PYTHONPATH=src .venv/bin/python benchmarks/path_restriction.py                      # oracle (references)
    PYTHONPATH=src .venv/bin/python benchmarks/path_restriction.py --agent react \\
        --model M --base-url http://127.0.0.1:8080/v1 [--budget 15]                      # a real model
    PYTHONPATH=src .venv/bin/python benchmarks/path_restriction.py --agent react --local-smollm2 \
        --task calc-total-column --budget 6                     # SmolLM2-135M on llama-cpp-python's server
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from timing import markdown_table

from asil.agents import make_agent
from asil.runner.episode import run_episode
from asil.tasks import load_tasks
from asil.tasks.model import Task

PATHS = ("file", "dispatch")
CONTROL = ("done", "infeasible")


@dataclass
class PathRun:
    """What one access path did over the task set."""

    successes: list[bool] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)  # action kind (function name) -> latencies
    failed: list[str] = field(default_factory=list)


def on_path(task: Task, path: str) -> Task:
    """The task with its Calc adapter on ``path``; nothing else changes (files, instruction, evaluator)."""
    copy = task.model_copy(deep=True)
    copy.setup.options.setdefault("calc", {})["access_path"] = path
    return copy


def agent_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.agent == "oracle":
        return {}
    if not args.model or not args.base_url:
        raise SystemExit("--agent react/lstc needs --model and --base-url (an OpenAI-compatible server), "
                         "or --local-smollm2.")
    options: dict[str, Any] = {"model": args.model, "base_url": args.base_url}
    if args.local_smollm2:
        options.update(server="llama-cpp-python", context_length=args.n_ctx)
    return options


@contextmanager
def model_server(args: argparse.Namespace, out: Path) -> Iterator[None]:
    """With --local-smollm2: SmolLM2-135M served by llama-cpp-python for the whole run (asil[real-model])."""
    if not args.local_smollm2:
        yield
        return
    from asil.llm.local_server import SMOLLM2_NAME, llama_server

    with llama_server(n_ctx=args.n_ctx, log=out / "server.log") as base_url:
        args.model, args.base_url = SMOLLM2_NAME, base_url
        yield


def run_path(path: str, tasks: list[Task], args: argparse.Namespace, out: Path) -> PathRun:
    run = PathRun()
    for task in tasks:
        for _ in range(args.repeats):
            agent = make_agent(args.agent, **agent_options(args))
            result = run_episode(on_path(task, path), agent, out / path, budget=args.budget)
            run.successes.append(result.success)
            run.steps.append(result.steps)
            if not result.success:
                run.failed.append(f"{task.id} ({result.termination}{': ' + result.error if result.error else ''})")
            for kind, latency in action_latencies(out / path / task.id / "traj.jsonl"):
                run.action_ms.append(latency)
                run.by_kind.setdefault(kind, []).append(latency)
    return run


def action_latencies(trace: Path) -> list[tuple[str, float]]:
    """(kind, latency_ms) of each non-control step; the kind is the function name for invoke_function."""
    lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    steps = [line for line in lines if line.get("action") and line["action"]["action_type"] not in CONTROL]
    return [(step["action"]["target"] if step["action"]["action_type"] == "invoke_function"
             else step["action"]["action_type"], step["latency_ms"]) for step in steps]


def print_by_kind(runs: dict[str, PathRun]) -> None:
    """Mean latency per action kind and path: where each path spends its time."""
    kinds = sorted({kind for run in runs.values() for kind in run.by_kind})
    print()
    markdown_table(["Action", *(f"{path} n / mean ms" for path in runs)], [
        [kind, *(f"{len(run.by_kind.get(kind, []))} / {statistics.mean(run.by_kind[kind]):.1f}"
                 if kind in run.by_kind else "-" for run in runs.values())] for kind in kinds])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="oracle", choices=["oracle", "react", "lstc"])
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--local-smollm2", action="store_true", help="serve SmolLM2-135M locally as the model")
    parser.add_argument("--n-ctx", type=int, default=4096, help="context length of the local model")
    parser.add_argument("--budget", type=int)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--task", action="append", help="a Calc task id (repeatable); all core Calc tasks by default")
    parser.add_argument("--out", type=Path, help="where the traces go (a temporary folder by default)")
    args = parser.parse_args()
    tasks = [t for t in load_tasks(suite="core", app="calc") if not args.task or t.id in args.task]
    with tempfile.TemporaryDirectory(prefix="asil-paths-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        with model_server(args, out):
            runs = {path: run_path(path, tasks, args, out) for path in PATHS}
    print(f"\nLibreOffice path-restriction study, agent {args.agent}"
          f"{' (' + args.model + ')' if args.model else ''}; {len(tasks)} Calc tasks x {args.repeats}; "
          f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}\n")
    markdown_table(["Path", "Tasks", "Episodes", "Success %", "Mean steps", "Mean action latency (ms)", "p50 (ms)"], [
        [path, str(len(tasks)), str(len(run.successes)), f"{100 * sum(run.successes) / len(run.successes):.1f}",
         f"{statistics.mean(run.steps):.2f}", f"{statistics.mean(run.action_ms):.1f}" if run.action_ms else "-",
         f"{statistics.median(run.action_ms):.1f}" if run.action_ms else "-"]
        for path, run in runs.items()])
    print_by_kind(runs)
    for path, run in runs.items():
        for failure in run.failed:
            print(f"  {path}: failed {failure}")
    if args.agent == "oracle":  # the references must succeed on both paths; timings are never asserted
        assert all(all(run.successes) for run in runs.values()), "a reference solution failed on one path"


if __name__ == "__main__":
    main()
