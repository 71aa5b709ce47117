"""A program's top-level X windows on a private display, through xdotool: find one by title, fit it.

GUI launch specs need this much of a window manager, which a bare Xvfb lacks: wait for the document's
window to be shown, then make it fill the screen (what a maximised window does on a desktop).
"""

from __future__ import annotations

import shutil
import subprocess
import time

from asil.apps.process import ProgramFailed
from asil.protocol import AppUnavailable

INSTALL_HINT = "Install it with: apt-get install xdotool"
TIMEOUT_S = 20.0


def _xdotool(display: str, *args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("xdotool")
    if binary is None:
        raise AppUnavailable("xdotool is not installed.", hint=INSTALL_HINT)
    return subprocess.run([binary, *args], env={"DISPLAY": display}, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def find_window(display: str, title_pattern: str) -> str | None:
    """The id of the first mapped window whose title matches the regular expression, or None."""
    done = _xdotool(display, "search", "--onlyvisible", "--name", title_pattern)
    ids = done.stdout.split()
    return ids[0] if ids else None


def fit(display: str, window: str, size: tuple[int, int]) -> None:
    """Move the window to the top left corner and size it to the whole screen (what maximising does)."""
    _xdotool(display, "windowmove", "--sync", window, "0", "0")
    _xdotool(display, "windowsize", window, str(size[0]), str(size[1]))
    wait_painted(display, size)


def wait_painted(display: str, size: tuple[int, int], timeout_s: float = TIMEOUT_S) -> None:
    """Wait until the program has painted its window at the new size: the screen's bottom right corner, black
    (Xvfb's bare root) until then, shows the window. Input sent before that could land outside the window."""
    from PIL import ImageGrab

    corner = (size[0] - 3, size[1] - 3)
    deadline = time.monotonic() + timeout_s
    while ImageGrab.grab(xdisplay=display).getpixel(corner) in (0, (0, 0, 0)):
        if time.monotonic() > deadline:
            raise ProgramFailed(f"The program's window was not painted at {size[0]}x{size[1]} within {timeout_s:g} s.")
        time.sleep(0.05)
