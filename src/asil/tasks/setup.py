"""Building a task's workspace: a registry of file builders, keyed by ``SetupFile.kind``.

``text`` and ``asset`` are built here; every other kind is built by the app that owns it, as its
plugin record declares (``AppPlugin.builders``), and is imported the first time a task needs it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.plugins import app_builders
from asil.protocol import AsilError
from asil.registry import Registry
from asil.tasks.model import SetupFile, Task
from asil.workspace import Workspace, atomic_write, cache_dir

Builder = Callable[[SetupFile, Task, Path], None]


def _declare_app_builders() -> None:
    for kind, target in app_builders().items():
        FILE_BUILDERS.declare(kind, target, replace=False)


FILE_BUILDERS: Registry[Builder] = Registry("setup file kind", discover=_declare_app_builders)
file_builder = FILE_BUILDERS.register


class SetupError(AsilError):
    code = "bad_setup"


def cached_build(item: SetupFile, task: Task, folder: str, suffix: str, create: Callable[[Path, Any], None],
                 content_type: type = dict) -> Path:
    """The file ``create(path, item.content)`` makes, built once per distinct content and kept in the cache.

    ``content_type`` is what ``item.content`` must be (a dict or a list), checked before anything is built.
    """
    if not isinstance(item.content, content_type) or not item.content:
        what = "an object" if content_type is dict else "a list"
        raise SetupError(f"Task {task.id}: {item.kind} {item.path!r} needs content: {what} (see the builder's docs).")
    digest = hashlib.sha256(json.dumps(item.content, sort_keys=True).encode()).hexdigest()[:24]
    cached = cache_dir() / folder / f"{digest}{suffix}"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        create(cached, item.content)
    return cached


def prepare_workspace(task: Task, workspace: Workspace | None = None) -> Workspace:
    """Create (or fill) an isolated workspace holding the task's initial files."""
    workspace = workspace or Workspace.temporary(prefix=f"asil-{task.id}-")
    for item in task.setup.files:
        builder = FILE_BUILDERS.get(item.kind)
        if builder is None:
            raise SetupError(f"Task {task.id}: unknown setup file kind {item.kind!r}.",
                             hint=f"Known kinds: {', '.join(sorted(FILE_BUILDERS))}.")
        target = workspace.resolve(item.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        builder(item, task, target)
    return workspace


@file_builder("text")
def build_text(item: SetupFile, task: Task, target: Path) -> None:
    atomic_write(target, str(item.content or "").encode("utf-8"))


def asset_source(task: Task, source: str | None, what: str) -> Path:
    """The file ``source`` names, relative to the task file: inside the task's folder, or inside the ``assets/``
    folder beside it (a suite's shared photos, e.g. ``hard/assets/`` for ``hard/gimp/*.json``)."""
    if not source or task.source_dir is None:
        raise SetupError(f"Task {task.id}: {what} needs a 'source' beside the task file.")
    folder = task.source_dir.resolve()
    path = (folder / source).resolve()
    allowed = (folder, folder.parent / "assets")
    if not any(root in path.parents for root in allowed) or not path.is_file():
        raise SetupError(f"Task {task.id}: {what} source {source!r} is missing or outside the task folder "
                         "(and its sibling assets/ folder).")
    return path


@file_builder("asset")
def build_asset(item: SetupFile, task: Task, target: Path) -> None:
    atomic_write(target, asset_source(task, item.source, f"asset {item.path!r}").read_bytes())
