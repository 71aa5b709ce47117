"""The optional accessibility tree of a GUI observation: the program's widgets read over its AT-SPI bus.

Each shown widget is one line, indented by its depth: role, name in quotes, its bounding box on the
screen as ``@x,y wxh`` (a click at its centre lands on it) and the states that matter for acting on it
(focused, selected, checked, pressed, expanded; ``disabled`` when it does not take input). Unnamed
containers (fillers, panels) are folded into their parent; widgets that are not shown are left out with
their children. The tree is bounded: at most ``max_nodes`` lines, ``max_depth`` levels and ``time_s``
seconds of reading; the text says where it was cut.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from asil.apps.atspi import ACCESSIBLE, COMPONENT, PROPERTIES, SCREEN_COORDS, AtSpiBus, BusSilent, Call, Ref

# AT-SPI state bits (atspi-constants.h, AtspiStateType)
CHECKED, ENABLED, EXPANDED, FOCUSED, PRESSED, SELECTED, SENSITIVE, SHOWING, VISIBLE = 4, 8, 10, 12, 20, 23, 24, 25, 30
SHOWN_STATES = (("focused", FOCUSED), ("selected", SELECTED), ("checked", CHECKED), ("pressed", PRESSED),
                ("expanded", EXPANDED))
# Roles worth a line even without a name: what a person can act on.
ACTIONABLE = {"push button", "button", "toggle button", "check box", "radio button", "menu item", "check menu item",
              "radio menu item", "combo box", "text", "entry", "password text", "spin button", "slider",
              "page tab", "link", "menu", "document frame", "document web", "canvas", "grid", "table", "tree table"}
# Roles that only group others: folded into their parent unless a state makes them worth a line.
CONTAINERS = {"section", "panel", "filler", "grouping", "widget", "unknown", "redundant object", "scroll pane",
              "layered pane", "split pane", "viewport", "form", "block quote", "article"}
TEXT_LEAVES = {"static", "label", "text"}  # a text leaf that repeats its parent's name says nothing new
BIG_AREA = 100 * 100  # an unnamed drawing area this large is a canvas (a palette's swatches are not)
MAX_NODES, MAX_DEPTH, TIME_S = 250, 40, 3.0
# GTK 4 names a widget without a label after its type ("GtkImage", "AdwGizmo"): no name for a person
GTK_TYPE_NAME = re.compile(r"(Gtk|Adw|Gdk)[A-Z]\w*")
BATCH = 40  # siblings asked about in one round trip (five calls each)
VISITED_PER_LINE = 6  # widgets looked at per line written: folded containers cost reads too


@dataclass
class TreeLimits:
    """How much of the tree an observation may hold, and how long reading it may take."""

    screen: tuple[int, int]  # widgets outside it are not shown
    max_nodes: int = MAX_NODES
    max_depth: int = MAX_DEPTH
    time_s: float = TIME_S


@dataclass
class AccessibilityTree:
    """The tree as text for the model, with what it cost."""

    text: str
    nodes: int  # lines written
    read_ms: float
    cut: list[str] = field(default_factory=list)  # why it is incomplete, if it is


class _Reader:
    def __init__(self, bus: AtSpiBus, limits: TreeLimits):
        self.bus, self.limits = bus, limits
        self.deadline = time.monotonic() + limits.time_s
        self.lines: list[str] = []
        self.visited = 0
        self.cut: set[str] = set()

    def full(self) -> bool:
        if len(self.lines) >= self.limits.max_nodes or self.visited >= self.limits.max_nodes * VISITED_PER_LINE:
            self.cut.add(f"node cap {self.limits.max_nodes}")
        elif time.monotonic() >= self.deadline:
            self.cut.add(f"time limit {self.limits.time_s:g} s")
        else:
            return False
        return True

    def application(self, app: Ref) -> None:
        self.lines.append(f'application "{self.bus.name(app)}"')
        self.widgets(self.bus.children(app), depth=1, indent=1, above="")

    def widgets(self, refs: list[Ref], depth: int, indent: int, above: str) -> None:
        """Write each sibling (unless folded) and its shown children; ``above`` is the last written ancestor's name."""
        for first in range(0, len(refs), BATCH):
            group = refs[first:first + BATCH]
            replies = self.bus.batch([call for ref in group for call in questions(ref)])
            for number in range(len(group)):
                if self.full():
                    return
                self.visited += 1
                self.widget(replies[number * len(QUESTIONS):(number + 1) * len(QUESTIONS)], depth, indent, above)

    def widget(self, replies: list[Any], depth: int, indent: int, above: str) -> None:
        """One widget from its five replies (each a reply body or a LookupError)."""
        states_of, role_of, name_of, box_of, children_of = replies
        if any(isinstance(reply, LookupError) for reply in (states_of, role_of, name_of, children_of)):
            return  # the widget went away while it was read (a closing menu)
        low, high = states_of[0][:2]
        states = int(low) | int(high) << 32
        if not states & (1 << VISIBLE) and not states & (1 << SHOWING):
            return  # not shown: neither it nor its children can be clicked
        role, name = str(role_of[0]), str(name_of[0][1])
        box = None if isinstance(box_of, LookupError) else screen_box(box_of[0])
        if box is not None and not on_screen(box, self.limits.screen):
            return  # laid out nowhere (a closed menu's items, a hidden page, a toolbar's overflow)
        if written(role, name, box, states, above):
            self.lines.append("  " * indent + line(role, name, box, states))
            indent, above = indent + 1, name
        if depth >= self.limits.max_depth:
            self.cut.add(f"depth cap {self.limits.max_depth}")
            return
        children = [(str(bus), str(path)) for bus, path in children_of[0]]
        self.widgets(children, depth + 1, indent, above)


