"""The independent raw validator for Nautilus tasks: plain reads of the disk, sharing no adapter code.

It lstat()s paths, hashes bytes, parses ``Trash/info/*.trashinfo`` with configparser, reads the
GTK bookmarks file line by line and lists archives with zipfile/tarfile. Windows are read from the record the
adapter's ``save()`` wrote from Nautilus itself (``windows.json``; Nautilus is gone when tasks are judged),
with the json module. The locations of the
trash and bookmarks are spelled out here on purpose (XDG layout under ``.asil/nautilus``).
Anything unreadable fails the checkpoint (fail closed).
"""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

PRIVATE = Path(".asil") / "nautilus"
TRASH = PRIVATE / "data" / "Trash"
BOOKMARKS = PRIVATE / "config" / "gtk-3.0" / "bookmarks"
WINDOWS = PRIVATE / "windows.json"
WINDOW_KINDS = ("nautilus_open_windows", "nautilus_window_open", "nautilus_window_back", "nautilus_window_forward",
                "nautilus_window_can_go", "nautilus_selection", "nautilus_window_tabs")


class RawUnreadable(Exception):
    pass


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint from a direct read of the disk; False when in doubt."""
    try:
        actual = _read(cp, Path(workspace.root))
    except (RawUnreadable, OSError, KeyError, ValueError, TypeError, configparser.Error, zipfile.BadZipFile, tarfile.TarError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _target(root: Path, cp: Checkpoint) -> Path:
    text = str(cp.target or "")
    if not text or text.startswith("/") or ".." in text.split("/"):
        raise RawUnreadable("bad target")
    return root if text == "." else root / text


def _originals(root: Path) -> list[str]:
    found = []
    for info in (root / TRASH / "info").glob("*.trashinfo"):
        if not os.path.lexists(root / TRASH / "files" / info.name[: -len(".trashinfo")]):
            continue
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(info, encoding="utf-8")
        original = Path(unquote(parser["Trash Info"]["Path"]))
        found.append(os.path.relpath(original, root))
    return found


def _marks(root: Path) -> dict[str, str | None]:
    try:
        text = (root / BOOKMARKS).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    marks: dict[str, str | None] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        uri, _, label = line.partition(" ")
        parts = urlsplit(uri)
        marks[os.path.relpath(unquote(parts.path), root)] = label or None
    return marks


def _members(path: Path) -> list[str]:
    if path.name.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    else:
        with tarfile.open(path) as tf:
            names = tf.getnames()
    return sorted({n.rstrip("/") for n in names})


def _window_read(kind: str, root: Path, cp: Checkpoint) -> Any:
    windows = json.loads((root / WINDOWS).read_text(encoding="utf-8"))["windows"]
    if kind == "nautilus_open_windows":
        return sorted(w["location"] for w in windows)
    wanted = os.path.normpath(str(cp.target or "."))
    showing = [w for w in sorted(windows, key=lambda w: w["window"]) if w["location"] == wanted]
    if kind == "nautilus_window_open":
        return bool(showing)
    if not showing:
        raise RawUnreadable("no window there")
    window = showing[0]
    if kind == "nautilus_window_back":
        return window["back"]
    if kind == "nautilus_window_forward":
        return window["forward"]
    if kind == "nautilus_window_can_go":
        return {"back": window["can_go_back"], "forward": window["can_go_forward"]}
    if kind == "nautilus_window_tabs":  # a record without tabs (a set-up's single-tab window) has one
        return list(window.get("tabs") or [window["location"]])
    if window["selection"] is None:
        raise RawUnreadable("selection unknown")
    return sorted(window["selection"])


def _read(cp: Checkpoint, root: Path) -> Any:
    kind = cp.type
    if kind in WINDOW_KINDS:
        return _window_read(kind, root, cp)
    if kind == "nautilus_trash_count":
        return len(_originals(root))
    path = _target(root, cp)
    rel = os.path.relpath(path, root)
    if kind == "nautilus_path_exists":
        return os.path.lexists(path)
    if kind == "nautilus_in_trash":
        return rel in _originals(root)
    if kind == "nautilus_bookmarked":
        return rel in _marks(root)
    if kind == "nautilus_bookmark_label":
        return _marks(root)[rel]
    if kind == "nautilus_path_kind":
        if not os.path.lexists(path):
            return "absent"
        mode = os.lstat(path).st_mode
        return {stat.S_IFLNK: "symlink", stat.S_IFDIR: "folder", stat.S_IFREG: "file"}.get(stat.S_IFMT(mode), "other")
    if kind == "nautilus_permissions":
        return format(stat.S_IMODE(os.lstat(path).st_mode), "04o")
    if kind == "nautilus_content_hash":
        if path.is_symlink():
            raise RawUnreadable("a symlink")
        return hashlib.sha256(path.read_bytes()).hexdigest()
    if kind == "nautilus_folder_listing":
        if path.is_symlink():
            raise RawUnreadable("a symlink")
        return sorted(n for n in os.listdir(path) if not (rel == "." and n == ".asil"))
    if kind == "nautilus_archive_members":
        return _members(path)
    raise RawUnreadable(f"unknown checkpoint type {kind}")
