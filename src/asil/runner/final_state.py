"""An episode's final state kept for audits: ``final_state.tar.gz`` in the task's result folder.

The archive holds ``episode.json`` (the task as it was run, so an audit needs no task files, and the
episode's outcome and answer, which generic checkpoints read) and, under ``workspace/``, the workspace as
the evaluator judged it (after every adapter saved): its folders too (an empty Maildir ``cur/`` is state)
and ASIL's private folder, where service apps keep state their raw validators read (code-server's
profile, for one), except the apps' ``scratch`` paths (a program's own working files, such as
Thunderbird's profile), so the archive stays compact. ``asil audit`` (asil.runner.audit) runs
the raw validators on it.
"""

from __future__ import annotations

import io
import json
import tarfile
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from asil.plugins import APPS, plugin
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
    """Write the workspace (files, folders, links; not the apps' scratch) and the episode's ending to ``target``."""
    scratch = [f"{FILES}/{pattern}" for app in task.apps if app in APPS for pattern in plugin(app).scratch]

    def keep(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
        if any(fnmatch(member.name, pattern) for pattern in scratch):
            return None  # tar.add does not descend into a folder left out here
        return member if member.isfile() or member.isdir() or member.issym() else None  # no sockets or pipes

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for entry in sorted(workspace.root.iterdir()):
            tar.add(entry, arcname=f"{FILES}/{entry.name}", filter=keep)
        meta = json.dumps({"task": task.model_dump(mode="json"), "outcome": outcome, "answer": answer}).encode()
        info = tarfile.TarInfo(EPISODE)
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
    atomic_write(target, buffer.getvalue())


def open_final_state(archive: Path, into: Path) -> FinalState:
    """Unpack ``archive`` into the empty folder ``into``; the workspace is ``into/workspace``.

    Only ``episode.json`` and what is under ``workspace/`` are taken, and the ``data`` filter refuses links
    and paths that leave the folder, so a hand-edited archive cannot write elsewhere.
    """
    with tarfile.open(archive, mode="r:gz") as tar:
        members = [m for m in tar.getmembers() if m.name == EPISODE or PurePosixPath(m.name).parts[:1] == (FILES,)]
        tar.extractall(into, members=members, filter="data")
    meta = json.loads((into / EPISODE).read_text(encoding="utf-8"))
    (into / FILES).mkdir(exist_ok=True)
    return FinalState(Task.model_validate(meta["task"]), meta.get("outcome"), meta.get("answer"),
                      Workspace(into / FILES))
