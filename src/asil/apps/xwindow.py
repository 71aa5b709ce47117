"""A program's top-level X windows on a private display, through xdotool: find one by title, fit it.

GUI launch specs need this much of a window manager, which a bare Xvfb lacks: wait for the document's
window to be shown, then make it fill the screen (what a maximised window does on a desktop).
"""

from __future__ import annotations

import shutil
import subprocess

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
