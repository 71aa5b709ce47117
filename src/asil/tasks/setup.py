"""Building a task's workspace: a registry of file builders, keyed by ``SetupFile.kind``."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from asil.protocol import AsilError
from asil.registry import Registry
from asil.tasks.model import SetupFile, Task
from asil.workspace import Workspace, atomic_write

Builder = Callable[[SetupFile, Task, Path], None]
FILE_BUILDERS: Registry[Builder] = Registry("setup file kind")
file_builder = FILE_BUILDERS.register


class SetupError(AsilError):
    code = "bad_setup"


def cache_dir() -> Path:
    root = Path(os.environ.get("ASIL_CACHE_DIR", Path.home() / ".cache" / "asil"))
    root.mkdir(parents=True, exist_ok=True)
    return root


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


@file_builder("asset")
def build_asset(item: SetupFile, task: Task, target: Path) -> None:
    if not item.source or task.source_dir is None:
        raise SetupError(f"Task {task.id}: asset {item.path!r} needs a 'source' beside the task file.")
    source = (task.source_dir / item.source).resolve()
    if task.source_dir.resolve() not in source.parents or not source.is_file():
        raise SetupError(f"Task {task.id}: asset source {item.source!r} is missing or outside the task folder.")
    atomic_write(target, source.read_bytes())


@file_builder("spreadsheet")
def build_spreadsheet(item: SetupFile, task: Task, target: Path) -> None:
    """Built once by LibreOffice from the sheet spec, then copied from the cache."""
    from asil.adapters.calc.adapter import create_spreadsheet

    if not isinstance(item.content, list) or not item.content:
        raise SetupError(f"Task {task.id}: spreadsheet {item.path!r} needs content: a list of sheets.")
    digest = hashlib.sha256(json.dumps(item.content, sort_keys=True).encode()).hexdigest()[:24]
    cached = cache_dir() / "spreadsheets" / f"{digest}.ods"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        create_spreadsheet(cached, item.content)
    shutil.copyfile(cached, target)


@file_builder("blend")
def build_blend_file(item: SetupFile, task: Task, target: Path) -> None:
    """Built once by a one-shot Blender from the scene spec, then copied from the cache."""
    from asil.adapters.blender.scene import cached_blend

    if not isinstance(item.content, dict):
        raise SetupError(f"Task {task.id}: blend file {item.path!r} needs content: a scene spec object.")
    shutil.copyfile(cached_blend(item.content, cache_dir()), target)


import asil.adapters.audacity.builders  # noqa: E402,F401  (registers the audio and labels builders)
import asil.adapters.codeserver.builders  # noqa: E402,F401  (registers the vsix and code-server profile builders)
import asil.adapters.gimp.builders  # noqa: E402,F401  (registers the "image" builder)
import asil.adapters.gitea.builders  # noqa: E402,F401  (registers the gitea_seed builder)
import asil.adapters.kdenlive.builders  # noqa: E402,F401  (registers the media clip and MLT project builders)
import asil.adapters.nautilus.builders  # noqa: E402,F401  (registers the file_tree builder)
import asil.adapters.obs.builders  # noqa: E402,F401  (registers the OBS collection and media builders)
import asil.adapters.thunderbird.builders  # noqa: E402,F401  (registers the maildir and contacts builders)
import asil.tasks.office_builders  # noqa: E402,F401  (registers the document and presentation builders)
