"""Agent-given paths checked against the workspace: confined, never the private area, with clear refusals."""

from __future__ import annotations

import os
from pathlib import Path

from asil.protocol import InvalidAction
from asil.workspace import PRIVATE_DIR, PathOutsideWorkspace, Workspace

HINT = "Use a path relative to the workspace root, as listed in the tree (e.g. 'docs/report.txt')."


class PathGuard:
    """Maps workspace-relative paths to absolute ones, refusing anything that leaves the workspace."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.root = workspace.root

    def locate(self, relative: str, *, root_ok: bool = False) -> Path:
        """The lexical absolute path (a final symlink is not followed); its folder must be inside the workspace."""
        text = relative  # not stripped: ' a.txt' is a legal name of its own
        if text in ("", ".", "./"):
            if root_ok:
                return self.root
            raise InvalidAction("This action cannot act on the workspace root itself.", hint=HINT)
        resolved = self.workspace.resolve(text)  # refuses '..', absolute paths, the private area, escaping links
        lexical = self.workspace.resolve(str(Path(text).parent)) / Path(text).name
        for candidate in (resolved, lexical):
            parts = candidate.relative_to(self.root).parts if candidate != self.root else ()
            if parts and parts[0] == PRIVATE_DIR:
                raise PathOutsideWorkspace(f"The path {relative!r} is reserved for ASIL itself.", hint=HINT)
        return lexical

    def relative(self, path: Path) -> str:
        return "." if path == self.root else path.relative_to(self.root).as_posix()

    def existing(self, relative: str, *, root_ok: bool = False, kind: str | None = None) -> Path:
        path = self.locate(relative, root_ok=root_ok)
        if not os.path.lexists(path):
            raise InvalidAction(f"There is no file or folder {relative!r} in the workspace.", hint=HINT,
                                code="no_such_path")
        if kind == "folder" and not (path.is_dir() and not path.is_symlink()):
            raise InvalidAction(f"{relative!r} is not a folder.", hint="Give a folder's path.", code="not_a_folder")
        if kind == "file" and not (path.is_file() and not path.is_symlink()):
            raise InvalidAction(f"{relative!r} is not a regular file.", hint="Give a file's path.", code="not_a_file")
        return path

    def free(self, path: Path, shown: str) -> Path:
        """``path`` must not exist yet and its folder must."""
        if os.path.lexists(path):
            raise InvalidAction(f"{shown!r} already exists; nothing is ever overwritten.",
                                hint="Pick another name, or move/trash the existing one first.", code="path_exists")
        if not path.parent.is_dir():
            raise InvalidAction(f"The folder of {shown!r} does not exist.", hint="Create the folder first.",
                                code="no_such_folder")
        return path

    def distinct(self, relatives: list[str], *, root_ok: bool = False) -> list[Path]:
        """Existing paths, no duplicates, none inside another."""
        paths = [self.existing(r, root_ok=root_ok) for r in relatives]
        for path, shown in zip(paths, relatives, strict=True):
            for other in paths:
                if other != path and other in path.parents:
                    raise InvalidAction(f"{shown!r} lies inside another path of the same action.",
                                        hint="Name a folder or its contents, not both.")
        if len(set(paths)) != len(paths):
            raise InvalidAction("The same path is named twice.", hint="Name each path once.")
        return paths
