"""OBS's GUI launch spec: the real OBS main window on the task's scene collection, for the GUI participant.

The OBS is the adapter's own (same private config, same collection, profiles and video, same websocket),
started with its main window shown on a private 1280x800 Xvfb instead of minimized to the tray. What a
person does in that window lives in OBS; the sync makes OBS write its scene collection itself (its own
save, which it runs on a scene-item move) and keeps that file, with the profile, video settings and
collections OBS reports over obs-websocket, in the workspace exactly as the adapter's ``save`` does for
an ASIL episode, so the task's unchanged evaluator and raw validator read what OBS holds.
"""

from __future__ import annotations

from asil.adapters.obs.adapter import ObsAdapter
from asil.apps.gui_window import await_dialogs_closed, fill_screen
from asil.apps.obs import GUI_SCREEN
from asil.workspace import Workspace

WINDOW_CLASS = "obs"  # the main window's WM_CLASS instance name
OPEN_DIALOG = "; a dialog of OBS was still open, and what it would change is not in the file"


class ObsGuiSession:
    """A visible OBS on the task's collection; ``sync`` has OBS save it to the workspace."""

    def __init__(self, workspace: Workspace, document: str | None):
        self.size = GUI_SCREEN
        self.adapter = ObsAdapter(workspace, document, visible=True)

    @property
    def display_name(self) -> str:
        session = self.adapter.session
        assert session is not None and session.display is not None, "the GUI OBS is not started"
        return session.display.name

    def start(self) -> None:
        self.adapter.start()
        fill_screen(self.display_name, WINDOW_CLASS, self.size)

    def sync(self) -> str:
        """Have OBS save its collection and keep it, with what OBS reports of its setup, in the workspace."""
        session = self.adapter.session
        if session is None or not session.alive:
            return "OBS is not running any more; the workspace holds the collection as it was"
        settled = await_dialogs_closed(self.display_name, WINDOW_CLASS)
        self.adapter.save_live()
        return (f"stored {self.adapter.doc} from the scene collection OBS itself saved "
                f"(collection {self.adapter.collection_name!r}, profile {self.adapter.profile!r})"
                + ("" if settled else OPEN_DIALOG))

    def stop(self) -> None:
        self.adapter.close()


def launch(workspace: Workspace, document: str | None) -> ObsGuiSession:
    """The GUI launch spec of OBS (``AppPlugin.gui``): OBS's main window on the task's collection."""
    session = ObsGuiSession(workspace, document)
    try:
        session.start()
    except BaseException:  # a half-started OBS still holds its Xvfb and config folder
        session.stop()
        raise
    return session
