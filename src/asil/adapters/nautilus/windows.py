"""Nautilus's open windows: where each one is, its back/forward history, and what is selected in it.

Three real sources and one record:

* the location of every window, from ``org.freedesktop.FileManager1.OpenWindowsWithLocations`` (keys are
  the windows' D-Bus object paths, ``/org/gnome/Nautilus/window/N``; N is the window's id here);
* whether a window can go back or forward, from the ``enabled`` flag of its exported ``back`` and
  ``forward`` actions (``org.gtk.Actions.DescribeAll`` on the window's object path);
* the selection, from the window's file view on the accessibility bus (see ``atspi``);
* the *list* of earlier and later locations is ASIL's record of navigation done through the adapter,
  because Nautilus publishes no API for it. A window whose real back/forward flags disagree with the
  record (someone navigated it another way) is marked ``history_complete: false``;
* tabs: ``OpenWindowsWithLocations`` lists every tab's location, in tab order. Which tab is active is
  ASIL's record of the tab actions (see ``tabs``), checked against the window's title on the accessibility
  bus (Nautilus titles a window after its active tab's folder) whenever the selection is read. Back and
  forward belong to a tab in Nautilus, so the record keeps a history per tab.

Nautilus 43 keeps a window in ``OpenWindowsWithLocations`` after its last tab closed it, so a window
counts as open only while its object path is still exported (``Introspect`` of the windows' folder).

``save()`` writes what the windows show to ``.asil/nautilus/windows.json``; the checkpoints read that file
after the episode, and a restarted Nautilus reopens the recorded windows from it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.atspi import AtSpi
from asil.adapters.nautilus.layout import session_folder
from asil.apps.atspi import Ref
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
    tabs: list[str] = field(default_factory=list)  # every tab's location in tab order (one tab: [location])
    active_tab: int = 0  # the index in tabs of the tab the window shows
    tab_history: list[dict[str, list[str]]] = field(default_factory=list)  # per tab: ASIL's back/forward record

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
        self.history: dict[int, History] = {}  # each window's active tab's history
        self.tab_histories: dict[int, list[History]] = {}  # each window's tabs' histories, in tab order
        self.active: dict[int, int] = {}  # each window's active tab (ASIL's record, checked against the title)
        self.session: NautilusSession | None = None
        self._atspi: AtSpi | None = None

    def attach(self, session: NautilusSession) -> None:
        """Follow a (new) session: its window numbers and widgets are not the old one's."""
        if session is not self.session:
            self.close()
            self.session, self.history, self.tab_histories, self.active = session, {}, {}, {}

    def close(self) -> None:
        if self._atspi is not None:
            self._atspi.close()
            self._atspi = None

    def atspi(self) -> AtSpi:
        assert self.session is not None
        if self._atspi is None:
            self._atspi = AtSpi(self.session.accessibility_address())
        return self._atspi

    # ------------------------------------------------------------ tabs (ASIL's record)
    def tabs_of(self, number: int, count: int) -> list[History]:
        """The histories of window ``number``'s ``count`` tabs, the active one being ``history[number]``."""
        tabs = self.tab_histories.setdefault(number, [])
        while len(tabs) < count:
            tabs.append(History())
        del tabs[max(count, 1):]
        active = min(self.active.get(number, 0), len(tabs) - 1)
        tabs[active] = self.history.setdefault(number, tabs[active])
        self.active[number] = active
        return tabs

    def activate_tab(self, number: int, index: int) -> None:
        """Record that tab ``index`` of window ``number`` is the one it shows."""
        self.active[number] = index
        self.history[number] = self.tab_histories[number][index]

    def forget(self, number: int) -> None:
        for record in (self.history, self.tab_histories, self.active):
            record.pop(number, None)

    # ------------------------------------------------------------ reading
    def live_windows(self, timeout_s: float | None = None) -> set[int]:
        """The numbers of the windows whose object paths Nautilus still exports."""
        assert self.session is not None
        (xml,) = self.session.call((NAUTILUS, WINDOW_PATH.rstrip("/"), "org.freedesktop.DBus.Introspectable"),
                                   "Introspect", timeout_s=timeout_s)
        return {int(n) for n in re.findall(r'<node name="([0-9]+)"', str(xml))}

    def locations(self, timeout_s: float | None = None) -> dict[int, list[str]]:
        """Window number -> the workspace-relative locations of its tabs (URIs outside the workspace)."""
        assert self.session is not None
        raw: dict[str, list[str]] = self.session.get_property(FILE_MANAGER, "OpenWindowsWithLocations", timeout_s)
        live = self.live_windows(timeout_s)
        found = {}
        for path, uris in raw.items():
            if path.startswith(WINDOW_PATH) and path[len(WINDOW_PATH):].isdigit():
                if int(path[len(WINDOW_PATH):]) in live:
                    found[int(path[len(WINDOW_PATH):])] = [self.relative(u) for u in uris]
        return dict(sorted(found.items()))

    def shown(self, number: int, tabs: list[str]) -> str:
        """The location window ``number`` shows: its active tab's."""
        return tabs[min(self.active.get(number, 0), len(tabs) - 1)] if tabs else ""

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
        for number, tabs in located.items():
            self.tabs_of(number, len(tabs))
        selected = self._selections(located) if selection else {}
        found = []
        for number, tabs in located.items():
            back, forward = self.can_go(number)
            histories = self.tabs_of(number, len(tabs))
            history = self.history[number]
            found.append(Window(number, self.shown(number, tabs), back, forward, list(history.back),
                                list(history.forward), selected.get(number), list(tabs), self.active[number],
                                [{"back": list(h.back), "forward": list(h.forward)} for h in histories]))
        return found

    def _selections(self, located: dict[int, list[str]]) -> dict[int, list[str]]:
        """Window number -> selected paths, from one read of everything GTK publishes (the walk if that falls short)."""
        windows = self._views(located)
        try:
            published = self.atspi().published()
            views = self.atspi().all_views_in(published)
        except (ActionFailed, LookupError):
            published, views = {}, {}
        found = {}
        for number, window in windows.items():
            location = self.shown(number, located[number])
            candidates = views.get(window, [])
            view = self._tab_view(candidates, location, published)
            items = self.atspi().items_in(view, published) if view is not None else None
            if items is None and view is not None and len(candidates) > 1:
                items = self._walked_items(view)
            chosen = ([i.name for i in items if i.selected] if items is not None else
                      self._walked_selection(window) if len(candidates) <= 1 else None)
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
        them in that order too; a pair counts only if the title matches the active tab's folder (else: selection
        unknown). A title that names exactly one other tab corrects the record of the active tab."""
        try:
            published = self.atspi().windows()
        except (ActionFailed, LookupError, OSError):
            return {}
        pairs = {}
        for (number, tabs), (ref, title) in zip(located.items(), published, strict=False):
            if tabs and title != self.title(self.shown(number, tabs)):
                named = [index for index, tab in enumerate(tabs) if self.title(tab) == title]
                if len(named) == 1:
                    self.activate_tab(number, named[0])
            if tabs and title == self.title(self.shown(number, tabs)):
                pairs[number] = ref
        return pairs

    def title(self, location: str) -> str:
        """The title Nautilus gives a window showing ``location``: the folder's name."""
        if "://" in location:
            return os.path.basename(location.rstrip("/"))
        return (self.root if location == "." else self.root / location).name

    def _walked_items(self, view: Ref) -> list[Any] | None:
        try:
            return list(self.atspi().items(view))
        except (ActionFailed, LookupError):
            return None

    def _walked_selection(self, window: Ref) -> list[str] | None:
        try:
            view = self.atspi().view(window)
            return None if view is None else [item.name for item in self.atspi().items(view) if item.selected]
        except (ActionFailed, LookupError):
            return None

    def _tab_view(self, candidates: list[Ref], location: str, published: dict[Ref, Any]) -> Ref | None:
        """The file view of the shown tab among a window's views: the only one, or the one whose laid-out items
        are all in the shown folder (None when that cannot be told yet)."""
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        folder = self.root if location == "." else self.root / location
        try:
            names = set(os.listdir(folder))
        except OSError:
            return None
        fitting = []
        for view in candidates:
            try:  # from the published widgets, or walked when GTK has not published them all
                items: list[Any] | None = self.atspi().items_in(view, published) or self.atspi().items(view)
            except (ActionFailed, LookupError):
                items = None
            if items and all(item.name in names for item in items):
                fitting.append(view)
        return fitting[0] if len(fitting) == 1 else None

    def view_of(self, number: int) -> Ref:
        """The file view of window ``number`` on the accessibility bus; ActionFailed when it is not published."""
        located = self.locations()
        window = self._views(located).get(number)
        view = None
        if window is not None and len(located.get(number, [])) > 1:  # tabs: tell their views apart by items
            published = self.atspi().published()
            view = self._tab_view(self.atspi().all_views_in(published).get(window, []),
                                  self.shown(number, located[number]), published)
        elif window is not None:
            view = self.atspi().view(window)
        if view is None:
            raise ActionFailed(f"Nautilus has not shown the files of window {number} yet.",
                               hint="Try again in a moment.", code="view_not_ready")
        return view
