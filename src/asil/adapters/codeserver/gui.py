"""The GUI launch spec of code-server: the real VS Code web UI on the task's workspace, in a visible chromium.

code-server serves the workspace folder with the same profile the adapter, the evaluator and the raw
validator read (``<workspace>/.asil/codeserver``: user settings, keybindings, extensions), so whatever
VS Code writes there, or into the workspace's files, is what gets judged. What the GUI needs on top
goes into VS Code's *machine* settings (``user-data/Machine/settings.json``), which the window applies
over the user settings but no judge reads: no welcome page or walkthrough, no workspace-trust question
(also ``--disable-workspace-trust``), no telemetry or update notice, and ASIL's private ``.asil`` folder
hidden from the Explorer.

The GUI-to-canonical sync is VS Code's own "File: Save All" (``Ctrl+K S``) pressed in the window: VS Code
writes every unsaved editor itself. The sync then waits until the window's title lost its "●" (the
unsaved mark of the active editor) and the screen is still.
"""

from __future__ import annotations

import json
import time

from asil.adapters.codeserver.state import profile_of
from asil.apps.browser_gui import BrowserWindow, InBrowser
from asil.apps.codeserver import CodeServerSession, Profile
from asil.workspace import Workspace

WINDOW_TIMEOUT_S = 60.0  # the workbench connects its extension host in 4-7 s here; a loaded machine doubles it
SAVE_TIMEOUT_S = 10.0
SAVED_QUIET_S = 0.3  # the tab's unsaved dot and the Explorer redraw once the files are written
FILLED_QUIET_S = 1.0  # the workbench paints the Explorer and restored editors with pauses shorter than this
# What the window's extension host logs once the workbench has started and activated the extensions that
# start with it: the window has read the user's settings (its theme) and is done with its first work.
STARTED = "Eager extensions activated"
UNSAVED_MARK = "●"
MACHINE_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.ignoreRecommendations": True,
    "git.openRepositoryInParentFolders": "never",
    "files.exclude": {".asil": True},
}


def started_windows(profile: Profile) -> int:
    """How many windows' extension hosts have logged that the window started (one log per window)."""
    count = 0
    for log in profile.user_data.glob("logs/*/exthost*/remoteexthost.log"):
        try:
            count += log.read_text(encoding="utf-8", errors="replace").count(STARTED)
        except OSError:
            pass
    return count


def seed_machine_settings(profile: Profile) -> None:
    machine = profile.user_data / "Machine"
    machine.mkdir(parents=True, exist_ok=True)
    (machine / "settings.json").write_text(json.dumps(MACHINE_SETTINGS, indent=2), encoding="utf-8")


class GuiCodeServer(InBrowser):
    """code-server on a workspace, and the visible VS Code window on it."""

    program = "VS Code"

    def __init__(self, workspace: Workspace):
        self.profile = profile_of(workspace.root)
        self.profile.create()
        seed_machine_settings(self.profile)
        self.server: CodeServerSession | None = CodeServerSession(workspace.root, self.profile)
        self.window: BrowserWindow | None = None

    def open_window(self) -> None:
        """Show the workbench; return once it has started (the window is usable) and stopped painting."""
        assert self.server is not None
        seen = started_windows(self.profile)
        self.window = BrowserWindow(self.server.url, self.profile.root / "gui", env=self.profile.env(),
                                    accessibility=self.accessibility)
        assert self.window.process is not None
        self.window.process.wait_until(lambda: started_windows(self.profile) > seen, WINDOW_TIMEOUT_S,
                                       "the VS Code window started")
        # then the Explorer lists the folder and the editors come back, in bursts: wait until the screen
        # has been still for a while (no constant: a slow machine waits longer, a fast one not at all)
        self.window.wait_still(FILLED_QUIET_S, WINDOW_TIMEOUT_S / 4)

    def sync(self) -> str:
        """VS Code's own Save All, pressed in the window; say whether everything got saved."""
        if self.window is None or not self.window.alive:
            return "the VS Code window was closed; the files hold what VS Code last saved"
        self.window.press("ctrl+k s")
        deadline = time.monotonic() + SAVE_TIMEOUT_S
        while UNSAVED_MARK in self.window.title() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.window.wait_still(SAVED_QUIET_S, SAVE_TIMEOUT_S)
        if UNSAVED_MARK in self.window.title():
            return f"stored nothing: VS Code's Save All (Ctrl+K S) left unsaved work ({self.window.title()!r})"
        return "stored all open editors through VS Code's own Save All (Ctrl+K S in the window)"

    def stop(self) -> None:
        if self.window is not None:
            self.window.stop()
            self.window = None
        if self.server is not None:
            self.server.stop()
            self.server = None


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiCodeServer:
    """The GUI launch spec of code-server (``AppPlugin.gui``): VS Code in chromium on the task's workspace."""
    return GuiCodeServer(workspace).opened(accessibility)
