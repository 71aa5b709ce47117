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


# Generated training suites live apart from the benchmark (``asil tasks generate``): loading "all tasks" (bench,
# tasks check, the test suite) never mixes them in; they are loaded by name (``--suite train``).
TRAINING_SUITES = ("train", "val")
# The held-out hard suite (ASIL paper §4.2, Appendix A) lives apart too: never in "all tasks", never training data.
HARD_SUITE = "hard"


def builtin_root() -> Path:
    return Path(str(resources.files("asil.tasks").joinpath("suites")))


def training_root() -> Path:
    """The generated training suites shipped with ASIL: ``training/<suite>/<app>/*.json``."""
    return Path(str(resources.files("asil.tasks").joinpath("training")))


def hard_root() -> Path:
    """The held-out hard suite: ``hard/<group>/*.json`` (gimp, office, developer, files-mail, multi), photos in
    ``hard/assets/``."""
    return Path(str(resources.files("asil.tasks").joinpath("hard")))


def suite_root(suite: str | None) -> Path:
    """Where the tasks of ``suite`` live: the training root, the hard root, else the built-in suites."""
    if suite in TRAINING_SUITES:
        return training_root()
    return hard_root() if suite == HARD_SUITE else builtin_root()


def live_root() -> Path:
    """Tasks that need a service this machine cannot run (Gitea): held out like the benchmark, loaded by folder."""
    return Path(str(resources.files("asil.tasks").joinpath("live")))


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
    """All tasks under ``root`` (the built-in suites by default; the training root for ``train``/``val``, the hard
    root for ``hard``), filtered, sorted by id.

    ``suite`` may also name a band (``easy60``): the tasks its committed band file selects.
    """
    from asil.tasks.bands import BANDS, band_tasks

    if suite in BANDS:
        return [t for t in band_tasks(suite, load_tasks(root=root)) if app is None or app in t.apps]
    if root is None:
        root = suite_root(suite)
    if not root.is_dir():
        return []
    tasks = [load_task_file(p) for p in task_files(root)]
    seen: dict[str, Path] = {}
    for task in tasks:
        if task.id in seen:
            raise TaskError(f"Task id {task.id!r} is used twice (in {seen[task.id]} and {task.source_dir}).")
        seen[task.id] = task.source_dir or root
    chosen = [t for t in tasks if (suite is None or t.suite == suite) and (app is None or app in t.apps)]
    return sorted(chosen, key=lambda t: t.id)


def get_task(task_id: str, root: Path | None = None) -> Task:
    """A task by id: under ``root``, else among the built-in suites, then the training suites, then the hard suite."""
    roots = [root] if root is not None else [builtin_root(), training_root(), hard_root()]
    for folder in roots:
        for task in load_tasks(root=folder):
            if task.id == task_id:
                return task
    raise TaskError(f"There is no task {task_id!r}.", hint="List tasks with: asil tasks list")
