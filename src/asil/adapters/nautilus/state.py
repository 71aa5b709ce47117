"""Reading the file-system state the adapter manages: the workspace tree, the trash, the bookmarks.

The adapter's observation and its checkpoints read through here; the raw validator has its own,
separate reader. Paths are workspace-relative POSIX strings; the private area is never listed.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from asil.adapters.nautilus.layout import bookmarks_file, trash_folder
from asil.workspace import PRIVATE_DIR


@dataclass(frozen=True)
class Entry:
    path: str
    kind: str  # file | folder | symlink | other
    size: int
    mode: str  # "0644"
    mtime: str  # ISO 8601, UTC, seconds


@dataclass(frozen=True)
class TrashItem:
    name: str  # the entry's name in Trash/files (its id)
    original: str  # workspace-relative original path ("" when it came from outside the workspace)
    deleted: str
    kind: str


@dataclass(frozen=True)
class Bookmark:
    path: str  # workspace-relative folder ("" when outside the workspace)
    uri: str
    label: str | None


def kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "folder"
    return "file" if stat.S_ISREG(mode) else "other"


def entry(root: Path, relative: str) -> Entry | None:
    try:
        info = os.lstat(root / relative)
    except OSError:
        return None
    return Entry(relative, kind_of(info.st_mode), info.st_size, f"{stat.S_IMODE(info.st_mode):04o}",
                 time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(info.st_mtime)))


def walk(root: Path, folder: str = "") -> list[str]:
    """Every path under ``folder`` (depth first, names sorted), the private area left out; symlinks not followed."""
    found: list[str] = []
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(root / current) as it:
                children = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in it)
        except OSError:
            continue
        subfolders = []
        for name, is_dir in children:
            if not current and name == PRIVATE_DIR:
                continue
            path = f"{current}/{name}" if current else name
            found.append(path)
            if is_dir:
                subfolders.append(path)
        stack.extend(reversed(subfolders))
    return _depth_first(found)


def _depth_first(paths: list[str]) -> list[str]:
    """Order so each folder is followed by its contents (sorting by path components)."""
    return sorted(paths, key=lambda p: p.split("/"))


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_uri(path: Path) -> str:
    return "file://" + quote(str(path))


def uri_path(uri: str) -> Path | None:
    parts = urlsplit(uri)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def relative_to(root: Path, absolute: Path | None) -> str:
    """``absolute`` as a workspace-relative path ('.' for the root), '' when outside it (or the private area)."""
    if absolute is None:
        return ""
    try:
        rel = absolute.relative_to(root)
    except ValueError:
        return ""
    text = rel.as_posix()
    return "" if text.split("/")[0] == PRIVATE_DIR else text


def trash_items(root: Path) -> list[TrashItem]:
    """What is in the episode's trash, read from ``info/*.trashinfo`` (newest deletion first)."""
    folder = trash_folder(root)
    items = []
    for info in sorted((folder / "info").glob("*.trashinfo")):
        name = info.name.removesuffix(".trashinfo")
        fields = _trashinfo(info)
        original = Path(unquote(fields.get("Path", "")))
        kept = folder / "files" / name
        try:
            kind = kind_of(os.lstat(kept).st_mode)
        except OSError:
            continue  # an info file without its file: not a restorable item
        items.append(TrashItem(name, relative_to(root, original), fields.get("DeletionDate", ""), kind))
    return sorted(items, key=lambda i: (i.deleted, i.name), reverse=True)


def _trashinfo(path: Path) -> dict[str, str]:
    fields: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return fields
    for line in lines:
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def bookmarks(root: Path) -> list[Bookmark]:
    """The GTK bookmarks of the session (``file:///folder Label`` per line)."""
    try:
        lines = bookmarks_file(root).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        uri, _, label = line.strip().partition(" ")
        if uri:
            found.append(Bookmark(relative_to(root, uri_path(uri)), uri, label or None))
    return found


def write_bookmarks(root: Path, marks: list[Bookmark]) -> None:
    from asil.workspace import atomic_write

    text = "".join(f"{b.uri} {b.label}\n" if b.label else f"{b.uri}\n" for b in marks)
    atomic_write(bookmarks_file(root), text.encode("utf-8"))


def signature(path: Path) -> list[tuple[str, int]]:
    """(relative path, size) of every file under ``path`` (or of the file itself): 'a copy is complete'."""
    if not path.is_dir() or path.is_symlink():
        try:
            return [("", os.lstat(path).st_size)]
        except OSError:
            return []
    found = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files) + dirs:
            full = Path(folder, name)
            found.append((full.relative_to(path).as_posix(), 0 if name in dirs else os.lstat(full).st_size))
    return found
