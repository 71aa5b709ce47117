"""The run directory of a bench: its settings, which tasks are finished, and atomic task folders.

A task counts as finished only when ``OUT/<task_id>/result.json`` exists and validates. Task
folders are assembled in ``OUT/.asil/staging/`` and renamed into place whole, so a reader (or a
resumed run) never sees half a folder from this harness; a folder without a valid result (left
by a crash of an older writer, or by hand) is removed and its task is run again.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from asil.protocol import AsilError
from asil.runner.trace import EpisodeResult, Termination, call_totals, read_calls
from asil.tasks.model import Task
from asil.workspace import atomic_write

RUN_FILE = "run.json"
PRIVATE = ".asil"  # the harness's own scratch inside OUT: staging folders


class SettingsMismatch(AsilError):
    code = "settings_mismatch"


class RunSettings(BaseModel):
    """What makes two runs comparable; a run may only be resumed with the same settings."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    model: str | None = None
    budget: int | None = Field(None, description="step budget for every task; null = each task's own")
    ablations: list[str] = Field(default_factory=list)
    backend: str = "local"
    seed: int | None = Field(None, description="the model's sampling seed; null for agents without a model")
    hints: bool = Field(False, description="agents saw each task's success hint (asil bench --hints on)")


class RunRecord(BaseModel):
    """``OUT/run.json``: the settings plus how the run was started (informational)."""

    model_config = ConfigDict(extra="forbid")

    settings: RunSettings
    suite: str | None = None
    app: str | None = None
    tasks_dir: str | None = None
    task_ids: list[str] | None = Field(None, description="the tasks picked with --task, when any")
    workers: int = 1
    episode_timeout_s: float | None = None
    render: bool = False
    keep_final_state: bool = Field(False, description="each task folder keeps final_state.tar.gz (asil audit)")
    repeat: int | None = Field(None, description="which of --repeats N runs this is (1-based); null for a single run")
    repeats: int | None = None
    created: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


def open_run(out: Path, record: RunRecord) -> RunRecord:
    """Write ``run.json`` for a new run, or check that a resumed run has the same settings."""
    path = out / RUN_FILE
    if path.is_file():
        try:
            existing = RunRecord.model_validate_json(path.read_text(encoding="utf-8"))
        except ValidationError:
            raise SettingsMismatch(f"{path} is not a valid run record, so this folder cannot be resumed.",
                                   hint="Choose a new --out folder.") from None
        if existing.settings != record.settings:
            raise SettingsMismatch(f"{out} holds a run with different settings "
                                   f"({_differences(existing.settings, record.settings)}).",
                                   hint="Resume with the same settings or choose a new --out folder.")
        return existing
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(path, record.model_dump_json(indent=2).encode())
    return record


def _differences(old: RunSettings, new: RunSettings) -> str:
    was, now = old.model_dump(), new.model_dump()
    return ", ".join(f"{key} was {was[key]!r}, now {now[key]!r}" for key in was if was[key] != now[key])


def finished_result(out: Path, task_id: str) -> EpisodeResult | None:
    """The task's result if its folder holds a valid ``result.json`` for that task, else None."""
    path = out / task_id / "result.json"
    try:
        result = EpisodeResult.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
    return result if result.task_id == task_id else None


def plan_resume(out: Path, tasks: list[Task]) -> tuple[dict[str, EpisodeResult], list[Task]]:
    """Split tasks into finished (with results) and to-do; clear partial folders of the to-do ones."""
    shutil.rmtree(out / PRIVATE / "staging", ignore_errors=True)
    finished: dict[str, EpisodeResult] = {}
    todo: list[Task] = []
    for task in tasks:
        result = finished_result(out, task.id)
        if result is not None:
            finished[task.id] = result
            if not (out / task.id / "result.txt").is_file():  # killed between the two files
                atomic_write(out / task.id / "result.txt", f"{result.score:g}\n".encode())
            continue
        shutil.rmtree(out / task.id, ignore_errors=True)
        todo.append(task)
    return finished, todo


def commit_task_folder(out: Path, task_id: str, files: dict[str, bytes]) -> None:
    """Write a task's folder under staging, then rename it into place: it appears whole or not at all.

    The files themselves are not fsynced one by one (that was most of the harness's per-episode cost
    on a busy disk): the rename is the atomic step, and a resumed run re-validates ``result.json``, so
    a folder torn by a power cut is simply run again.
    """
    staging = out / PRIVATE / "staging" / task_id
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in sorted(files, key=lambda n: n == "result.json"):
        target = staging / name
        if target.resolve().parent != staging.resolve():
            raise ValueError(f"unexpected file name in a task folder: {name!r}")
        target.write_bytes(files[name])
    final = out / task_id
    shutil.rmtree(final, ignore_errors=True)
    os.rename(staging, final)
    _fsync_dir(out)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_task_folder(folder: Path) -> dict[str, bytes]:
    """The files of an episode folder (flat: traj.jsonl, result.*, step_N.*)."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def failure_files(task: Task, agent: str, budget: int | None, termination: Termination, reason: str,
                  elapsed_s: float, trajectory: bytes = b"", calls: bytes = b"") -> dict[str, bytes]:
    """The folder the harness writes for an episode it had to kill (timeout) or that died (crash): the steps
    and model calls it had flushed are kept, and its tokens are those of every call it made."""
    steps = sum(1 for line in trajectory.splitlines() if line.strip())
    made = read_calls(calls)
    usage = call_totals(made)
    result = EpisodeResult(task_id=task.id, suite=task.suite, apps=task.apps, domain=task.domain, agent=agent,
                           score=0.0, success=False, checkpoints=[], steps=steps, budget=task.step_budget(budget),
                           tokens=usage, time_s=round(elapsed_s, 3), termination=termination, error=reason,
                           metrics={"tokens": usage} if made else {})
    files = {"traj.jsonl": trajectory, "calls.jsonl": calls, "result.json": result.model_dump_json(indent=2).encode(),
             "result.txt": b"0\n"}
    return files


def load_results(out: Path) -> dict[str, EpisodeResult]:
    """Every valid result of a run folder, by task id (for reports)."""
    found: dict[str, EpisodeResult] = {}
    for folder in sorted(out.iterdir()) if out.is_dir() else []:
        if folder.is_dir() and not folder.name.startswith("."):
            result = finished_result(out, folder.name)
            if result is not None:
                found[result.task_id] = result
    return found


def read_record(out: Path) -> RunRecord | None:
    try:
        return RunRecord.model_validate_json((out / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None

