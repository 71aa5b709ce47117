"""Tab and window functions: open a new tab, switch tabs, close a tab, close a window.

They activate the window's own exported actions (``org.gtk.Actions.Activate`` on
``/org/gnome/Nautilus/window/N``), as its keyboard shortcuts do: ``new-tab`` (Ctrl+T: a tab at the same
folder, added after the others and shown), ``go-to-tab`` (Alt+1..9, an index), ``close-current-view``
(Ctrl+W: closes the shown tab; closing a window's last tab closes the window). Nautilus 43 has no action
that closes a whole window, so ``close_window`` closes its tabs one by one, the end state of its close
button. Each function waits until Nautilus shows the result (the tab list on D-Bus, the title on the
accessibility bus); none can be undone by a snapshot, so none may be batched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from pydantic import Field

from asil.adapters.nautilus.actions import RelPath
from asil.adapters.nautilus.navigation import (
    OnWindow,
    WindowNumber,
    _folder,
    activate,
    go_to_folder,
    pick,
    remember,
    wait_until,
)
from asil.adapters.nautilus.operations import Context, operation
from asil.adapters.nautilus.windows import Window
from asil.protocol import InvalidAction

TabIndex = Annotated[int, Field(ge=0, le=99, description="A tab's index in the window's meta.tabs (0 = the first).")]


class NewTab(OnWindow):
    path: RelPath | None = Field(None, description="The folder the new tab shows; the window's folder when omitted.")


class OnTab(OnWindow):
    tab: TabIndex


class CloseTab(OnWindow):
    tab: TabIndex | None = Field(None, description="The tab to close; the shown one when omitted.")


def tab_count(ctx: Context, number: int) -> int:
    return len(ctx.windows.locations().get(number, []))


def _existing_tab(window: Window, tab: int) -> None:
    if tab >= len(window.tabs):
        listed = ", ".join(f"{i}: {t!r}" for i, t in enumerate(window.tabs))
        raise InvalidAction(f"Window {window.window} has no tab {tab}; its tabs are {listed}.",
                            hint="Give the index of one of the window's meta.tabs.", code="no_tab")


# ------------------------------------------------------------------ new tab
def _check_new_tab(ctx: Context, p: NewTab) -> list[Path]:
    pick(ctx, p.window)
    if p.path is not None:
        _folder(ctx, p.path)
    return []


def open_tab_at(ctx: Context, number: int, folder: str) -> None:
    """Open a new tab in window ``number`` (it shows the window's folder) and take it to ``folder``."""
    count = tab_count(ctx, number)
    current = ctx.windows.shown(number, ctx.windows.locations()[number])
    activate(ctx, number, "new-tab")
    wait_until(ctx, lambda: tab_count(ctx, number) == count + 1, f"open a tab in window {number}")
    ctx.windows.tabs_of(number, count + 1)
    ctx.windows.activate_tab(number, count)  # Nautilus adds it after the others and shows it
    if folder != current:
        go_to_folder(ctx, number, current, folder)


@operation("new_tab", NewTab, "Open a new tab in a window (Ctrl+T), at a folder or the window's own, and show it.",
           check=_check_new_tab, acts_on="windows", batch=False)
def new_tab(ctx: Context, p: NewTab) -> list[str]:
    window = pick(ctx, p.window)
    open_tab_at(ctx, window.window, _folder(ctx, p.path) if p.path is not None else window.location)
    remember(ctx)
    return [f"window:{window.window}"]


# ------------------------------------------------------------------ switch tab
def _check_switch_tab(ctx: Context, p: OnTab) -> list[Path]:
    window = pick(ctx, p.window)
    _existing_tab(window, p.tab)
    if p.tab == window.active_tab:
        raise InvalidAction(f"Tab {p.tab} of window {window.window} is already the one shown.",
                            hint="Give the index of another of its meta.tabs.", code="tab_shown")
    return []


def show_tab(ctx: Context, number: int, tab: int) -> None:
    """Show tab ``tab`` of window ``number`` (Alt+N) and wait until the window's title says so."""
    activate(ctx, number, "go-to-tab", ("i", tab))
    ctx.windows.activate_tab(number, tab)
    keeper = ctx.windows
    wanted = keeper.title(keeper.shown(number, keeper.locations()[number]))

    def titled() -> bool:
        located = keeper.locations()
        pairs = dict(zip(located, (t for _, t in keeper.atspi().windows()), strict=False))
        return pairs.get(number) == wanted

    wait_until(ctx, titled, f"show tab {tab} of window {number}")


@operation("switch_tab", OnTab, "Show another tab of a window (Alt+1..9).", check=_check_switch_tab,
           acts_on="windows", batch=False)
def switch_tab(ctx: Context, p: OnTab) -> list[str]:
    window = pick(ctx, p.window)
    show_tab(ctx, window.window, p.tab)
    remember(ctx)
    return [f"window:{window.window}"]


# ------------------------------------------------------------------ close tab, close window
def _check_close_tab(ctx: Context, p: CloseTab) -> list[Path]:
    window = pick(ctx, p.window)
    if p.tab is not None:
        _existing_tab(window, p.tab)
    if len(window.tabs) == 1:
        raise InvalidAction(f"Window {window.window} has only one tab; closing it would close the window.",
                            hint="Use close_window to close the window.", code="last_tab")
    return []


def close_shown_tab(ctx: Context, number: int) -> None:
    """Close the tab window ``number`` shows (Ctrl+W); Nautilus then shows the one after it (or before, at
    the end), which the record follows and the title check corrects."""
    keeper = ctx.windows
    count = tab_count(ctx, number)
    closing = keeper.active.get(number, 0)
    activate(ctx, number, "close-current-view")
    wait_until(ctx, lambda: tab_count(ctx, number) < count, f"close a tab of window {number}")
    histories = keeper.tab_histories[number]
    histories.pop(closing)
    keeper.activate_tab(number, min(closing, len(histories) - 1))


@operation("close_tab", CloseTab, "Close a tab of a window (Ctrl+W); the window's last tab is closed with "
           "close_window.", check=_check_close_tab, acts_on="windows", batch=False)
def close_tab(ctx: Context, p: CloseTab) -> list[str]:
    window = pick(ctx, p.window)
    if p.tab is not None and p.tab != window.active_tab:
        show_tab(ctx, window.window, p.tab)
    close_shown_tab(ctx, window.window)
    remember(ctx)
    return [f"window:{window.window}"]


def fewer_tabs(ctx: Context, number: int) -> Callable[[], bool]:
    before = tab_count(ctx, number)
    return lambda: tab_count(ctx, number) < before


def _check_close_window(ctx: Context, p: OnWindow) -> list[Path]:
    pick(ctx, p.window)
    return []


@operation("close_window", OnWindow, "Close a Nautilus window with all its tabs.", check=_check_close_window,
           acts_on="windows", batch=False)
def close_window(ctx: Context, p: OnWindow) -> list[str]:
    number = pick(ctx, p.window).window
    while number in ctx.windows.locations():
        closed = fewer_tabs(ctx, number)  # counted before Nautilus closes one
        activate(ctx, number, "close-current-view")
        wait_until(ctx, closed, f"close window {number}")
    ctx.windows.forget(number)
    remember(ctx)
    return [f"window:{number}"]


__all__ = ["WindowNumber", "close_tab", "close_window", "new_tab", "switch_tab"]
