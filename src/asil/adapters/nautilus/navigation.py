"""Window functions: open a window at a folder, navigate it, go back/forward/up, and select files in it.

Windows are opened with ``org.gtk.Application.Open`` (hint ``new-window``) and navigated by activating the
window's own exported actions (``org.gtk.Actions.Activate``: ``open-location``, ``back``, ``forward``, ``up``);
the selection is set on the window's file view over AT-SPI. Each function waits until Nautilus shows the
result (the new location on D-Bus, the new selection on the accessibility bus). None of them can be undone
by a snapshot, so they are not allowed in a batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.actions import MAX_PATHS, RelPath
from asil.adapters.nautilus.operations import Context, operation
from asil.adapters.nautilus.windows import History, Window, window_target, write_record
from asil.adapters.params import Params
from asil.apps.nautilus import NAUTILUS
from asil.protocol import ActionFailed, InvalidAction

APPLICATION = (NAUTILUS, "/org/gnome/Nautilus", "org.gtk.Application")
WindowNumber = Annotated[int | None, Field(None, ge=1, description="The window's number (element 'window:N'); "
                                                                   "may be left out when one window is open.")]


class FolderPath(Params):
    path: RelPath


class OnWindow(Params):
    window: WindowNumber = None


class GoTo(Params):
    window: WindowNumber = None
    path: RelPath


class Select(Params):
    window: WindowNumber = None
    paths: Annotated[list[RelPath], Field(min_length=1, max_length=MAX_PATHS,
                                          description="Files/folders directly inside the window's folder.")]
    add: bool = Field(False, description="Add to the current selection instead of replacing it.")


def open_windows(ctx: Context) -> list[Window]:
    ctx.nautilus()  # starts Nautilus (reopening recorded windows) when it is not running
    return ctx.windows.windows(selection=False)  # what checks need; the selection is read after the change


def pick(ctx: Context, number: int | None) -> Window:
    """The window the params name (or the only one); InvalidAction naming the open windows otherwise."""
    windows = open_windows(ctx)
    shown = ", ".join(f"window:{w.window} ({w.location})" for w in windows) or "none"
    if number is None and len(windows) == 1:
        return windows[0]
    for window in windows:
        if window.window == number:
            return window
    what = (f"There is no window {number}" if number is not None else
            "Several windows are open, so params.window is needed" if windows else "No Nautilus window is open")
    raise InvalidAction(f"{what}; open windows: {shown}.",
                        hint="Give params.window as the N of a 'window:N' element, or open one with open_window.",
                        code="no_window")


def wait_until(ctx: Context, done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + ctx.op_timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise ActionFailed(f"Nautilus did not {what} within {ctx.op_timeout_s:g} s.", code="operation_timeout")
        time.sleep(0.01)


def activate(ctx: Context, number: int, action: str, *argument: Any) -> None:
    ctx.nautilus().call(window_target(number), "Activate", "sava{sv}", (action, list(argument), {}))


def remember(ctx: Context) -> list[str]:
    """Write the windows as they are now to the record (what a restarted Nautilus reopens); their ids."""
    windows = ctx.windows.windows()
    write_record(ctx.guard.root, windows)
    return [f"window:{w.window}" for w in windows]


def shows(ctx: Context, number: int, location: str) -> Callable[[], bool]:
    """Whether window ``number``'s active tab shows ``location`` now."""
    return lambda: ctx.windows.shown(number, ctx.windows.locations().get(number, [])) == location


# ------------------------------------------------------------------ open and navigate
def _folder(ctx: Context, path: str) -> str:
    return ctx.guard.relative(ctx.guard.existing(path, root_ok=True, kind="folder"))


def _check_open(ctx: Context, p: Any) -> list[Path]:
    _folder(ctx, p.path)
    return []


