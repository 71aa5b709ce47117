"""The fail-closed readiness report over every adapter's gates, hand-written and generated alike.

Gates, in order: ``program`` (installed), ``version`` (the program's version read), ``start_stop``
(a sample opens and closes), ``observe`` (a well-formed observation), ``actions:<function>`` (each
function ran, through a published example or a task's reference), ``render`` (a PNG, where the record
says it renders), ``raw_validator`` (it agrees with the evaluator on every checkpoint of the app's
tasks, untouched and solved) and ``tasks`` (every reference succeeds, every untouched state fails).

A gate is ``ok``, ``failed`` or ``unchecked`` (``n/a`` only for rendering an app whose record says it
does not render). An app is ready only when every gate is ``ok`` or ``n/a``: a gate that was not
checked — because an earlier one failed, or nothing exercises it — makes it not ready.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from asil.adapters.check import ConformanceError, check_adapter
from asil.adapters.generated.adapter import GeneratedAdapter, program_version
from asil.evaluate.evaluator import evaluate_paths
from asil.evaluate.raw import raw_verdict
from asil.plugins import adapter_class, app_names, plugin
from asil.protocol import Action, AsilError
from asil.runner.check import reference_env
from asil.tasks import load_tasks, prepare_workspace
from asil.tasks.model import Task
from asil.workspace import Workspace

Status = Literal["ok", "failed", "unchecked", "n/a"]
PNG = b"\x89PNG\r\n\x1a\n"


@dataclass
class Gate:
    gate: str
    status: Status
    detail: str


@dataclass
class AppReadiness:
    app: str
    pattern: str
    generated: bool
    gates: list[Gate] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return bool(self.gates) and all(g.status in ("ok", "n/a") for g in self.gates)

    def reasons(self) -> list[str]:
        return [f"{g.gate} {g.status}: {g.detail}" for g in self.gates if g.status not in ("ok", "n/a")]


def _version(name: str, detail: str) -> Gate:
    cls = adapter_class(name)
    if issubclass(cls, GeneratedAdapter):
        found = program_version(cls.bundle)
    else:
        match = re.search(r"\d+\.\d+(\.\d+)?", detail)
        found = match.group(0) if match else None
    if found is None or found == "unknown":
        return Gate("version", "unchecked", "the program's version could not be read")
    return Gate("version", "ok", found)


def invoked(actions: list[Action]) -> set[str]:
    """The functions a list of actions invokes, members of batches included."""
    names: set[str] = set()
    for action in actions:
        if action.action_type == "invoke_function":
            names.add(action.target or "")
        elif action.action_type == "batch":
            members = action.params.get("actions", [])
            names |= {str(m.get("target")) for m in members if isinstance(m, dict) and m.get("action_type") == "invoke_function"}
    return names


def _solved(task: Task, name: str) -> tuple[str | None, set[str]]:
    """None when the task is sound and the raw validator agrees throughout, else what went wrong; the functions used."""
    used = invoked(task.reference_steps())
    initial = prepare_workspace(task)
    try:
        untouched = evaluate_paths(task.evaluator.paths, initial)
        if untouched.success:
            return "the untouched state already succeeds", used
        disagreement = _disagreement(task, initial, None, None, name)
        if disagreement:
            return f"untouched state: {disagreement}", used
    finally:
        initial.cleanup()
    env = reference_env(task)
    try:
        env.reset()
        for index, action in enumerate(task.reference_steps(), start=1):
            result = env.play(action).result
            if not result.ok:
                return f"reference action {index} was {result.status}: {result.error.message if result.error else ''}", used
        evaluation = env.evaluate()
        if not evaluation.success:
            return "the reference solution fails", used
        assert env.workspace is not None
        disagreement = _disagreement(task, env.workspace, env.outcome, env.answer, name)
        return (f"solved state: {disagreement}" if disagreement else None), used
    finally:
        env.close()


def _disagreement(task: Task, workspace: Workspace, outcome: str | None, answer: str | None, name: str) -> str | None:
    evaluation = evaluate_paths(task.evaluator.paths, workspace, outcome, answer)
    for path, verdicts in zip(task.evaluator.paths, evaluation.paths, strict=False):
        for checkpoint, verdict in zip(path, verdicts.checkpoints, strict=False):
            if raw_verdict(checkpoint, workspace, outcome, answer, name) != verdict.passed:
                return f"raw validator and evaluator disagree on {checkpoint.type} {checkpoint.target}"
    return None


def assess(name: str) -> AppReadiness:
    """Every gate of one app, failing closed."""
    record = plugin(name)
    cls = adapter_class(name)
    report = AppReadiness(name, record.pattern, issubclass(cls, GeneratedAdapter))
    gates = report.gates
    readiness = cls.readiness()
    gates.append(Gate("program", "ok" if readiness.ready else "failed", readiness.detail))
    later = ["version", "start_stop", "observe", *(f"actions:{f}" for f in cls.functions.names()), "render",
             "raw_validator", "tasks"]
    if not readiness.ready:
        gates += [Gate(g, "unchecked", "the program gate failed") for g in later]
        return report
    gates.append(_version(name, readiness.detail))
    workspace = Workspace.temporary(prefix=f"asil-ready-{name}-")
    try:
        try:
            document = cls.create_sample(workspace)
            cls(workspace, document).close()
            gates.append(Gate("start_stop", "ok", f"opened and closed {document or 'a session'}"))
            check_adapter(name, workspace)
            gates.append(Gate("observe", "ok", "a well-formed observation; every published example ran"))
        except (AsilError, ConformanceError, OSError) as exc:
            failed = "start_stop" if not any(g.gate == "start_stop" for g in gates) else "observe"
            gates.append(Gate(failed, "failed", str(getattr(exc, "message", exc))))
            gates += [Gate(g, "unchecked", f"the {failed} gate failed") for g in later if g not in {x.gate for x in gates}]
            return report
        exercised = invoked(cls.action_schema().examples)
        render = _render(cls, record.render, workspace, document)
    finally:
        workspace.cleanup()
    problems, exercised_by_tasks, tasks, seconds = _run_tasks(name)
    exercised |= exercised_by_tasks
    gates += [Gate(f"actions:{f}", "ok" if f in exercised else "unchecked",
                   "ran (a published example or a task's reference)" if f in exercised else "nothing exercised it")
              for f in cls.functions.names()]
    gates.append(render)
    gates += _task_gates(record.validator is not None, tasks, problems, seconds)
    return report


def _run_tasks(name: str) -> tuple[list[str], set[str], int, float]:
    """Every single-app task of ``name`` solved and judged twice: (problems, functions used, tasks, seconds)."""
    tasks = [t for t in load_tasks(app=name) if t.apps == [name]]
    problems: list[str] = []
    exercised: set[str] = set()
    started = time.perf_counter()
    for task in tasks:
        try:
            problem, used = _solved(task, name)
        except AsilError as exc:
            problem, used = exc.message, set()
        if problem:
            problems.append(f"{task.id}: {problem}")
        else:
            exercised |= used
    return problems, exercised, len(tasks), time.perf_counter() - started


def _task_gates(has_validator: bool, tasks: int, problems: list[str], seconds: float) -> list[Gate]:
    raw_problems = [p for p in problems if "raw validator" in p]
    others = [p for p in problems if p not in raw_problems]
    if not has_validator:
        raw = Gate("raw_validator", "failed", "the app has no raw validator")
    elif not tasks:
        raw = Gate("raw_validator", "unchecked", "no task to compare it with the evaluator on")
    else:
        raw = Gate("raw_validator", "failed" if raw_problems else "ok",
                   "; ".join(raw_problems[:3]) or f"agreed with the evaluator on all {tasks} tasks")
    if not tasks:
        return [raw, Gate("tasks", "unchecked", "the app has no tasks")]
    return [raw, Gate("tasks", "failed" if others else "ok",
                      "; ".join(others[:3]) or f"{tasks} tasks sound ({seconds:.0f} s)")]


def _render(cls: type, renders: bool, workspace: Workspace, document: str | None) -> Gate:
    if not renders:
        return Gate("render", "n/a", "the app's record declares that it does not render")
    out = workspace.private("readiness.png")
    try:
        with cls(workspace, document) as adapter:
            adapter.render(out)
        ok = out.read_bytes()[:8] == PNG
    except (AsilError, NotImplementedError, OSError) as exc:
        return Gate("render", "failed", str(getattr(exc, "message", exc)))
    return Gate("render", "ok" if ok else "failed", "a PNG image" if ok else "the render is not a PNG")


def report_text(reports: list[AppReadiness]) -> str:
    lines = []
    for r in reports:
        lines.append(f"{'READY    ' if r.ready else 'NOT READY'} {r.app} ({r.pattern}{', generated' if r.generated else ''})")
        for g in r.gates:
            lines.append(f"    {g.status:<9} {g.gate}: {g.detail}")
    ready = sum(r.ready for r in reports)
    lines.append(f"{ready} of {len(reports)} apps ready")
    return "\n".join(lines) + "\n"


def write_report(folder: Path, apps: list[str] | None = None) -> list[AppReadiness]:
    """Assess ``apps`` (every app by default) and write ``readiness.json`` and ``readiness.txt`` in ``folder``."""
    reports = [assess(name) for name in (apps or app_names())]
    folder.mkdir(parents=True, exist_ok=True)
    data = {"apps": {r.app: {"ready": r.ready, "pattern": r.pattern, "generated": r.generated,
                             "reasons": r.reasons(), "gates": [asdict(g) for g in r.gates]} for r in reports}}
    (folder / "readiness.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (folder / "readiness.txt").write_text(report_text(reports), encoding="utf-8")
    return reports
