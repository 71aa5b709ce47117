"""Nautilus's file views as GTK publishes them on the accessibility bus (AT-SPI), spoken over D-Bus with jeepney.

Nautilus 43 has no D-Bus method for the selection of a window. GTK 4 publishes every widget on the
session's AT-SPI bus instead: a Nautilus window is a ``window`` accessible named after its folder, its
file view a ``grid`` (or ``table`` in list mode) with the ``Selection`` interface, and each laid-out item a
cell whose child's name is the file name and whose state carries SELECTED. ``SelectChild``,
``DeselectChild``, ``SelectAll`` and ``ClearSelection`` change the view's selection model, which is
Nautilus's own selection (what its menus act on). GTK lays out only the items that fit in the view (plus a
margin), so only those are seen and selectable here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asil.apps.atspi import ACCESSIBLE, REGISTRY, AtSpiBus, BusSilent, Ref
from asil.protocol import ActionFailed

SELECTION = "org.a11y.atspi.Selection"
ROLE_FRAME, ROLE_WINDOW = 23, 69  # AT-SPI role numbers (atspi-constants.h)
VIEW_ROLES = {55, 66}  # table (GtkGridView, shown as "grid"), tree table: the file view
SKIPPED_ROLES = {63, 48, 43}  # tool bar, scroll bar, push button: never hold a file view
STATE_SELECTED = 1 << 23
VISIBLE = 1 << 30  # GTK 4 sets VISIBLE, not SHOWING: a view of a hidden tab or a left folder is not
CALL_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class ViewItem:
    index: int  # the child index Selection.SelectChild takes
    name: str
    selected: bool


class AtSpi(AtSpiBus):
    """A connection to one session's accessibility bus, with Nautilus's file views found on it."""

    def __init__(self, address: str):
        super().__init__(address, timeout_s=CALL_TIMEOUT_S)
        self.views: dict[Ref, Ref] = {}  # window accessible -> its file view, re-found when it went away

    def call(self, ref: Ref, interface: str, method: str, signature: str | None = None,
             body: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        try:
            return super().call(ref, interface, method, signature, body)
        except BusSilent as exc:
            raise ActionFailed(f"Nautilus's accessibility bus did not answer {exc}.",
                               hint="Try again; Nautilus restarts if it hangs.") from None

    def windows(self) -> list[tuple[Ref, str]]:
        """Nautilus's top-level windows in the order GTK created them, with their titles."""
        found: list[tuple[Ref, str]] = []
        for app in self.children(REGISTRY):
            for window in self.children(app):
                if self.role(window) in (ROLE_FRAME, ROLE_WINDOW):
                    found.append((window, self.name(window)))
        return found

    def published(self) -> dict[Ref, Any]:
        """Every widget GTK has published, in one call (the Cache interface): ref -> (ref, app, parent, index,
        child count, interfaces, name, role, description, states)."""
        items = self.call((self.app(), "/org/a11y/atspi/cache"), "org.a11y.atspi.Cache", "GetItems")[0]
        return {(str(i[0][0]), str(i[0][1])): i for i in items}

    def app(self) -> str:
        return self.children(REGISTRY)[0][0]

    def views_in(self, published: dict[Ref, Any]) -> dict[Ref, Ref]:
        """Window -> its visible file view, from the published widgets (climbing each view's parents)."""
        return {window: views[-1] for window, views in self.all_views_in(published).items()}

    def all_views_in(self, published: dict[Ref, Any]) -> dict[Ref, list[Ref]]:
        """Window -> every visible file view in it: a window with tabs has one per tab, and GTK keeps the hidden
        tabs' views VISIBLE (only not mapped), so the caller tells them apart by their items."""
        found: dict[Ref, list[Ref]] = {}
        for ref, item in published.items():
            if item[7] not in VIEW_ROLES or not item[9][0] & VISIBLE:
                continue
            parent = (str(item[2][0]), str(item[2][1]))
            while parent in published and published[parent][7] not in (ROLE_FRAME, ROLE_WINDOW):
                parent = (str(published[parent][2][0]), str(published[parent][2][1]))
            if parent in published:
                found.setdefault(parent, []).append(ref)
        return found

    def items_in(self, view: Ref, published: dict[Ref, Any]) -> list[ViewItem] | None:
        """The view's laid-out items from the published widgets; None when GTK has not published them all."""
        cells = sorted((item for item in published.values() if (str(item[2][0]), str(item[2][1])) == view),
                       key=lambda item: int(item[3]))
        if len(cells) != int(published[view][4]):
            return None
        names: dict[Ref, str] = {}
        for item in published.values():
            if item[6]:
                names.setdefault((str(item[2][0]), str(item[2][1])), str(item[6]))
        found = []
        for cell in cells:
            name = names.get((str(cell[0][0]), str(cell[0][1])))
            if name is None:
                return None
            found.append(ViewItem(int(cell[3]), name, bool(cell[9][0] & STATE_SELECTED)))
        return found

    def view(self, window: Ref) -> Ref | None:
        """The window's file view (cached while it lives: Nautilus makes a new one for each folder it shows)."""
        cached = self.views.get(window)
        if cached is not None:
            try:
                if self.role(cached) in VIEW_ROLES and self._showing(cached):
                    return cached
            except LookupError:
                pass
        found = self.views_in(self.published()).get(window) or self._find_view(window)
        if found is not None:
            self.views[window] = found
        return found

    def _showing(self, ref: Ref) -> bool:
        states = self.call(ref, ACCESSIBLE, "GetState")[0]
        return bool(states[0] & VISIBLE)

    def _find_view(self, window: Ref) -> Ref | None:
        stack = [window]
        while stack:
            ref = stack.pop()
            try:
                role = self.role(ref)
                if role in VIEW_ROLES and self._showing(ref):
                    return ref
                if role not in SKIPPED_ROLES:
                    stack.extend(reversed(self.children(ref)))
            except LookupError:
                continue
        return None

    def items(self, view: Ref) -> list[ViewItem]:
        """The laid-out items of a file view: the file name (the cell's first named child) and whether selected."""
        cached = self.items_in(view, self.published())
        if cached is not None:
            return cached
        found = []
        for index, cell in enumerate(self.children(view)):
            states = self.call(cell, ACCESSIBLE, "GetState")[0]
            name = next((n for n in (self.name(c) for c in self.children(cell)) if n), "")
            found.append(ViewItem(index, name, bool(states[0] & STATE_SELECTED)))
        return found

    def select(self, view: Ref, indexes: list[int], *, clear: bool = True) -> None:
        if clear:
            self.call(view, SELECTION, "ClearSelection")
        for index in indexes:
            self.call(view, SELECTION, "SelectChild", "i", (index,))

    def select_all(self, view: Ref) -> None:
        self.call(view, SELECTION, "SelectAll")

    def clear(self, view: Ref) -> None:
        self.call(view, SELECTION, "ClearSelection")