def open_window_at(ctx: Context, folder: str) -> int:
    """Open a new window showing ``folder`` (workspace-relative); its number."""
    session = ctx.nautilus()
    before = set(ctx.windows.locations())
    target = ctx.guard.root if folder == "." else ctx.guard.root / folder
    session.call(APPLICATION, "Open", "assa{sv}", ([st.file_uri(target)], "new-window", {}))
    new: list[int] = []

    def opened() -> bool:
        new[:] = [n for n, tabs in ctx.windows.locations().items() if n not in before and tabs[:1] == [folder]]
        return bool(new)

    wait_until(ctx, opened, f"open a window at {folder!r}")
    ctx.windows.forget(new[0])  # a number Nautilus gives again after a window closed starts afresh
    ctx.windows.history[new[0]] = History()
    ctx.windows.tabs_of(new[0], 1)
    return new[0]


@operation("open_window", FolderPath, "Open a new Nautilus window showing a folder (empty back/forward history).",
           check=_check_open, acts_on="windows", batch=False)
def open_window(ctx: Context, p: FolderPath) -> list[str]:
    number = open_window_at(ctx, _folder(ctx, p.path))
    remember(ctx)
    return [f"window:{number}"]


def _check_go_to(ctx: Context, p: GoTo) -> list[Path]:
    window, folder = pick(ctx, p.window), _folder(ctx, p.path)
    if window.location == folder:
        raise InvalidAction(f"Window {window.window} shows {folder!r} already.",
                            hint="Give another folder, or use go_back/go_forward to move in its history.")
    return []


def go_to_folder(ctx: Context, number: int, current: str, folder: str) -> None:
    """Navigate window ``number`` from ``current`` to ``folder`` as Nautilus's location bar does."""
    target = ctx.guard.root if folder == "." else ctx.guard.root / folder
    activate(ctx, number, "open-location", ("s", st.file_uri(target)))
    wait_until(ctx, shows(ctx, number, folder), f"show {folder!r} in window {number}")
    history = ctx.windows.history.setdefault(number, History())
    history.back.append(current)
    history.forward.clear()  # as in Nautilus: a new location drops the forward list


@operation("go_to", GoTo, "Show another folder in a window (the old one goes into its back history).",
           check=_check_go_to, acts_on="windows", batch=False)
def go_to(ctx: Context, p: GoTo) -> list[str]:
    window = pick(ctx, p.window)
    go_to_folder(ctx, window.window, window.location, _folder(ctx, p.path))
    remember(ctx)
    return [f"window:{window.window}"]


def _check_back(ctx: Context, p: OnWindow) -> list[Path]:
    window = pick(ctx, p.window)
    if not window.can_go_back:
        raise InvalidAction(f"Window {window.window} has no earlier location to go back to.",
                            hint="go_back works after go_to or go_up; see the window's can_go_back.", code="no_history")
    return []


def _check_forward(ctx: Context, p: OnWindow) -> list[Path]:
    window = pick(ctx, p.window)
    if not window.can_go_forward:
        raise InvalidAction(f"Window {window.window} has no later location to go forward to.",
                            hint="go_forward works after go_back; see the window's can_go_forward.", code="no_history")
    return []


def step_history(ctx: Context, window: Window, backwards: bool) -> None:
    """Go one step back or forward in a window and move the recorded history along."""
    history = ctx.windows.history.setdefault(window.window, History())
    expected = (history.back[-1:] if backwards else history.forward[:1]) if window.history_complete else []
    activate(ctx, window.window, "back" if backwards else "forward")
    moved: Callable[[], bool] = (shows(ctx, window.window, expected[0]) if expected else
                                 lambda: not shows(ctx, window.window, window.location)())
    wait_until(ctx, moved, f"go {'back' if backwards else 'forward'} in window {window.window}")
    if backwards:
        history.forward.insert(0, window.location)
        if history.back:
            history.back.pop()
    else:
        history.back.append(window.location)
        if history.forward:
            history.forward.pop(0)


@operation("go_back", OnWindow, "Go back to the previous folder of a window (Nautilus's Back button).",
           check=_check_back, acts_on="windows", batch=False)
def go_back(ctx: Context, p: OnWindow) -> list[str]:
    window = pick(ctx, p.window)
    step_history(ctx, window, backwards=True)
    remember(ctx)
    return [f"window:{window.window}"]


