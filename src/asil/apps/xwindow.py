"""A program's top-level X windows on a private display, through xdotool: find, fit, name, focus, press.

The GUI launch specs of programs without a scripting channel into their open document (Inkscape) need
this much of the window system: wait for the document's window, make it fill the screen (the bare Xvfb
has no window manager to do it), read its title (where the program shows an unsaved change) and press
the program's own Save shortcut into it.
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


def window_title(display: str, window: str) -> str:
    return _xdotool(display, "getwindowname", window).stdout.strip()


def fit(display: str, window: str, size: tuple[int, int]) -> None:
    """Move the window to the top left corner and size it to the whole screen (what maximising does)."""
    _xdotool(display, "windowmove", "--sync", window, "0", "0")
    _xdotool(display, "windowsize", window, str(size[0]), str(size[1]))


def press(display: str, window: str, keys: str) -> None:
    """Give the window the keyboard focus and press ``keys`` (xdotool combos) as real (XTEST) input."""
    _xdotool(display, "windowfocus", "--sync", window)
    _xdotool(display, "key", "--clearmodifiers", keys)
