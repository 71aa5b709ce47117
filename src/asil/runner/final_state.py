"""An episode's final state kept for audits: ``final_state.tar.gz`` in the task's result folder.

The archive holds the workspace's files as the evaluator judged them (after every adapter saved) under
``workspace/``, and ``episode.json``: the task as it was run (so an audit needs no task files) and the
episode's outcome and answer, which generic checkpoints read. ``asil audit`` (asil.runner.audit) runs
the raw validators on it.
"""

from __future__ import annotations

import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from asil.tasks.model import Task
from asil.workspace import Workspace, atomic_write

ARCHIVE = "final_state.tar.gz"
FILES = "workspace"
EPISODE = "episode.json"


@dataclass
class FinalState:
    task: Task
    outcome: str | None
    answer: str | None
    workspace: Workspace


def archive_final_state(workspace: Workspace, task: Task, outcome: str | None, answer: str | None,
                        target: Path) -> None:
    """Write the workspace's files (not ASIL's private folder) and the episode's ending to ``target``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for relative in workspace.files():
            tar.add(workspace.root / relative, arcname=f"{FILES}/{relative}", recursive=False)
        meta = json.dumps({"task": task.model_dump(mode="json"), "outcome": outcome, "answer": answer}).encode()
        info = tarfile.TarInfo(EPISODE)
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
    atomic_write(target, buffer.getvalue())


def open_final_state(archive: Path, into: Path) -> FinalState:
    """Unpack ``archive`` into the empty folder ``into``; the workspace is ``into/workspace``.

    Only regular files under ``workspace/`` and ``episode.json`` are taken (the ``data`` filter refuses
    links and paths that leave the folder), so a hand-edited archive cannot write elsewhere.
    """
    with tarfile.open(archive, mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and (
            m.name == EPISODE or PurePosixPath(m.name).parts[:1] == (FILES,))]
        tar.extractall(into, members=members, filter="data")
    meta = json.loads((into / EPISODE).read_text(encoding="utf-8"))
    (into / FILES).mkdir(exist_ok=True)
    return FinalState(Task.model_validate(meta["task"]), meta.get("outcome"), meta.get("answer"),
                      Workspace(into / FILES))
