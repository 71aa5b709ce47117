"""Nautilus's open windows: where each one is, its back/forward history, and what is selected in it.

Three real sources and one record:

* the location of every window, from ``org.freedesktop.FileManager1.OpenWindowsWithLocations`` (keys are
  the windows' D-Bus object paths, ``/org/gnome/Nautilus/window/N``; N is the window's id here);
* whether a window can go back or forward, from the ``enabled`` flag of its exported ``back`` and
  ``forward`` actions (``org.gtk.Actions.DescribeAll`` on the window's object path);
* the selection, from the window's file view on the accessibility bus (see ``atspi``);
* the *list* of earlier and later locations is ASIL's record of navigation done through the adapter,
  because Nautilus publishes no API for it. A window whose real back/forward flags disagree with the
  record (someone navigated it another way) is marked ``history_complete: false``.

``save()`` writes what the windows show to ``.asil/nautilus/windows.json``; the checkpoints read that file
after the episode, and a restarted Nautilus reopens the recorded windows from it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.atspi import AtSpi, Ref
from asil.adapters.nautilus.layout import session_folder
from asil.apps.nautilus import FILE_MANAGER, NAUTILUS, NautilusSession, Target
from asil.protocol import ActionFailed

WINDOW_PATH = "/org/gnome/Nautilus/window/"
RECORD = "windows.json"


@dataclass
class History:
    back: list[str] = field(default_factory=list)  # oldest first; the last one is where "back" goes
    forward: list[str] = field(default_factory=list)  # nearest first


@dataclass
class Window:
    window: int  # Nautilus's own number of the window (its D-Bus object path ends with it)
    location: str  # workspace-relative folder ('.' the root), or a URI outside the workspace
    can_go_back: bool
    can_go_forward: bool
    back: list[str]
    forward: list[str]
    selection: list[str] | None  # workspace-relative paths; None when the view could not be read
    tabs: list[str] = field(default_factory=list)

    @property
    def history_complete(self) -> bool:
        return bool(self.back) == self.can_go_back and bool(self.forward) == self.can_go_forward

    def record(self) -> dict[str, Any]:
        return {**asdict(self), "history_complete": self.history_complete}


def window_target(number: int) -> Target:
    return (NAUTILUS, f"{WINDOW_PATH}{number}", "org.gtk.Actions")


def record_file(root: Path) -> Path:
    return session_folder(root) / RECORD


def load_record(root: Path) -> list[dict[str, Any]]:
    """The windows recorded last (by ``save()``, after a window action, or by a task's set-up)."""
    try:
        data = json.loads(record_file(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    windows = data.get("windows") if isinstance(data, dict) else None
    return [w for w in windows if isinstance(w, dict)] if isinstance(windows, list) else []


def write_record(root: Path, windows: list[Window]) -> None:
    from asil.workspace import atomic_write

    text = json.dumps({"windows": [w.record() for w in windows]}, indent=1, ensure_ascii=False)
    atomic_write(record_file(root), (text + "\n").encode("utf-8"))


class WindowKeeper:
    """Reads the windows of one Nautilus session and keeps ASIL's history record of them."""

    def __init__(self, root: Path):
        self.root = root
        self.history: dict[int, History] = {}
        self.session: NautilusSession | None = None
        self._atspi: AtSpi | None = None

    def attach(self, session: NautilusSession) -> None:
        """Follow a (new) session: its window numbers and widgets are not the old one's."""
        if session is not self.session:
            self.close()
            self.session, self.history = session, {}

    def close(self) -> None:
        if self._atspi is not None:
            self._atspi.close()
            self._atspi = None

    def atspi(self) -> AtSpi:
        assert self.session is not None
        if self._atspi is None:
            self._atspi = AtSpi(self.session.accessibility_address())
        return self._atspi

    # ------------------------------------------------------------ reading
    def locations(self, timeout_s: float | None = None) -> dict[int, list[str]]:
        """Window number -> the workspace-relative locations of its tabs (URIs outside the workspace)."""
        assert self.session is not None
        raw: dict[str, list[str]] = self.session.get_property(FILE_MANAGER, "OpenWindowsWithLocations", timeout_s)
        found = {}
        for path, uris in raw.items():
            if path.startswith(WINDOW_PATH) and path[len(WINDOW_PATH):].isdigit():
                found[int(path[len(WINDOW_PATH):])] = [self.relative(u) for u in uris]
        return dict(sorted(found.items()))

    def relative(self, uri: str) -> str:
        path = st.uri_path(uri)
        return (st.relative_to(self.root, path) or uri) if path is not None else uri

    def can_go(self, number: int) -> tuple[bool, bool]:
        """The real enabled flags of the window's back and forward actions."""
        assert self.session is not None
        (actions,) = self.session.call(window_target(number), "DescribeAll")
        return bool(actions["back"][0]), bool(actions["forward"][0])

    def windows(self, timeout_s: float | None = None, *, selection: bool = True) -> list[Window]:
        """The open windows; ``selection=False`` leaves the selection unread (None), for the checks of an action."""
        located = self.locations(timeout_s)
        selected = self._selections(located) if selection else {}
        found = []
        for number, tabs in located.items():
            back, forward = self.can_go(number)
            history = self.history.setdefault(number, History())
            found.append(Window(number, tabs[0] if tabs else "", back, forward, list(history.back),
                                list(history.forward), selected.get(number), tabs if len(tabs) > 1 else []))
        return found

    def _selections(self, located: dict[int, list[str]]) -> dict[int, list[str]]:
        """Window number -> selected paths, from one read of everything GTK publishes (the walk if that falls short)."""
        windows = self._views(located)
        try:
            published = self.atspi().published()
            views = self.atspi().views_in(published)
        except (ActionFailed, LookupError):
            published, views = {}, {}
        found = {}
        for number, window in windows.items():
            location = located[number][0]
            items = self.atspi().items_in(views[window], published) if window in views else None
            chosen = ([i.name for i in items if i.selected] if items is not None else
                      self._walked_selection(window))
            if chosen is not None:
                found[number] = sorted(n if location == "." else f"{location}/{n}" for n in chosen)
        return found

    def window(self, number: int, *, selection: bool = True) -> Window:
        for found in self.windows(selection=selection):
            if found.window == number:
                return found
        raise ActionFailed(f"Nautilus window {number} closed meanwhile.", hint="See the window elements.")

    def _views(self, located: dict[int, list[str]]) -> dict[int, Ref]:
        """Window number -> its accessible window. GTK lists windows in the order it made them and Nautilus numbers
        them in that order too; a pair counts only if the title matches the folder (else: selection unknown)."""
        try:
            published = self.atspi().windows()
        except (ActionFailed, LookupError, OSError):
            return {}
        pairs = {}
        for (number, tabs), (ref, title) in zip(located.items(), published, strict=False):
            if tabs and title == self.title(tabs[0]):
                pairs[number] = ref
        return pairs

    def title(self, location: str) -> str:
        """The title Nautilus gives a window showing ``location``: the folder's name."""
        if "://" in location:
            return os.path.basename(location.rstrip("/"))
        return (self.root if location == "." else self.root / location).name

    def _walked_selection(self, window: Ref) -> list[str] | None:
        try:
            view = self.atspi().view(window)
            return None if view is None else [item.name for item in self.atspi().items(view) if item.selected]
        except (ActionFailed, LookupError):
            return None

    def view_of(self, number: int) -> Ref:
        """The file view of window ``number`` on the accessibility bus; ActionFailed when it is not published."""
        located = self.locations()
        window = self._views(located).get(number)
        view = self.atspi().view(window) if window is not None else None
        if view is None:
            raise ActionFailed(f"Nautilus has not shown the files of window {number} yet.",
                               hint="Try again in a moment.", code="view_not_ready")
        return view
