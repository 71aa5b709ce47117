"""The Nautilus functions, each declared with what it does: a check against the current state (naming
the paths it may touch) and the work itself. File operations go through Nautilus over D-Bus; the rest (new files, restore,
permanent deletion, archives, modes, bookmarks) through the file system, following the same
FreeDesktop formats Nautilus uses, because Nautilus offers no D-Bus method for them (or asks for
confirmation in a dialog).

Nautilus answers a D-Bus call as soon as it has *queued* the job, so every Nautilus operation
waits until the file system shows the finished result (with a timeout).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.nautilus import actions as act
from asil.adapters.nautilus import archives
from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.layout import bookmarks_file, trash_folder
from asil.adapters.nautilus.paths import PathGuard
from asil.adapters.nautilus.snapshot import remove
from asil.adapters.nautilus.windows import WindowKeeper
from asil.adapters.params import NoParams, Params
from asil.apps.nautilus import FILE_MANAGER, FILE_OPS, NautilusLost, NautilusSession
from asil.protocol import ActionFailed, InvalidAction


class Context(Protocol):
    """What an operation needs from the adapter."""

    guard: PathGuard
    op_timeout_s: float
    windows: WindowKeeper  # the open windows and ASIL's record of their history

    def nautilus(self) -> NautilusSession: ...


Check = Callable[[Context, Any], list[Path]]  # raise InvalidAction; return the paths it may change
Apply = Callable[[Context, Any], list[str]]  # do it; return changed element ids


@dataclass(frozen=True)
class Operation:
    """What a function does: a check against the current state, then the work."""

    check: Check
    apply: Apply


FUNCTIONS: FunctionTable[Operation] = FunctionTable("Nautilus")


def operation(name: str, params: type[Params], description: str, *, check: Check,
              **options: Any) -> Callable[[Apply], Apply]:
    """Declare the function ``name``: ``check``, then the decorated ``apply``, as its operation."""

    def wrap(apply: Apply) -> Apply:
        FUNCTIONS.add(name, AppFunction(name, params, description, handler=Operation(check, apply), **options))
        return apply

    return wrap


def wait_for(ctx: Context, done: Callable[[], bool], what: str,
             again: Callable[[], None] | None = None, every_s: float = 1.0) -> None:
    """Poll the file system until ``done``; ActionFailed (Nautilus stopped) when time runs out.
    ``again``, if given, repeats the request every ``every_s`` seconds while it is not done."""
    session = ctx.nautilus()
    deadline = time.monotonic() + ctx.op_timeout_s
    next_ask = time.monotonic() + every_s
    while not done():
        if again is not None and time.monotonic() > next_ask:
            again()
            next_ask = time.monotonic() + every_s
        if not session.alive:
            session.stop()
            raise NautilusLost(f"Nautilus died while it was to {what}.", hint="The next action starts a fresh Nautilus.")
        if time.monotonic() > deadline:
            session.stop()  # most likely a dialog is waiting for a click no one will make
            raise ActionFailed(f"Nautilus did not {what} within {ctx.op_timeout_s:g} s; it was stopped.",
                               hint="Check that the paths are readable and writable.", code="operation_timeout")
        time.sleep(0.003)


def uri(path: Path) -> str:
    return st.file_uri(path)


# ------------------------------------------------------------------ create
def _check_create(ctx: Context, p: Any) -> list[Path]:
    return [ctx.guard.free(ctx.guard.locate(p.path), p.path)]


@operation("create_file", act.CreateFile, "Create a new file with text content (optional mode); its folder must exist.",
           check=_check_create, acts_on="file")
def create_file(ctx: Context, p: act.CreateFile) -> list[str]:
    from asil.workspace import atomic_write

    path = ctx.guard.locate(p.path)
    atomic_write(path, p.content.encode("utf-8"))
    path.chmod(int(p.mode, 8) if p.mode else 0o644)
    return [ctx.guard.relative(path)]


@operation("create_folder", act.PathOnly, "Create a new folder (Nautilus); its parent must exist.",
           check=_check_create, acts_on="folder")
def create_folder(ctx: Context, p: act.PathOnly) -> list[str]:
    path = ctx.guard.locate(p.path)
    ctx.nautilus().call(FILE_OPS, "CreateFolder", "ssa{sv}", (uri(path.parent), path.name, {}))
    wait_for(ctx, path.is_dir, f"create the folder {p.path!r}")
    return [ctx.guard.relative(path)]


# ------------------------------------------------------------------ copy, move, rename
def _targets(ctx: Context, p: act.Transfer) -> tuple[list[Path], list[Path]]:
    sources = ctx.guard.distinct(p.sources)
    folder = ctx.guard.existing(p.destination, root_ok=True, kind="folder")
    targets = []
    for source, shown in zip(sources, p.sources, strict=True):
        if source == folder or source in folder.parents:
            raise InvalidAction(f"{shown!r} cannot go into itself ({p.destination!r}).",
                                hint="Pick a destination outside the folder.")
        target = folder / source.name
        ctx.guard.free(target, ctx.guard.relative(target))
        targets.append(target)
    if len({t.name for t in targets}) != len(targets):
        raise InvalidAction("Two sources have the same name.", hint="Copy or move them one at a time.")
    return sources, targets


def _check_copy(ctx: Context, p: act.Transfer) -> list[Path]:
    return _targets(ctx, p)[1]


def _check_move(ctx: Context, p: act.Transfer) -> list[Path]:
    sources, targets = _targets(ctx, p)
    return sources + targets


def _transfer(ctx: Context, p: act.Transfer, method: str) -> list[str]:
    sources, targets = _targets(ctx, p)
    expected = [st.signature(s) for s in sources]
    ctx.nautilus().call(FILE_OPS, method, "assa{sv}", ([uri(s) for s in sources], uri(targets[0].parent), {}))
    moving = method == "MoveURIs"

    def finished() -> bool:
        if moving and any(os.path.lexists(s) for s in sources):
            return False
        return all(st.signature(t) == sig for t, sig in zip(targets, expected, strict=True))

    wait_for(ctx, finished, f"{'move' if moving else 'copy'} {', '.join(p.sources)}")
    changed = [ctx.guard.relative(t) for t in targets]
    return changed + ([ctx.guard.relative(s) for s in sources] if moving else [])


@operation("copy", act.Transfer, "Copy files/folders into an existing folder (Nautilus); names must be free there.",
           check=_check_copy, acts_on="paths")
def copy(ctx: Context, p: act.Transfer) -> list[str]:
    return _transfer(ctx, p, "CopyURIs")


@operation("move", act.Transfer, "Move files/folders into an existing folder (Nautilus); names must be free there.",
           check=_check_move, acts_on="paths")
def move(ctx: Context, p: act.Transfer) -> list[str]:
    return _transfer(ctx, p, "MoveURIs")


def _renamed(ctx: Context, p: act.Rename) -> tuple[Path, Path]:
    if p.new_name in (".", ".."):
        raise InvalidAction(f"{p.new_name!r} is not a file name.", hint="Give a plain name such as 'report.txt'.")
    path = ctx.guard.existing(p.path)
    shown = str(Path(p.path).parent / p.new_name)
    target = ctx.guard.locate(shown)
    if target != path:
        ctx.guard.free(target, shown)
    return path, target


def _check_rename(ctx: Context, p: act.Rename) -> list[Path]:
    return list(_renamed(ctx, p))


@operation("rename", act.Rename, "Rename a file or folder in place (Nautilus).",
           check=_check_rename, acts_on="paths")
def rename(ctx: Context, p: act.Rename) -> list[str]:
    path, target = _renamed(ctx, p)
    if path == target:
        return []
    ctx.nautilus().call(FILE_OPS, "RenameURI", "ssa{sv}", (uri(path), p.new_name, {}))
    wait_for(ctx, lambda: os.path.lexists(target) and not os.path.lexists(path), f"rename {p.path!r}")
    return [ctx.guard.relative(path), ctx.guard.relative(target)]


# ------------------------------------------------------------------ trash
def _check_trash(ctx: Context, p: act.PathList) -> list[Path]:
    return [*ctx.guard.distinct(p.paths), trash_folder(ctx.guard.root)]


@operation("trash", act.PathList, "Move files/folders to the trash (Nautilus); they can be restored.",
           check=_check_trash, acts_on="trash")
def trash(ctx: Context, p: act.PathList) -> list[str]:
    paths = ctx.guard.distinct(p.paths)
    before = {i.name for i in st.trash_items(ctx.guard.root)}
    ctx.nautilus().call(FILE_OPS, "TrashURIs", "asa{sv}", ([uri(x) for x in paths], {}))

    def finished() -> bool:
        return not any(os.path.lexists(x) for x in paths) and len(st.trash_items(ctx.guard.root)) >= len(before) + len(paths)

    wait_for(ctx, finished, f"trash {', '.join(p.paths)}")
    added = [f"trash:{i.name}" for i in st.trash_items(ctx.guard.root) if i.name not in before]
    return [ctx.guard.relative(x) for x in paths] + added


def _trash_item(ctx: Context, p: act.Restore) -> tuple[st.TrashItem, Path]:
    items = st.trash_items(ctx.guard.root)
    if p.item is not None:
        found = [i for i in items if i.name == p.item]
        what = f"trash item {p.item!r}"
    else:
        wanted = ctx.guard.relative(ctx.guard.locate(str(p.path)))
        found = [i for i in items if i.original == wanted][:1]  # the newest deletion first
        what = f"trashed item with original path {p.path!r}"
    if not found:
        shown = ", ".join(f"{i.name} ({i.original})" for i in items[:10]) or "the trash is empty"
        raise InvalidAction(f"There is no {what}.", hint=f"In the trash: {shown}.", code="not_in_trash")
    item = found[0]
    if not item.original:
        raise InvalidAction(f"Trash item {item.name!r} did not come from this workspace.",
                            hint="Only items trashed from the workspace can be restored.")
    target = ctx.guard.locate(item.original)
    if os.path.lexists(target):
        raise InvalidAction(f"{item.original!r} exists again, so the trashed item cannot go back there.",
                            hint="Move or rename the file that is there now, then restore.", code="path_exists")
    return item, target


def _first_missing(path: Path) -> Path:
    """The highest ancestor of ``path`` (or itself) that does not exist: what a restore creates."""
    while not path.parent.exists():
        path = path.parent
    return path


def _check_restore(ctx: Context, p: act.Restore) -> list[Path]:
    _, target = _trash_item(ctx, p)
    return [_first_missing(target), trash_folder(ctx.guard.root)]


@operation("restore", act.Restore, "Restore a trashed item to its original path (recreating its folder); that path "
           "must be free.", check=_check_restore, acts_on="trash")
def restore(ctx: Context, p: act.Restore) -> list[str]:
    # Done as the FreeDesktop trash spec defines it (rename the kept file back, drop its .trashinfo),
    # not with `gio trash --restore`: that failed with "Operation not supported" on legal names such
    # as 'Ünïcode (1) + 50% #a', and lags behind GVfs's trash monitor on a busy machine.
    item, target = _trash_item(ctx, p)
    folder = trash_folder(ctx.guard.root)
    target.parent.mkdir(parents=True, exist_ok=True)  # its folder may have gone since (as GIO does)
    os.rename(folder / "files" / item.name, target)
    (folder / "info" / f"{item.name}.trashinfo").unlink()
    return [item.original, f"trash:{item.name}"]


def _check_delete(ctx: Context, p: act.PathList) -> list[Path]:
    return ctx.guard.distinct(p.paths)


@operation("delete_permanently", act.PathList, "Delete files/folders for good, without the trash.",
           check=_check_delete, destructive=True, acts_on="paths")
def delete_permanently(ctx: Context, p: act.PathList) -> list[str]:
    # Nautilus's DeleteURIs always asks for confirmation in a dialog, so this is done directly.
    paths = ctx.guard.distinct(p.paths)
    for path in paths:
        remove(path)
    return [ctx.guard.relative(x) for x in paths]


def _check_empty(ctx: Context, p: NoParams) -> list[Path]:
    return [trash_folder(ctx.guard.root)]


@operation("empty_trash", NoParams, "Delete everything in the trash for good (Nautilus).",
           check=_check_empty, destructive=True, acts_on="trash")
def empty_trash(ctx: Context, p: NoParams) -> list[str]:
    items = st.trash_items(ctx.guard.root)
    if not items:
        return []
    folder = trash_folder(ctx.guard.root)

    def ask() -> None:
        ctx.nautilus().call(FILE_OPS, "EmptyTrash", "ba{sv}", (False, {}))

    # Nautilus empties what GVfs's trash backend lists, and that backend learns of new items from a file
    # monitor: under load an item trashed a moment ago may not be listed yet and stays behind. Asking again
    # is harmless (emptying an empty trash does nothing), so ask each second until the folder is empty.
    ask()
    wait_for(ctx, lambda: not any((folder / "files").iterdir()) and not any((folder / "info").iterdir()),
             "empty the trash", again=ask)
    return [f"trash:{i.name}" for i in items]


# ------------------------------------------------------------------ archives and modes
def _check_compress(ctx: Context, p: act.Compress) -> list[Path]:
    sources = ctx.guard.distinct(p.paths)
    archive = ctx.guard.free(ctx.guard.locate(p.archive), p.archive)
    if any(s in archive.parents for s in sources):
        raise InvalidAction("The archive cannot be inside a folder it packs.", hint="Put the archive elsewhere.")
    return [archive]


@operation("compress", act.Compress, "Pack files/folders into a new .zip, .tar, .tar.gz or .tgz archive.",
           check=_check_compress, acts_on="archive")
def compress(ctx: Context, p: act.Compress) -> list[str]:
    archive = ctx.guard.locate(p.archive)
    archives.pack(ctx.guard.distinct(p.paths), archive)
    return [ctx.guard.relative(archive)]


def _check_extract(ctx: Context, p: act.Extract) -> list[Path]:
    archive = ctx.guard.existing(p.archive, kind="file")
    folder = ctx.guard.locate(p.destination, root_ok=True)
    if os.path.lexists(folder) and not folder.is_dir():
        raise InvalidAction(f"{p.destination!r} is a file, not a folder.", hint="Extract into a folder.")
    if not folder.parent.is_dir():
        raise InvalidAction(f"The folder that would hold {p.destination!r} does not exist.",
                            hint="Create it first.")
    tops = archives.check_members(archive, folder, p.archive)
    return [folder] if not folder.exists() else [folder / top for top in tops]


@operation("extract", act.Extract, "Unpack a .zip/.tar/.tar.gz/.tgz archive into a folder; existing files are "
           "never overwritten.", check=_check_extract, acts_on="paths")
def extract(ctx: Context, p: act.Extract) -> list[str]:
    folder = ctx.guard.locate(p.destination, root_ok=True)
    tops = archives.unpack(ctx.guard.existing(p.archive, kind="file"), folder)
    return [ctx.guard.relative(folder / top) for top in tops]


def _check_mode(ctx: Context, p: act.SetPermissions) -> list[Path]:
    path = ctx.guard.existing(p.path, root_ok=False)
    if path.is_symlink():
        raise InvalidAction(f"{p.path!r} is a symlink; links have no permissions of their own.",
                            hint="Set the mode of the file it points to.")
    if path.is_dir() and int(p.mode, 8) & 0o700 != 0o700:
        raise InvalidAction(f"Mode {p.mode} would lock the owner out of the folder {p.path!r}.",
                            hint="A folder's mode must start with 7 (e.g. '0755' or '0700').")
    return [path]


@operation("set_permissions", act.SetPermissions, "Set a file's or folder's permission bits (octal).",
           check=_check_mode, acts_on="mode")
def set_permissions(ctx: Context, p: act.SetPermissions) -> list[str]:
    path = ctx.guard.existing(p.path)
    path.chmod(int(p.mode, 8))
    return [ctx.guard.relative(path)]


# ------------------------------------------------------------------ bookmarks and windows
def _check_bookmark(ctx: Context, p: act.BookmarkFolder) -> list[Path]:
    path = ctx.guard.existing(p.path, root_ok=True, kind="folder")
    if any(b.path == ctx.guard.relative(path) for b in st.bookmarks(ctx.guard.root)):
        raise InvalidAction(f"{p.path!r} is bookmarked already.", hint="Remove the bookmark first to relabel it.")
    return [bookmarks_file(ctx.guard.root)]


@operation("bookmark", act.BookmarkFolder, "Add a folder to Nautilus's bookmarks (sidebar), with an optional label.",
           check=_check_bookmark, acts_on="bookmarks")
def bookmark(ctx: Context, p: act.BookmarkFolder) -> list[str]:
    # GTK keeps bookmarks in this file and Nautilus watches it; there is no D-Bus method for them.
    path = ctx.guard.existing(p.path, root_ok=True, kind="folder")
    marks = st.bookmarks(ctx.guard.root)
    rel = ctx.guard.relative(path)
    st.write_bookmarks(ctx.guard.root, [*marks, st.Bookmark(rel, uri(path), p.label)])
    return [f"bookmark:{rel}"]


def _check_unbookmark(ctx: Context, p: act.PathOnly) -> list[Path]:
    path = ctx.guard.locate(p.path, root_ok=True)
    if not any(b.path == ctx.guard.relative(path) for b in st.bookmarks(ctx.guard.root)):
        raise InvalidAction(f"{p.path!r} is not bookmarked.", hint="See the bookmark elements.", code="no_bookmark")
    return [bookmarks_file(ctx.guard.root)]


@operation("remove_bookmark", act.PathOnly, "Remove a folder's bookmark.",
           check=_check_unbookmark, acts_on="bookmarks")
def remove_bookmark(ctx: Context, p: act.PathOnly) -> list[str]:
    path = ctx.guard.locate(p.path, root_ok=True)
    rel = ctx.guard.relative(path)
    st.write_bookmarks(ctx.guard.root, [b for b in st.bookmarks(ctx.guard.root) if b.path != rel])
    return [f"bookmark:{ctx.guard.relative(path)}"]


def open_locations(session: NautilusSession, timeout_s: float | None = None) -> list[str]:
    """The locations shown in Nautilus's open windows (file URIs)."""
    windows: dict[str, list[str]] = session.get_property(FILE_MANAGER, "OpenWindowsWithLocations", timeout_s)
    return [location for locations in windows.values() for location in locations]


