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
from asil.adapters.visible_window import VisibleAdapterSession, launch_visible
from asil.apps.obs import GUI_SCREEN
from asil.workspace import Workspace


class ObsGuiSession(VisibleAdapterSession):
    adapter_class = ObsAdapter
    window_class = "obs"  # the main window's WM_CLASS instance name
    program = "OBS"
    gone = "OBS is not running any more; the workspace holds the collection as it was"
    screen = GUI_SCREEN

    def stored(self) -> str:
        return (f"stored {self.adapter.doc} from the scene collection OBS itself saved "
                f"(collection {self.adapter.collection_name!r}, profile {self.adapter.profile!r})")


def launch(workspace: Workspace, document: str | None) -> ObsGuiSession:
    """The GUI launch spec of OBS (``AppPlugin.gui``): OBS's main window on the task's collection."""
    return launch_visible(ObsGuiSession(workspace, document))
