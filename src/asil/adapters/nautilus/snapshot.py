"""Snapshots of the paths an action may touch, so a failed action or batch leaves them as they were.

Before each step of an action the adapter names the paths it may change (sources, destinations,
the trash folder, the bookmarks file). Each is copied once into the private area (or noted as
absent). ``restore`` puts every one back in reverse order: what is there now is removed and the
copy is renamed into place, so the file system is exactly as before the action or batch.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path


def remove(path: Path) -> None:
    """Delete a file, symlink or folder tree at ``path`` if anything is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def duplicate(source: Path, target: Path) -> None:
    """Copy a file, symlink or tree with modes and times; symlinks stay symlinks."""
    if source.is_symlink():
        os.symlink(os.readlink(source), target)
    elif source.is_dir():
        shutil.copytree(source, target, symlinks=True)
        shutil.copystat(source, target)
    else:
        shutil.copy2(source, target)


class Snapshot:
    """The saved state of some paths; ``restore`` brings them back, ``discard`` forgets them."""

    def __init__(self, scratch: Path):
        self.folder = scratch / f"snapshot-{uuid.uuid4().hex[:12]}"
        self.saved: list[tuple[Path, Path | None]] = []
        self._seen: set[Path] = set()

    def add(self, paths: list[Path]) -> None:
        for path in paths:
            if path in self._seen or any(parent in self._seen for parent in path.parents):
                continue  # already covered by a saved ancestor or an earlier step
            self._seen.add(path)
            copy: Path | None = None
            if os.path.lexists(path):
                self.folder.mkdir(parents=True, exist_ok=True)
                copy = self.folder / str(len(self.saved))
                duplicate(path, copy)
            self.saved.append((path, copy))

    def restore(self) -> None:
        for path, copy in reversed(self.saved):
            remove(path)
            if copy is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                os.rename(copy, path)
        self.discard()

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.saved.clear()
        self._seen.clear()
