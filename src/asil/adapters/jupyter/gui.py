"""The GUI launch spec of JupyterLab: the real JupyterLab 4 web UI on the task's notebook, in a visible chromium.

The server is the adapter's own JupyterLab mode (``Lab``: jupyter_server + jupyterlab on the workspace,
kernels only in ASIL's sandbox, the task's notebook open in the saved layout), and the window is
chromium in kiosk mode on ``/lab/tree/<notebook>``. Its private settings folder gets JupyterLab user
settings that keep first-use prompts off the page: no "get notified about Jupyter news?" toast and no
update check.

The GUI-to-canonical sync is JupyterLab's own save (``Ctrl+S``, the docmanager:save command) pressed in
the window: JupyterLab writes the notebook through its contents API, exactly as a person's save does.
The sync waits until the file's modification time moved (the server wrote it), then records the kernels
that run (what the lab checkpoints read once the server is gone), as the adapter does when it saves.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from pathlib import Path
from typing import Any

from asil.adapters.jupyter.lab import Lab
from asil.apps.browser_gui import BrowserWindow, InBrowser
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

WINDOW_TIMEOUT_S = 60.0  # the page loads and opens the notebook in 3-6 s here; a loaded machine doubles it
SAVE_TIMEOUT_S = 10.0
FILLED_QUIET_S = 1.0  # JupyterLab paints the notebook, then the kernel's status, with pauses shorter than this
# JupyterLab user settings (plugin id -> values); the server keeps them in its private config folder
USER_SETTINGS: dict[str, dict[str, Any]] = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def seed_user_settings(lab: Lab) -> None:
    """Store the settings through the server's settings API, where the page reads them when it loads."""
    for plugin_id, values in USER_SETTINGS.items():
        lab.request("PUT", f"/lab/api/settings/{plugin_id}", {"raw": json.dumps(values)})


class GuiLab(InBrowser):
    """The workspace's JupyterLab server, and the visible JupyterLab page on the task's notebook."""

    program = "JupyterLab"

    def __init__(self, workspace: Workspace, notebook: str):
        self.workspace, self.notebook = workspace, notebook
        self.lab = Lab(workspace, notebook)
        self.window: BrowserWindow | None = None

    def open_window(self) -> None:
        """Start the server and show the notebook; return once the page shows it and has stopped painting."""
        server = self.lab.ensure()
        seed_user_settings(self.lab)
        url = f"http://127.0.0.1:{server.port}/lab/tree/{urllib.parse.quote(self.notebook)}?token={server.token}"
        window = self.window = BrowserWindow(url, self.workspace.private("jupyterlab-gui"),
                                                 accessibility=self.accessibility)
        assert window.process is not None
        window.process.wait_until(lambda: window.title().startswith(Path(self.notebook).name), WINDOW_TIMEOUT_S,
                                  f"JupyterLab showed {self.notebook}")
        window.wait_still(FILLED_QUIET_S, WINDOW_TIMEOUT_S / 4)

    def _modified(self) -> str | None:
        model = self.lab.model(self.notebook)
        return str(model.get("last_modified")) if model else None

    def sync(self) -> str:
        """JupyterLab's own save, pressed in the window; say whether the notebook file was written."""
        if self.window is None or not self.window.alive or not self.lab.running:
            return f"the JupyterLab window was closed; {self.notebook} holds what JupyterLab last saved"
        before = self._modified()
        self.window.press("ctrl+s")
        deadline = time.monotonic() + SAVE_TIMEOUT_S
        while self._modified() == before and time.monotonic() < deadline:
            time.sleep(0.1)
        saved = self._modified() != before
        self.lab.record()
        if not saved:
            return f"stored nothing: JupyterLab's save (Ctrl+S) did not write {self.notebook} within {SAVE_TIMEOUT_S:g} s"
        return f"stored {self.notebook} through JupyterLab's own save (Ctrl+S in the window)"

    def stop(self) -> None:
        if self.window is not None:
            self.window.stop()
            self.window = None
        self.lab.close()


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiLab:
    """The GUI launch spec of Jupyter (``AppPlugin.gui``): JupyterLab in chromium on the task's notebook."""
    if document is None:
        raise AppUnavailable("A JupyterLab GUI episode needs the task's notebook, and this task names none.")
    return GuiLab(workspace, document).opened(accessibility)
