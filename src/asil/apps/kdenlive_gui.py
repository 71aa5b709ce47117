"""Kdenlive's window on a task's project, in a private Xvfb, for the GUI participant (issue 15).

The program is started as ``asil.apps.kdenlive.open_document`` starts it (seeded configuration, private TMPDIR and
session bus). The GUI-to-canonical sync is Kdenlive's own save: the main window gets the keyboard focus (there is
no window manager to give it; without it Ctrl+S did nothing here) and Ctrl+S, then the sync waits until the title
loses its ``*`` (Kdenlive marks an unsaved document so). An unchanged document is not written again.
"""

from __future__ import annotations

import subprocess
import time

from asil.apps.kdenlive import KdenliveWindow, open_document
from asil.apps.process import ProgramFailed
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

SAVE_TIMEOUT_S = 20.0
SCREEN = (1280, 800)


class GuiKdenlive:
    """One visible Kdenlive on one project."""

    settle_grace_s = 1.0  # Kdenlive repaints its timeline a moment after a key

    def __init__(self, window: KdenliveWindow):
        self.window = window
        self.size = SCREEN

    @property
    def display_name(self) -> str:
        return self.window.display.name

    def _unsaved(self) -> bool:
        return any(t.startswith(f"{self.window.document.stem} */") for t in self.window.titles())

    def sync(self) -> str:
        """Kdenlive saves the project itself (Ctrl+S in its focused main window); say what happened."""
        name = self.window.document.name
        if not self.window.process.alive:
            return f"Kdenlive was not running any more; {name} holds what was last saved"
        if not self._unsaved():
            return f"stored {name}: Kdenlive showed no unsaved change, the file is as it was"
        env = {"DISPLAY": self.display_name}
        main = next((w for w, t in self.window.windows() if t.startswith(f"{self.window.document.stem} ")), None)
        if main is None:
            raise ProgramFailed(f"Kdenlive's main window for {name} is not shown (a dialog may cover it).")
        subprocess.run(["xdotool", "windowfocus", "--sync", main], env=env, capture_output=True, timeout=10)
        subprocess.run(["xdotool", "key", "ctrl+s"], env=env, capture_output=True, timeout=10)
        deadline = time.monotonic() + SAVE_TIMEOUT_S
        while self._unsaved():
            if time.monotonic() > deadline:
                raise ProgramFailed(f"Kdenlive did not save {name} within {SAVE_TIMEOUT_S:g} s (Ctrl+S).")
            time.sleep(0.2)
        return f"stored {name} through Kdenlive (Ctrl+S)"

    def stop(self) -> None:
        self.window.stop()


def launch(workspace: Workspace, document: str | None) -> GuiKdenlive:
    """The GUI launch spec of Kdenlive (``AppPlugin.gui``): Kdenlive's window on the task's project."""
    if document is None:
        raise AppUnavailable("A Kdenlive GUI episode needs the task's project, and this task names none.")
    return GuiKdenlive(open_document(workspace.resolve(document), SCREEN))
