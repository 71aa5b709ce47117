"""A visible chromium app window on a private Xvfb: what the GUI arm of code-server, JupyterLab and draw.io shows.

Both are web applications served on loopback by ASIL's own launchers; a person uses them in a browser,
so the GUI episode shows them in one: chromium in kiosk mode (the page fills the 1280x800 display, no
tab strip or address bar to click away into), with its own profile folder so no first-run question,
stored session or crash bubble appears. The page's title (``document.title``, which both applications
keep up to date, e.g. VS Code's leading "●" for unsaved work) is read from the X window, and keys are
sent with xdotool like every other GUI step.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import TypeVar

from asil.apps.accessibility_bus import AccessibilityBus
from asil.apps.chromium import browser, visible_argv
from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess
from asil.protocol import AppUnavailable

SCREEN = (1280, 800)
XDOTOOL_TIMEOUT_S = 10.0
POLL_S = 0.05
S = TypeVar("S", bound="InBrowser")


class BrowserWindow:
    """One chromium window showing ``url`` on its own display, with its profile under ``folder``."""

    def __init__(self, url: str, folder: Path, env: dict[str, str] | None = None, size: tuple[int, int] = SCREEN,
                 accessibility: bool = False):
        binary = browser()
        if binary is None:
            raise AppUnavailable("A GUI episode of a web application needs chromium.", hint="apt-get install chromium")
        if shutil.which("xdotool") is None:
            raise AppUnavailable("A GUI episode needs xdotool.", hint="apt-get install xdotool")
        self.size = size
        self.display: Display | None = start_display(*size)
        argv, program_env = visible_argv(binary, url, str(folder / "chromium-profile"), size), {**(env or {})}
        self.a11y: AccessibilityBus | None = None
        if accessibility:  # chromium publishes the page's widgets (its atk-bridge) only when forced to
            self.a11y = AccessibilityBus(self.display.env())
            argv, program_env = [*argv, "--force-renderer-accessibility"], self.a11y.program_env(program_env)
        self.process: ManagedProcess | None = ManagedProcess(
            "chromium (GUI)", argv, log=folder / "chromium-gui.log", env={**program_env, **self.display.env()})

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the browser window is stopped"
        return self.display.name

    def accessibility_address(self) -> str | None:
        """The accessibility bus chromium publishes the page on, when started with one."""
        return self.a11y.address if self.a11y is not None else None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.alive

    def title(self) -> str:
        """The page's title as the X window shows it ("" while no window is mapped)."""
        done = self._xdotool("search", "--onlyvisible", "--class", "chromium", "getwindowname")
        names = [line for line in done.stdout.splitlines() if line.strip()]
        return names[-1] if names else ""

    def press(self, keys: str) -> None:
        """Press key combinations (xdotool names, space-separated) in the page, which has the keyboard focus."""
        self._xdotool("key", "--delay", "60", *keys.split())

    def wait_still(self, quiet_s: float, cap_s: float) -> bool:
        """Wait until the screen has not changed for ``quiet_s`` (the page finished painting), at most ``cap_s``.

        The same wait as the GUI environment's settle (``asil.gui.capture``), which this layer cannot import.
        """
        from PIL import ImageGrab

        started = time.monotonic()
        last, since = b"", started
        while time.monotonic() - started < cap_s:
            now = ImageGrab.grab(xdisplay=self.display_name).tobytes()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet_s:
                return True
            time.sleep(POLL_S)
        return False

    def _xdotool(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["xdotool", *args], env={"DISPLAY": self.display_name}, capture_output=True,
                              text=True, timeout=XDOTOOL_TIMEOUT_S, check=False)

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace_s=2.0)
            self.process = None
        for part in (self.a11y, self.display):
            if part is not None:
                part.stop()
        self.a11y = self.display = None


class InBrowser:
    """The GUI-session half that every web app shown in a ``BrowserWindow`` shares: the screen is the window's,
    and a launch that fails half-way stops what it started. A session sets ``window`` in ``open_window``."""

    program = "the browser"  # how the assertion names a closed window
    window: BrowserWindow | None = None
    accessibility = False  # open the window with an accessibility bus (asil.gui.accessibility)

    @property
    def display_name(self) -> str:
        assert self.window is not None, f"the {self.program} window is closed"
        return self.window.display_name

    @property
    def size(self) -> tuple[int, int]:
        assert self.window is not None, f"the {self.program} window is closed"
        return self.window.size

    def open_window(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def accessibility_address(self) -> str | None:
        return self.window.accessibility_address() if self.window is not None else None

    def opened(self: S, accessibility: bool = False) -> S:
        """This session with its window shown (``accessibility``: with an accessibility bus); a half-started one
        (server, display, browser) is stopped."""
        self.accessibility = accessibility
        try:
            self.open_window()
        except BaseException:
            self.stop()
            raise
        return self