def _show(ctx: Context, method: str, paths: list[Path], folders: list[Path]) -> None:
    session = ctx.nautilus()
    session.call(FILE_MANAGER, method, "ass", ([uri(x) for x in paths], ""))
    wanted = set(folders)  # compared as paths: GLib and Python escape URIs differently ('(', '+', ...)
    deadline = time.monotonic() + ctx.op_timeout_s
    while not wanted <= {st.uri_path(u) for u in open_locations(session)}:
        if time.monotonic() > deadline:
            raise ActionFailed("Nautilus did not open a window for it in time.", code="operation_timeout")
        time.sleep(0.02)


def _check_show_folder(ctx: Context, p: act.PathOnly) -> list[Path]:
    ctx.guard.existing(p.path, root_ok=True, kind="folder")
    return []


@operation("show_folder", act.PathOnly, "Open a folder in a Nautilus window.",
           check=_check_show_folder, acts_on="windows")
def show_folder(ctx: Context, p: act.PathOnly) -> list[str]:
    path = ctx.guard.existing(p.path, root_ok=True, kind="folder")
    _show(ctx, "ShowFolders", [path], [path])
    return []


def _check_show_items(ctx: Context, p: act.PathList) -> list[Path]:
    ctx.guard.distinct(p.paths)
    return []


@operation("show_items", act.PathList, "Open Nautilus windows showing these items selected in their folders.",
           check=_check_show_items, acts_on="windows")
def show_items(ctx: Context, p: act.PathList) -> list[str]:
    paths = ctx.guard.distinct(p.paths)
    _show(ctx, "ShowItems", paths, [x.parent for x in paths])
    return []
