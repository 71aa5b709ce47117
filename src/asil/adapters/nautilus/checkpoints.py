"""Checkpoint types for the file system Nautilus manages, read from what the episode left on disk.

Targets are workspace-relative paths. The trash and bookmarks are the episode's own (in the
private area), so they are read after ``save()`` and ``close()`` without starting Nautilus.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from asil.adapters.nautilus import archives
from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.windows import load_record
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require
from asil.protocol import InvalidAction


def _path(ctx: EvalContext, cp: Checkpoint) -> Path:
    """The lexical path of ``target`` (a final symlink is not followed)."""
    target = require(cp.target, "target path")
    if target in (".", ""):
        return ctx.workspace.root
    parent = ctx.workspace.resolve(str(Path(target).parent)) if Path(target).parent != Path(".") else ctx.workspace.root
    return parent / Path(target).name


def _relative(ctx: EvalContext, cp: Checkpoint) -> str:
    return st.relative_to(ctx.workspace.root, _path(ctx, cp)) or "."


@checkpoint_type("nautilus_path_kind")
def path_kind(ctx: EvalContext, cp: Checkpoint) -> str:
    """'file', 'folder', 'symlink', 'other' or 'absent' for the path ``target``."""
    entry = st.entry(ctx.workspace.root, _relative(ctx, cp))
    return entry.kind if entry is not None else "absent"


@checkpoint_type("nautilus_path_exists")
def path_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when anything (file, folder, link) is at ``target``; expected false checks absence."""
    return os.path.lexists(_path(ctx, cp))


@checkpoint_type("nautilus_content_hash")
def content_hash(ctx: EvalContext, cp: Checkpoint) -> str:
    """The SHA-256 (hex) of the regular file at ``target``."""
    path = _path(ctx, cp)
    if path.is_symlink() or not path.is_file():
        raise CheckpointUnreadable(f"{cp.target!r} is not a regular file")
    return st.sha256(path)


@checkpoint_type("nautilus_permissions")
def permissions(ctx: EvalContext, cp: Checkpoint) -> str:
    """The octal mode of ``target`` as four digits, e.g. '0644'."""
    entry = st.entry(ctx.workspace.root, _relative(ctx, cp))
    if entry is None:
        raise CheckpointUnreadable(f"{cp.target!r} does not exist")
    return entry.mode


@checkpoint_type("nautilus_in_trash")
def in_trash(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when the trash holds an item whose original path is ``target``."""
    wanted = _relative(ctx, cp)
    return any(item.original == wanted for item in st.trash_items(ctx.workspace.root))


@checkpoint_type("nautilus_trash_count")
def trash_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many items the trash holds."""
    return len(st.trash_items(ctx.workspace.root))


@checkpoint_type("nautilus_bookmarked")
def bookmarked(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when the folder ``target`` is in the GTK bookmarks."""
    wanted = _relative(ctx, cp)
    return any(b.path == wanted for b in st.bookmarks(ctx.workspace.root))


@checkpoint_type("nautilus_bookmark_label")
def bookmark_label(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The label of the bookmark of folder ``target`` (None when it has none)."""
    wanted = _relative(ctx, cp)
    for mark in st.bookmarks(ctx.workspace.root):
        if mark.path == wanted:
            return mark.label
    raise CheckpointUnreadable(f"{cp.target!r} is not bookmarked")


@checkpoint_type("nautilus_folder_listing")
def folder_listing(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sorted names directly inside the folder ``target``."""
    path = _path(ctx, cp)
    if path.is_symlink() or not path.is_dir():
        raise CheckpointUnreadable(f"{cp.target!r} is not a folder")
    return sorted(n for n in os.listdir(path) if not (path == ctx.workspace.root and n == ".asil"))


@checkpoint_type("nautilus_archive_members")
def archive_members(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sorted member names of the .zip/.tar/.tar.gz archive at ``target`` (folders without '/')."""
    path = _path(ctx, cp)
    if not path.is_file():
        raise CheckpointUnreadable(f"{cp.target!r} is not a file")
    try:
        return archives.member_names(path)
    except InvalidAction as exc:
        raise CheckpointUnreadable(exc.message) from None


# ------------------------------------------------------------------ windows (from the record save() writes)
def _windows(ctx: EvalContext) -> list[dict[str, Any]]:
    return load_record(ctx.workspace.root)


def _window_at(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """The first window (by Nautilus's number) that showed the folder ``target`` when the episode ended."""
    wanted = _relative(ctx, cp)
    found = sorted((w for w in _windows(ctx) if w.get("location") == wanted), key=lambda w: int(w.get("window", 0)))
    if not found:
        raise CheckpointUnreadable(f"no Nautilus window showed {cp.target!r}")
    return found[0]


@checkpoint_type("nautilus_open_windows")
def open_windows(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sorted folders the open Nautilus windows showed at the end ('.' is the workspace root)."""
    return sorted(str(w.get("location")) for w in _windows(ctx))


@checkpoint_type("nautilus_window_open")
def window_open(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when a Nautilus window showed the folder ``target`` at the end."""
    wanted = _relative(ctx, cp)
    return any(w.get("location") == wanted for w in _windows(ctx))


@checkpoint_type("nautilus_window_back")
def window_back(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The back history (oldest first) of the window showing ``target``, as navigated through ASIL."""
    return [str(x) for x in _window_at(ctx, cp).get("back", [])]


@checkpoint_type("nautilus_window_forward")
def window_forward(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The forward history (nearest first) of the window showing ``target``, as navigated through ASIL."""
    return [str(x) for x in _window_at(ctx, cp).get("forward", [])]


@checkpoint_type("nautilus_window_can_go")
def window_can_go(ctx: EvalContext, cp: Checkpoint) -> dict[str, bool]:
    """Nautilus's own Back/Forward availability in the window showing ``target``: {"back": b, "forward": b}."""
    window = _window_at(ctx, cp)
    return {"back": bool(window.get("can_go_back")), "forward": bool(window.get("can_go_forward"))}


@checkpoint_type("nautilus_window_tabs")
def window_tabs(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The folders of every tab (in tab order) of the window whose shown tab is the folder ``target``."""
    window = _window_at(ctx, cp)
    return [str(x) for x in window.get("tabs") or [window.get("location")]]


@checkpoint_type("nautilus_selection")
def selection(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sorted workspace paths selected in the window showing the folder ``target``."""
    chosen = _window_at(ctx, cp).get("selection")
    if not isinstance(chosen, list):
        raise CheckpointUnreadable(f"the selection of the window showing {cp.target!r} could not be read")
    return sorted(str(x) for x in chosen)
