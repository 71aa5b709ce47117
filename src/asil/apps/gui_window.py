"""Arranging a GUI session's main window on its private display, where no window manager does it."""

from __future__ import annotations

import shutil
import subprocess
import time

from asil.apps.process import ProgramFailed

WINDOW_WAIT_S = 30.0
DIALOG_WAIT_S = 5.0  # a dialog still open after this was left open by the person: sync what the program holds


def fill_screen(display: str, window_class: str, size: tuple[int, int]) -> bool:
    """Move the program's visible main window (by WM_CLASS) to 0,0 and give it the whole screen.

    Without a window manager a program's window keeps its own size and place (OBS and Audacity open
    smaller than the screen; a "maximized" setting needs a window manager to mean anything), so the
    GUI session does what maximizing would. Returns False when xdotool is missing or no window showed.
    """
    xdotool = shutil.which("xdotool")
    if xdotool is None:
        return False  # the window stays as the program placed it; GuiEnv names xdotool at the first input
    width, height = size
    # --maxdepth 1: with no window manager the top-level windows are the root's children (deeper matches
    # are the program's own widgets)
    done = subprocess.run([xdotool, "search", "--sync", "--onlyvisible", "--maxdepth", "1", "--classname",
                           window_class, "windowmove", "0", "0", "windowsize", str(width), str(height)],
                          env={"DISPLAY": display}, capture_output=True, timeout=WINDOW_WAIT_S)
    return done.returncode == 0


def shown_windows(display: str, window_class: str) -> list[str]:
    """The program's visible top-level windows (ids): its main window, plus any dialog or menu it shows."""
    xdotool = shutil.which("xdotool")
    if xdotool is None:
        return []
    done = subprocess.run([xdotool, "search", "--onlyvisible", "--maxdepth", "1", "--classname", window_class],
                          env={"DISPLAY": display}, capture_output=True, text=True, timeout=WINDOW_WAIT_S)
    return done.stdout.split()


def await_dialogs_closed(display: str, window_class: str, timeout_s: float = DIALOG_WAIT_S) -> bool:
    """Wait (bounded) until only the main window shows: a dialog the person just confirmed (OK pressed,
    the window not yet gone on a loaded machine) has then applied its change. False if one stays open."""
    deadline = time.monotonic() + timeout_s
    while len(shown_windows(display, window_class)) > 1:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def find_window(display: str, title_pattern: str) -> str | None:
    """The id of the first visible window whose title matches the regular expression, or None (while a
    program is starting: its document's window, e.g. ``target.svg - Inkscape``, is not shown yet)."""
    xdotool = shutil.which("xdotool")
    if xdotool is None:
        return None
    done = subprocess.run([xdotool, "search", "--onlyvisible", "--name", title_pattern], env={"DISPLAY": display},
                          capture_output=True, text=True, timeout=WINDOW_WAIT_S)
    ids = done.stdout.split()
    return ids[0] if ids else None


def wait_painted(display: str, size: tuple[int, int], timeout_s: float = WINDOW_WAIT_S) -> None:
    """Wait until the program has painted its window at the size ``fill_screen`` gave it: the screen's bottom
    right corner, black (the bare Xvfb root) until then, shows the window. Input sent before that can land
    outside the window (a recorded first click did, now and then, on a loaded machine)."""
    from PIL import ImageGrab

    corner = (size[0] - 3, size[1] - 3)
    deadline = time.monotonic() + timeout_s
    while ImageGrab.grab(xdisplay=display).getpixel(corner) in (0, (0, 0, 0)):
        if time.monotonic() > deadline:
            raise ProgramFailed(f"The program's window was not painted at {size[0]}x{size[1]} within {timeout_s:g} s.")
        time.sleep(0.05)