def questions(ref: Ref) -> list[Call]:
    """What the reader asks of every widget, in QUESTIONS order."""
    return [(ref, ACCESSIBLE, "GetState", None, ()), (ref, ACCESSIBLE, "GetRoleName", None, ()),
            (ref, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")), (ref, COMPONENT, "GetExtents", "u", (SCREEN_COORDS,)),
            (ref, ACCESSIBLE, "GetChildren", None, ())]


QUESTIONS = ("states", "role", "name", "box", "children")


def written(role: str, name: str, box: tuple[int, int, int, int] | None, states: int, above: str) -> bool:
    """Whether a shown widget gets a line of its own (else its children take its place)."""
    if any(states & (1 << bit) for _, bit in SHOWN_STATES):
        return True
    if role in CONTAINERS or (role in TEXT_LEAVES and name == above):
        return False
    if name and not GTK_TYPE_NAME.fullmatch(name):
        return True
    return role in ACTIONABLE or (role == "drawing area" and box is not None and box[2] * box[3] >= BIG_AREA)


def screen_box(extents: Any) -> tuple[int, int, int, int]:
    x, y, width, height = extents
    return int(x), int(y), int(width), int(height)


def on_screen(box: tuple[int, int, int, int], screen: tuple[int, int]) -> bool:
    x, y, width, height = box
    return width > 0 and height > 0 and x < screen[0] and y < screen[1] and x + width > 0 and y + height > 0


def line(role: str, name: str, box: tuple[int, int, int, int] | None, states: int) -> str:
    """One widget: ``role "name" @x,y wxh states``."""
    parts = [role]
    if name and not GTK_TYPE_NAME.fullmatch(name):
        parts.append('"' + " ".join(name.split())[:80] + '"')
    if box is not None:
        parts.append(f"@{box[0]},{box[1]} {box[2]}x{box[3]}")
    parts += [word for word, bit in SHOWN_STATES if states & (1 << bit)]
    if not states & (1 << ENABLED) and not states & (1 << SENSITIVE):
        parts.append("disabled")
    return " ".join(parts)


def read_tree(address: str, limits: TreeLimits) -> AccessibilityTree:
    """Read every application's shown widgets on the accessibility bus at ``address``, within ``limits``."""
    started = time.monotonic()
    bus = AtSpiBus(address, timeout_s=limits.time_s)
    reader = _Reader(bus, limits)
    try:
        for app in bus.applications():
            try:
                reader.application(app)
            except LookupError:
                continue  # an application (or a window) went away while it was read
    except BusSilent as exc:
        reader.cut.add(f"no answer from the program: {exc}")
    finally:
        bus.close()
    header = (f"Accessibility tree ({len(reader.lines)} widgets; each line role \"name\" @x,y wxh states; "
              "a click at x+w/2, y+h/2 lands on it)")
    if reader.cut:
        header += f"; cut ({', '.join(sorted(reader.cut))}): widgets after the last line are not shown"
    ms = (time.monotonic() - started) * 1000
    return AccessibilityTree("\n".join([header, *reader.lines]), len(reader.lines), ms, sorted(reader.cut))


def widget_tree(session: Any, app: str, limits: TreeLimits | None = None) -> str:
    """The observation's tree text for a GUI session, or one sentence saying why there is none."""
    address_of = getattr(session, "accessibility_address", None)
    address = address_of() if callable(address_of) else None
    if address is None:
        return f"No accessibility tree: {app}'s GUI session publishes no widgets here; the screenshot is the observation."
    try:
        return read_tree(address, limits or TreeLimits(tuple(session.size))).text
    except (OSError, ValueError, LookupError, BusSilent) as exc:  # the bus went away with a closing program
        return f"No accessibility tree this step: the accessibility bus did not answer ({exc})."


__all__ = ["AccessibilityTree", "TreeLimits", "read_tree", "widget_tree"]
