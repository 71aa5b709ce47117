"""The ``file_tree`` setup builder: a folder tree from a JSON spec, plus a seeded trash and bookmarks.

Spec (``content`` of the setup file, whose ``path`` is the folder the tree is built in)::

    {"entries": [{"path": "docs/a.txt", "content": "text", "mode": "0600"},
                 {"path": "empty", "folder": true, "mode": "0755"},
                 {"path": "many", "folder": true, "files": 100},       # 100 small generated files
                 {"path": "b.tar.gz", "archive": {"b/x.txt": "x"}}],   # a .zip/.tar/.tar.gz of text files
     "trash": [{"path": "old/notes.txt", "content": "..."}],           # already in the trash
     "bookmarks": [{"path": "docs", "label": "Docs"}],
     "windows": [{"path": "docs", "back": ["."], "forward": [], "selection": ["docs/a.txt"],
                  "tabs": ["docs", "music"]}]}                          # optional: every tab, 'path' the shown one

``trash``, ``bookmarks`` and ``windows`` need the setup path '.', because they live in the workspace's
private area beside the tree. ``windows`` are Nautilus windows open when the task starts: each shows the
folder ``path``, with the back (oldest first) and forward (nearest first) history and the selection given;
the adapter opens them in Nautilus (walking each through its history) on its first observation. ``tabs``
lists the window's tabs in order (it must hold ``path``, the shown tab, whose history back/forward are);
the other tabs start without history.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
import time
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from asil.adapters.nautilus.layout import bookmarks_file, session_folder, trash_folder
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import PRIVATE_DIR

# Every built file, folder and trash entry carries this time (2026-01-01 00:00:00 UTC), so a task's
# workspace - and so its first observation, which shows modification times - is the same on every reset.
SETUP_TIME = 1767225600


def _safe(task: Task, relative: Any) -> PurePosixPath:
    path = PurePosixPath(str(relative))
    if not str(relative) or path.is_absolute() or ".." in path.parts or path.parts[0] == PRIVATE_DIR:
        raise SetupError(f"Task {task.id}: file_tree path {relative!r} must stay inside the tree.")
    return path


def _place(task: Task, root: Path, spec: dict[str, Any]) -> Path:
    target = root.joinpath(*_safe(task, spec["path"]).parts)
    if "archive" in spec:
        _archive(target, spec["archive"])
    elif spec.get("folder"):
        target.mkdir(parents=True, exist_ok=True)
        for number in range(int(spec.get("files", 0))):
            (target / f"file_{number:05d}.txt").write_text(f"generated file {number}\n", encoding="utf-8")
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(str(spec.get("content", "")), encoding="utf-8")
    if "mode" in spec:
        target.chmod(int(str(spec["mode"]), 8))
    return target


def _archive(target: Path, members: dict[str, str]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.name.lower().endswith(".zip"):
        with zipfile.ZipFile(target, "w") as zf:
            for name, text in members.items():
                zf.writestr(name, text)
        return
    with tarfile.open(target, "w:gz") if target.name.lower().endswith(("gz", "tgz")) else tarfile.open(target, "w") as tf:
        for name, text in members.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, SETUP_TIME
            tf.addfile(info, io.BytesIO(data))


def build_tree(spec: dict[str, Any], root: Path, task: Task, at_workspace_root: bool = True) -> None:
    """Create the spec's entries under ``root``; seed the trash and bookmarks of a workspace root."""
    for item in spec.get("entries", []):
        _place(task, root, item)
    if (spec.get("trash") or spec.get("bookmarks") or spec.get("windows")) and not at_workspace_root:
        raise SetupError(f"Task {task.id}: a file_tree with trash, bookmarks or windows must be built at path '.'.")
    trash = trash_folder(root)
    for number, item in enumerate(spec.get("trash", [])):
        (trash / "files").mkdir(parents=True, exist_ok=True)
        (trash / "info").mkdir(parents=True, exist_ok=True)
        kept = _place(task, trash / "files", {**item, "path": PurePosixPath(str(item["path"])).name})
        original = root.joinpath(*_safe(task, item["path"]).parts)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(SETUP_TIME + number))
        (trash / "info" / f"{kept.name}.trashinfo").write_text(
            f"[Trash Info]\nPath={quote(str(original))}\nDeletionDate={stamp}\n", encoding="utf-8")
    if spec.get("bookmarks"):
        lines = []
        for mark in spec["bookmarks"]:
            folder = root if mark["path"] == "." else root.joinpath(*_safe(task, mark["path"]).parts)
            lines.append(f"file://{quote(str(folder))}" + (f" {mark['label']}" if mark.get("label") else ""))
        bookmarks_file(root).parent.mkdir(parents=True, exist_ok=True)
        bookmarks_file(root).write_text("\n".join(lines) + "\n", encoding="utf-8")
    if spec.get("windows"):
        _windows(task, root, spec["windows"])
    _stamp(root)


def _windows(task: Task, root: Path, specs: list[dict[str, Any]]) -> None:
    """The windows record the adapter reopens: the same shape ``save()`` writes."""
    def folder(value: Any) -> str:
        return "." if str(value) in (".", "") else str(_safe(task, value))

    windows = []
    for number, spec in enumerate(specs, start=1):
        back, forward = [folder(x) for x in spec.get("back", [])], [folder(x) for x in spec.get("forward", [])]
        shown = folder(spec["path"])
        tabs = [folder(x) for x in spec.get("tabs", [])] or [shown]
        if shown not in tabs:
            raise SetupError(f"Task {task.id}: window {number} shows {shown!r}, which is not one of its tabs.")
        active = tabs.index(shown)
        windows.append({"window": number, "location": shown, "can_go_back": bool(back),
                        "can_go_forward": bool(forward), "back": back, "forward": forward,
                        "selection": [str(_safe(task, x)) for x in spec.get("selection", [])], "tabs": tabs,
                        "active_tab": active, "history_complete": True,
                        "tab_history": [{"back": back, "forward": forward} if index == active else
                                        {"back": [], "forward": []} for index in range(len(tabs))]})
    record = session_folder(root) / "windows.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"windows": windows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _stamp(root: Path) -> None:
    """Give everything under ``root`` (the trash included, symlinks themselves) the fixed setup time."""
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):  # children before folders
        os.utime(path, (SETUP_TIME, SETUP_TIME), follow_symlinks=False)


def build_file_tree(item: SetupFile, task: Task, target: Path) -> None:
    if not isinstance(item.content, dict):
        raise SetupError(f"Task {task.id}: file_tree {item.path!r} needs content: an object with 'entries'.")
    target.mkdir(parents=True, exist_ok=True)
    build_tree(item.content, target, task, at_workspace_root=PurePosixPath(item.path) == PurePosixPath("."))
