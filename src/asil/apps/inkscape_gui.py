"""A visible Inkscape on a task's SVG, in a private Xvfb, for the GUI participant.

The GUI-to-canonical sync runs Inkscape's own ``document-save`` window action (what File > Save and
Ctrl+S run) over the D-Bus interface every Inkscape 1.2 window exports (``org.gtk.Actions`` on
``/org/inkscape/Inkscape/window/1``), on a private session bus started with the program. Inkscape
writes the file itself, as Inkscape SVG (the format the file is already in, so no format question
appears); the D-Bus call returns once the action has run, so the file is complete when the sync ends,
and the keyboard focus or an unfinished repaint cannot lose the save as a pressed Ctrl+S could.
The program runs with its own profile directory (``INKSCAPE_PROFILE_DIR``) whose ``preferences.xml``
turns off the start screen and autosave.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from asil.apps import gui_window
from asil.apps.accessibility_bus import AccessibilityBus
from asil.apps.display import Display, start_display
from asil.apps.inkscape import INSTALL_HINT, inkscape_path
from asil.apps.process import ManagedProcess
from asil.apps.session_bus import SessionBus
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

START_TIMEOUT_S = 60.0
SCREEN = (1280, 800)
BUS_NAME = "org.inkscape.Inkscape"
WINDOW_CLASS = "inkscape"  # its windows' WM_CLASS name
WINDOW_PATH = "/org/inkscape/Inkscape/window/1"  # the first (and only) window of this Inkscape
# No accessibility bus or GVfs daemons on the session bus: they would outlive nothing useful (an observation
# that wants the widget tree starts a bus of its own, see asil.apps.accessibility_bus).
QUIET_ENV = {"NO_AT_BRIDGE": "1", "GTK_A11Y": "none", "GIO_USE_VFS": "local"}

# Merged into Inkscape's defaults: no start screen (the welcome dialog of 1.x), no autosave copies,
# no window geometry remembered between runs (the launch sizes the window to the screen itself).
PREFERENCES = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<inkscape version="1" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
  xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape">
  <group id="options">
    <group id="boot" enabled="0" />
    <group id="autosave" enable="0" />
    <group id="savewindowgeometry" value="0" />
  </group>
</inkscape>
"""


class GuiInkscape:
    """One visible Inkscape on one SVG, on its own Xvfb display, D-Bus session bus and profile."""

    def __init__(self, document: Path, width: int = SCREEN[0], height: int = SCREEN[1], accessibility: bool = False):
        self.document = document
        self.accessibility = accessibility
        self.size = (width, height)
        self.display: Display | None = None
        self.bus: SessionBus | None = None
        self.process: ManagedProcess | None = None
        self.profile: Path | None = None
        self.a11y: AccessibilityBus | None = None

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the GUI Inkscape is not started"
        return self.display.name

    def start(self) -> None:
        """Start Xvfb, the bus and Inkscape; return once the document's window is shown and fills the screen."""
        binary = inkscape_path()
        if binary is None:
            raise AppUnavailable("Inkscape is not installed.", hint=INSTALL_HINT)
        self.display = start_display(*self.size)
        self.bus = SessionBus()
        self.profile = Path(tempfile.mkdtemp(prefix="asil-ink-gui-"))
        (self.profile / "preferences.xml").write_text(PREFERENCES, encoding="utf-8")
        env = {**_inherited(), **QUIET_ENV, **self.display.env(), **self.bus.env(),
               "HOME": str(self.profile), "INKSCAPE_PROFILE_DIR": str(self.profile)}
        if self.accessibility:  # GTK 3's atk-bridge publishes the widgets on a bus of their own
            self.a11y = AccessibilityBus(self.display.env())
            env = self.a11y.program_env(env)
        self.process = ManagedProcess("Inkscape (GUI)", [binary, str(self.document)],
                                      log=self.profile / "inkscape.log", env=env)
        self.process.wait_until(self._window_shown, START_TIMEOUT_S, "showing the document's window")
        gui_window.fill_screen(self.display_name, WINDOW_CLASS, self.size)
        gui_window.wait_painted(self.display_name, self.size)

    def accessibility_address(self) -> str | None:
        """The accessibility bus Inkscape publishes its widgets on, when started with one."""
        return self.a11y.address if self.a11y is not None else None

    def _window_shown(self) -> bool:
        title = rf"^\*?{re.escape(self.document.name)} - Inkscape$"  # "*" marks unsaved changes
        # (GtkApplication exports a window's actions on the bus when the window is added, before it is shown)
        return gui_window.find_window(self.display_name, title) is not None

    def sync(self) -> str:
        """The GUI-to-canonical sync: Inkscape's own ``document-save`` action (File > Save), say what it did."""
        if self.process is None or not self.process.alive or self.bus is None:
            return f"Inkscape was not running any more; {self.document.name} holds what was last saved"
        before = _stamp(self.document)
        self.bus.activate(BUS_NAME, WINDOW_PATH, "document-save")
        if _stamp(self.document) == before:  # Inkscape writes nothing when nothing changed since it opened
            return f"Inkscape had no unsaved change; {self.document.name} holds what was last saved"
        return f"stored {self.document.name} through Inkscape (its document-save action, as Ctrl+S)"

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace_s=2.0)
            self.process = None
        for part in (self.a11y, self.bus, self.display):
            if part is not None:
                part.stop()
        self.a11y, self.bus, self.display = None, None, None
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


def _stamp(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_mtime_ns, status.st_size


def _inherited() -> dict[str, str]:
    """The few variables of ours a GUI program needs: where programs are, the locale."""
    return {key: value for key, value in os.environ.items() if key in ("PATH", "LANG", "LC_ALL")}


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiInkscape:
    """The GUI launch spec of the Inkscape app (``AppPlugin.gui``): Inkscape on the task's SVG
    (``accessibility``: with an accessibility bus its widgets are published on)."""
    if document is None:
        raise AppUnavailable("An Inkscape GUI episode needs the task's SVG document, and this task names none.")
    inkscape = GuiInkscape(workspace.resolve(document), accessibility=accessibility)
    try:
        inkscape.start()
    except BaseException:  # a half-started Inkscape still holds its Xvfb, bus and profile
        inkscape.stop()
        raise
    return inkscape
