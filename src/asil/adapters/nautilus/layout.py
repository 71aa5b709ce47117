"""Where the Nautilus session keeps its state inside the workspace's private area.

HOME and the XDG folders of the private Nautilus live in ``<workspace>/.asil/nautilus``, so the
GIO trash (``data/Trash``) and the GTK bookmarks file (``config/gtk-3.0/bookmarks``) belong to
the episode and survive ``close()`` for the evaluator. Agents never see or name this folder.
"""

from __future__ import annotations

from pathlib import Path

from asil.workspace import PRIVATE_DIR, Workspace

SESSION_DIR = "nautilus"


def session_folder(root: Path) -> Path:
    return root / PRIVATE_DIR / SESSION_DIR


def trash_folder(root: Path) -> Path:
    return session_folder(root) / "data" / "Trash"


def bookmarks_file(root: Path) -> Path:
    return session_folder(root) / "config" / "gtk-3.0" / "bookmarks"


def ensure_layout(workspace: Workspace) -> Path:
    """Create the session folder, an empty trash and the bookmarks folder; return the session folder."""
    root = workspace.root
    for folder in (trash_folder(root) / "files", trash_folder(root) / "info", bookmarks_file(root).parent):
        folder.mkdir(parents=True, exist_ok=True)
    return session_folder(root)