@operation("go_forward", OnWindow, "Go forward again in a window's history (Nautilus's Forward button).",
           check=_check_forward, acts_on="windows", batch=False)
def go_forward(ctx: Context, p: OnWindow) -> list[str]:
    window = pick(ctx, p.window)
    step_history(ctx, window, backwards=False)
    remember(ctx)
    return [f"window:{window.window}"]


def _check_up(ctx: Context, p: OnWindow) -> list[Path]:
    window = pick(ctx, p.window)
    if window.location == ".":
        raise InvalidAction(f"Window {window.window} shows the workspace root; going up would leave the workspace.",
                            hint="go_up works in a folder below the root.")
    if "://" in window.location:
        raise InvalidAction(f"Window {window.window} shows {window.location!r}, outside the workspace.",
                            hint="Use go_to to bring it to a workspace folder first.")
    return []


@operation("go_up", OnWindow, "Show the parent folder in a window (Nautilus's Up, Alt+Up); adds to its history.",
           check=_check_up, acts_on="windows", batch=False)
def go_up(ctx: Context, p: OnWindow) -> list[str]:
    window = pick(ctx, p.window)
    parent = str(Path(window.location).parent) if "/" in window.location else "."
    activate(ctx, window.window, "up")
    wait_until(ctx, shows(ctx, window.window, parent), f"go up in window {window.window}")
    history = ctx.windows.history.setdefault(window.window, History())
    history.back.append(window.location)
    history.forward.clear()
    remember(ctx)
    return [f"window:{window.window}"]


# ------------------------------------------------------------------ selection
def _names(ctx: Context, window: Window, paths: list[str]) -> list[str]:
    names = []
    for shown in paths:
        path = ctx.guard.existing(shown)
        parent = ctx.guard.relative(path.parent) if path.parent != ctx.guard.root else "."
        if parent != window.location:
            raise InvalidAction(f"{shown!r} is not in the folder window {window.window} shows ({window.location!r}).",
                                hint="Select items directly inside the window's folder, or go_to their folder first.")
        names.append(path.name)
    return names


def _check_select(ctx: Context, p: Select) -> list[Path]:
    _names(ctx, pick(ctx, p.window), p.paths)
    return []


def select_names(ctx: Context, number: int, names: list[str], add: bool) -> None:
    """Select the items called ``names`` in window ``number``'s view, once the view has laid them out."""
    keeper = ctx.windows
    indexes: dict[str, int] = {}

    def laid_out() -> bool:
        try:
            items = keeper.atspi().items(keeper.view_of(number))
        except ActionFailed:  # the shown tab's view is not published (or not told apart) yet
            return False
        indexes.update({i.name: i.index for i in items})
        return set(names) <= set(indexes)

    try:
        wait_until(ctx, laid_out, f"show {', '.join(names)} in window {number}")
    except ActionFailed:
        raise ActionFailed(f"Window {number} does not show {', '.join(n for n in names if n not in indexes)} in its "
                           "view (only the items that fit in the window are published).",
                           hint="Select fewer items, or items near the top of the folder.", code="not_shown") from None
    view = keeper.view_of(number)
    keeper.atspi().select(view, [indexes[n] for n in names], clear=not add)
    wanted = set(names)
    wait_until(ctx, lambda: wanted <= {i.name for i in keeper.atspi().items(view) if i.selected},
               f"select {', '.join(names)} in window {number}")


@operation("select_items", Select, "Select files/folders in a window's view (replacing the selection unless add).",
           check=_check_select, acts_on="selection", batch=False)
def select_items(ctx: Context, p: Select) -> list[str]:
    window = pick(ctx, p.window)
    select_names(ctx, window.window, _names(ctx, window, p.paths), p.add)
    remember(ctx)
    return [f"window:{window.window}"]


def _check_window(ctx: Context, p: OnWindow) -> list[Path]:
    pick(ctx, p.window)
    return []


@operation("select_all", OnWindow, "Select everything a window's view shows (Ctrl+A).",
           check=_check_window, acts_on="selection", batch=False)
