"""A visible Blender on a task's .blend, in a private Xvfb, for the GUI participant.

Unlike the warm headless session (asil.apps.blender), this Blender shows its window, drawn with Mesa's
software OpenGL (llvmpipe: Blender 3.4 needs OpenGL 3.3, which Xvfb's GLX offers through it). It starts
with ``--factory-startup`` (no user preferences, add-ons or startup file from this machine) and a config
folder of its own; opening a file on the command line shows no splash, and the startup script turns the
splash and the autosave off anyway. The script (``blender_scripts/asil_blender_gui.py``) also listens
on a private Unix socket for one request, ``save``: the GUI-to-canonical sync asks the same Blender to
write its .blend with its own save operator, as Ctrl+S does.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path

from asil.apps.blender import INSTALL_HINT, blender_path
from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.apps.sandbox import program_env
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

START_TIMEOUT_S = 60.0
SAVE_TIMEOUT_S = 30.0
SCREEN = (1280, 800)
# Blender redraws its whole window with llvmpipe after an input: 0.3-0.8 s here on a loaded machine, longer
# than the settle wait's default grace, which would then return the frame from before the action.
SETTLE_GRACE_S = 1.5


def gui_script() -> Path:
    return Path(str(resources.files("asil.apps") / "blender_scripts" / "asil_blender_gui.py"))


class GuiBlender:
    """One visible Blender on one .blend, on its own Xvfb display and config folder."""

    def __init__(self, document: Path, width: int = SCREEN[0], height: int = SCREEN[1]):
        self.document = document
        self.size = (width, height)
        self.display: Display | None = None
        self.process: ManagedProcess | None = None
        self.folder: Path | None = None
        self.settle_grace_s = SETTLE_GRACE_S

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the GUI Blender is not started"
        return self.display.name

    @property
    def address(self) -> str:
        assert self.folder is not None
        return str(self.folder / "save.sock")

    def start(self) -> None:
        """Start Xvfb and Blender; return once Blender's save listener is up (its window is open)."""
        binary = blender_path()
        if binary is None:
            raise AppUnavailable("Blender is not installed.", hint=INSTALL_HINT)
        self.display = start_display(*self.size)
        self.folder = Path(tempfile.mkdtemp(prefix="asil-blender-gui-"))
        config = str(self.folder / "config")
        # Software GL: Xvfb has no GPU; llvmpipe gives the OpenGL 3.3 core profile Blender 3.4 asks for.
        env = {**program_env(str(self.folder), BLENDER_USER_CONFIG=config, BLENDER_USER_SCRIPTS=config),
               **self.display.env(), "LIBGL_ALWAYS_SOFTWARE": "1"}
        # Without a window manager nothing gives the window the focus: Blender takes it itself (no
        # --no-window-focus, with which the session's first click was sometimes lost: 2 of 6 runs here).
        width, height = self.size
        args = [binary, "--factory-startup", "-noaudio", "--window-geometry", "0", "0", str(width), str(height),
                str(self.document), "--python", str(gui_script()), "--", self.address]
        self.process = ManagedProcess("Blender (GUI)", args, log=self.folder / "blender.log", env=env)
        self.process.wait_until(lambda: Path(self.address).exists(), START_TIMEOUT_S, "opening its window")
        self._focus_window()

    def _focus_window(self) -> None:
        """Give Blender's window the keyboard focus, as a window manager would when it is shown.

        There is no window manager in the private Xvfb, and a Blender that never got a FocusIn ignored every
        click and key of the episode (2 of 6 runs here).
        """
        assert self.display is not None
        xdotool = shutil.which("xdotool")
        if xdotool is None:
            raise AppUnavailable("xdotool is not installed.", hint="Install it with: apt-get install xdotool")
        found = subprocess.run([xdotool, "search", "--onlyvisible", "--class", "blender"], env=self.display.env(),
                               capture_output=True, text=True, timeout=10)
        for window in found.stdout.split():
            subprocess.run([xdotool, "windowfocus", "--sync", window], env=self.display.env(), capture_output=True,
                           timeout=10)

    def sync(self) -> str:
        """The GUI-to-canonical sync of a GUI episode: Blender saves the .blend; say what happened."""
        if self.process is None or not self.process.alive:
            return f"Blender was not running any more; {self.document.name} holds what was last saved"
        reply = self._request("save")
        if not reply.get("ok"):
            raise ProgramFailed(f"Blender did not save {self.document.name}: {reply.get('message')}")
        return f"stored {self.document.name} through Blender (bpy.ops.wm.save_mainfile, as Ctrl+S)"

    def _request(self, line: str) -> dict[str, object]:
        deadline = time.monotonic() + SAVE_TIMEOUT_S
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(SAVE_TIMEOUT_S)  # Blender answers between two redraws; a modal operator delays it
            conn.connect(self.address)
            conn.sendall(line.encode("utf-8") + b"\n")
            answer = conn.makefile("r", encoding="utf-8").readline()
        if not answer:
            raise ProgramFailed(f"Blender closed the save listener without an answer "
                                f"({deadline - time.monotonic():.0f} s before the timeout).")
        reply: dict[str, object] = json.loads(answer)
        return reply

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace_s=2.0)
            self.process = None
        if self.display is not None:
            self.display.stop()
            self.display = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def launch(workspace: Workspace, document: str | None) -> GuiBlender:
    """The GUI launch spec of Blender (``AppPlugin.gui``): Blender's window on the task's .blend."""
    if document is None:
        raise AppUnavailable("A Blender GUI episode needs the task's .blend, and this task names none.")
    blender = GuiBlender(workspace.resolve(document))
    try:
        blender.start()
    except BaseException:  # a half-started Blender still holds its Xvfb and folder
        blender.stop()
        raise
    return blender
