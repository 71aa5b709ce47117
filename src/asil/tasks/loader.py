"""Loading tasks: the built-in suites are package data; users may add folders of their own."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from asil.protocol import AsilError
from asil.tasks.model import Task


class TaskError(AsilError):
    code = "bad_task"


def builtin_root() -> Path:
    return Path(str(resources.files("asil.tasks").joinpath("suites")))


def task_files(root: Path) -> list[Path]:
    """The task files under ``root``, sorted; files under an assets/ folder are task inputs, not tasks."""
    return [p for p in sorted(root.rglob("*.json")) if "assets" not in p.relative_to(root).parts]


def load_task_file(path: Path) -> Task:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        task = Task.model_validate(data)
    except json.JSONDecodeError as exc:
        raise TaskError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}).") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise TaskError(f"{path}: field {where!r} is wrong: {first['msg']}.") from None
    task.source_dir = path.parent
    return task


def load_tasks(suite: str | None = None, app: str | None = None, root: Path | None = None) -> list[Task]:
    """All tasks under ``root`` (the built-in suites by default), filtered, sorted by id.

    ``suite`` may also name a band (``easy60``): the tasks its committed band file selects.
    """
    from asil.tasks.bands import BANDS, band_tasks

    if suite in BANDS:
        return [t for t in band_tasks(suite, load_tasks(root=root)) if app is None or app in t.apps]
    root = root or builtin_root()
    tasks = [load_task_file(p) for p in task_files(root)]
    seen: dict[str, Path] = {}
    for task in tasks:
        if task.id in seen:
            raise TaskError(f"Task id {task.id!r} is used twice (in {seen[task.id]} and {task.source_dir}).")
        seen[task.id] = task.source_dir or root
    chosen = [t for t in tasks if (suite is None or t.suite == suite) and (app is None or app in t.apps)]
    return sorted(chosen, key=lambda t: t.id)


def get_task(task_id: str, root: Path | None = None) -> Task:
    for task in load_tasks(root=root):
        if task.id == task_id:
            return task
    raise TaskError(f"There is no task {task_id!r}.", hint="List tasks with: asil tasks list")