def select_all(ctx: Context, p: OnWindow) -> list[str]:
    window = pick(ctx, p.window)
    ctx.windows.atspi().select_all(ctx.windows.view_of(window.window))
    remember(ctx)
    return [f"window:{window.window}"]


@operation("clear_selection", OnWindow, "Select nothing in a window's view.",
           check=_check_window, acts_on="selection", batch=False)
def clear_selection(ctx: Context, p: OnWindow) -> list[str]:
    window = pick(ctx, p.window)
    ctx.windows.atspi().clear(ctx.windows.view_of(window.window))
    wait_until(ctx, lambda: not ctx.windows.window(window.window).selection, f"clear window {window.window}'s selection")
    remember(ctx)
    return [f"window:{window.window}"]


# ------------------------------------------------------------------ reopening recorded windows
def restore_windows(ctx: Context, recorded: list[dict[str, Any]]) -> list[str]:
    """Reopen recorded windows in a fresh Nautilus: each at the start of its history, then walked through it (so
    Back and Forward really work again), then its selection. Folders that are gone are left out; what could not
    be reopened is returned as sentences."""
    problems: list[str] = []
    for entry in recorded:
        try:
            problems += _reopen(ctx, entry)
        except ActionFailed as exc:  # a window that does not come back must not stop the action that started Nautilus
            problems.append(f"window at {entry.get('location')!r} not reopened: {exc.message}")
    return problems


def _reopen(ctx: Context, entry: dict[str, Any]) -> list[str]:
    """Reopen one recorded window: its first tab as a new window, the others with new-tab, each walked through
    its recorded history; then its shown tab and that tab's selection."""
    from asil.adapters.nautilus.tabs import open_tab_at, show_tab  # tabs builds on this module

    tabs = [str(t) for t in entry.get("tabs") or []] or [str(entry.get("location", ""))]
    active = entry.get("active_tab", 0) if isinstance(entry.get("active_tab"), int) else 0
    active = active if 0 <= active < len(tabs) else 0
    found = entry.get("tab_history")
    histories: list[Any] = found if isinstance(found, list) else []
    number: int | None = None
    problems: list[str] = []
    shown = 0
    for index, tab in enumerate(tabs):
        record = histories[index] if index < len(histories) and isinstance(histories[index], dict) else (
            entry if index == active else {})
        chain = [str(x) for x in [*record.get("back", []), tab, *record.get("forward", [])]]
        kept = [folder for folder in chain if _is_folder(ctx, folder)]
        if tab not in kept:
            problems.append(f"tab at {tab!r} not reopened: the folder is gone")
            continue
        if number is None:
            number = open_window_at(ctx, kept[0])
        else:
            open_tab_at(ctx, number, kept[0])
        shown = shown + 1 if index else 0
        _walk(ctx, number, kept, [f for f in record.get("forward", []) if f in kept])
        if index == active:
            active = shown
    if number is None:
        return [f"window at {entry.get('location')!r} not reopened: the folder is gone"]
    if ctx.windows.active.get(number) != active:
        show_tab(ctx, number, active)
    names = [Path(str(p)).name for p in entry.get("selection") or [] if _is_item(ctx, str(p))]
    if names:
        try:
            select_names(ctx, number, names, add=False)
        except ActionFailed as exc:
            problems.append(f"selection of window {number} not restored: {exc.message}")
    return problems


def _walk(ctx: Context, number: int, kept: list[str], ahead: list[str]) -> None:
    """Walk the shown tab of window ``number`` through ``kept``, then back over the ``ahead`` part."""
    for previous, folder in zip(kept, kept[1:], strict=False):
        if folder != previous:
            go_to_folder(ctx, number, previous, folder)
    for _ in range(len(ahead)):
        step_history(ctx, ctx.windows.window(number, selection=False), backwards=True)


def _is_folder(ctx: Context, folder: str) -> bool:
    try:
        _folder(ctx, folder)
    except InvalidAction:
        return False
    return True


def _is_item(ctx: Context, path: str) -> bool:
    try:
        ctx.guard.existing(path)
    except InvalidAction:
        return False
    return True
