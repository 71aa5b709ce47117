"""The paper's LibreOffice path-restriction study (Table 4(b)) on the Calc, Writer and Impress tasks (issue 15).

The same tasks, action vocabulary, observation builder and evaluator, reached through two access paths of
each LibreOffice adapter (the adapter option ``access_path``, set here in each task's ``setup.options``):

* ``file``: the ODF package's XML (.ods/.odt/.odp) read and written directly (lxml), no LibreOffice while
  acting; Calc formulas are stored but not computed until LibreOffice opens the saved file; what needs
  LibreOffice's layout (PDF export, renders, Impress autolayout) is refused;
* ``dispatch``: every action routed to ASIL's engine script in a warm headless LibreOffice (UNO).

The evaluator is the same for both: LibreOffice reads the saved file (``asil.evaluate``). Per path it prints
tasks, success %, mean steps and mean action latency (control actions excluded; latency is the adapter's
``latency_ms``, validation + execution, without the observation the episode builds afterwards).

    PYTHONPATH=src .venv/bin/python benchmarks/path_restriction.py [--apps calc,writer,impress]  # oracle
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
APPS = ("calc", "writer", "impress")
CONTROL = ("done", "infeasible")
REFUSED = "unsupported_on_file_path"


@dataclass
class PathRun:
    """What one access path did over the task set."""

    successes: list[bool] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    action_ms: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)  # action kind (function name) -> latencies
    failed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # tasks whose reference needs what this path refuses


def on_path(task: Task, path: str) -> Task:
    """The task with its LibreOffice adapter on ``path``; nothing else changes (files, instruction, evaluator)."""
    copy = task.model_copy(deep=True)
    copy.setup.options.setdefault(task.apps[0], {})["access_path"] = path
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
            trace = out / path / task.id / "traj.jsonl"
            if not result.success:
                run.failed.append(f"{task.id} ({result.termination}{': ' + result.error if result.error else ''})")
                if refused_steps(trace):
                    run.refused.append(task.id)
            for kind, latency in action_latencies(trace):
                run.action_ms.append(latency)
                run.by_kind.setdefault(kind, []).append(latency)
    return run


def action_latencies(trace: Path) -> list[tuple[str, float]]:
    """(kind, latency_ms) of each non-control step; the kind is the function name for invoke_function."""
    lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    steps = [line for line in lines if line.get("action") and line["action"]["action_type"] not in CONTROL]
    return [(step["action"]["target"] if step["action"]["action_type"] == "invoke_function"
             else step["action"]["action_type"], step["latency_ms"]) for step in steps]


def _needs_office(task: Task) -> bool:
    return any(step.target == "export_pdf" for step in task.reference_steps())


def refused_steps(trace: Path) -> list[str]:
    """The actions of an episode that its access path refused as needing LibreOffice."""
    lines = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return [str(line["action"].get("target")) for line in lines
            if line.get("action") and REFUSED in json.dumps(line.get("error") or "")]


def saved_state(task: Task, path: str) -> tuple[Any, Any]:
    """After the reference on ``path``: what the agent observes, and what LibreOffice (the default dispatch
    adapter) reads from the saved file. Writer and Impress adapters have ``read()``; Calc's own test compares
    every cell (tests/adapters/test_calc_paths.py)."""
    from asil.env import Env
    from asil.plugins import adapter_class

    app = task.apps[0]
    env = Env(on_path(task, path))
    try:
        env.reset()
        for step in task.reference_steps():
            env.step(step)
        observation = env.adapters[app].observe()
        seen = ([e.model_dump() for e in observation.elements], observation.navigation.model_dump())
        env.evaluate()  # saves, then judges
        assert env.workspace is not None
        with adapter_class(app)(env.workspace, env.task.document_for(app)) as libreoffice:
            return seen, libreoffice.read()  # type: ignore[attr-defined]
    finally:
        env.close()


def compare_paths(app: str, tasks: list[Task]) -> None:
    """Print, per task, whether both paths showed the agent the same elements and left the same document."""
    same_view = same_file = 0
    for task in tasks:
        (dispatch_view, dispatch_file), (file_view, file_file) = (saved_state(task, path) for path in ("dispatch", "file"))
        same_view += dispatch_view == file_view
        same_file += dispatch_file == file_file
        if dispatch_view != file_view or dispatch_file != file_file:
            print(f"  {task.id}: observations {'equal' if dispatch_view == file_view else 'DIFFER'}, "
                  f"saved documents {'equal' if dispatch_file == file_file else 'DIFFER'}")
    print(f"{app}: after the reference, equal observations on {same_view}/{len(tasks)} tasks, "
          f"equal saved documents (read by LibreOffice) on {same_file}/{len(tasks)}")


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
    parser.add_argument("--apps", default=",".join(APPS), help="comma-separated: calc, writer, impress")
    parser.add_argument("--task", action="append", help="a task id (repeatable); all core tasks of --apps by default")
    parser.add_argument("--out", type=Path, help="where the traces go (a temporary folder by default)")
    parser.add_argument("--compare", action="store_true", help="only compare, per Writer/Impress task, the "
                        "observations and saved documents both paths leave after the reference")
    args = parser.parse_args()
    apps = [app.strip() for app in args.apps.split(",") if app.strip()]
    if not set(apps) <= set(APPS):
        raise SystemExit(f"--apps takes {', '.join(APPS)}; got {args.apps!r}.")
    by_app = {app: [t for t in load_tasks(suite="core", app=app) if not args.task or t.id in args.task] for app in apps}
    if args.compare:
        for app in apps:
            if app != "calc":  # refused tasks (export_pdf on the file path) leave nothing to compare
                compare_paths(app, [t for t in by_app[app] if t.feasible and not _needs_office(t)])
        return
    runs: dict[tuple[str, str], PathRun] = {}
    with tempfile.TemporaryDirectory(prefix="asil-paths-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        with model_server(args, out):
            for app, tasks in by_app.items():
                for path in PATHS:
                    runs[(app, path)] = run_path(path, tasks, args, out / app)
    print(f"\nLibreOffice path-restriction study, agent {args.agent}"
          f"{' (' + args.model + ')' if args.model else ''}; core tasks x {args.repeats}; "
          f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}\n")
    markdown_table(["App", "Path", "Tasks", "Episodes", "Success %", "Mean steps", "Mean action latency (ms)",
                    "p50 (ms)", "Refused"], [
        [app, path, str(len(by_app[app])), str(len(run.successes)),
         f"{100 * sum(run.successes) / len(run.successes):.1f}", f"{statistics.mean(run.steps):.2f}",
         f"{statistics.mean(run.action_ms):.1f}" if run.action_ms else "-",
         f"{statistics.median(run.action_ms):.1f}" if run.action_ms else "-", ", ".join(sorted(set(run.refused))) or "-"]
        for (app, path), run in runs.items() if run.successes])
    for app in by_app:
        print(f"\n{app}:")
        print_by_kind({path: runs[(app, path)] for path in PATHS})
    for (app, path), run in runs.items():
        for failure in run.failed:
            print(f"  {app} {path}: failed {failure}")
    if args.agent == "oracle":  # references succeed on both paths unless the file path refused what they need
        unexplained = [f for run in runs.values() for f in run.failed if f.split(" ")[0] not in run.refused]
        assert not unexplained, f"reference solutions failed: {unexplained}"


if __name__ == "__main__":
    main()
