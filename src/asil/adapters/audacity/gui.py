"""Audacity's GUI launch spec: the real Audacity window on the task's audio or project, for the GUI participant.

The Audacity is the adapter's own (same sandbox, private home and mod-script-pipe, the document imported
or opened the same way), started with its window filling a private 1280x800 Xvfb and its usual toolbars
instead of the adapter's small bare window. What a person does there lives in Audacity's project; the
sync asks Audacity over mod-script-pipe to write it, exactly as the adapter's ``save`` does for an ASIL
episode: a .wav document is exported by Audacity (``Export2``), an .aup3 project saved by Audacity
(``SaveCopy``), and the labels beside a .wav are those Audacity reports (``GetInfo: Type=Labels``).
"""

from __future__ import annotations

from asil.adapters.audacity.adapter import AudacityAdapter
from asil.adapters.visible_window import VisibleAdapterSession, launch_visible
from asil.apps.audacity import GUI_SCREEN
from asil.workspace import Workspace


class AudacityGuiSession(VisibleAdapterSession):
    adapter_class = AudacityAdapter
    window_class = "audacity"  # the main window's WM_CLASS instance name
    program = "Audacity"
    gone = "Audacity is not running any more; the document holds what was last saved"
    screen = GUI_SCREEN

    def stored(self) -> str:
        how = "saved as a project by Audacity (SaveCopy)" if self.adapter.is_project else \
            "exported by Audacity (Export2), labels as Audacity reports them"
        return f"stored {self.adapter.path.name} {how}"


def launch(workspace: Workspace, document: str | None) -> AudacityGuiSession:
    """The GUI launch spec of Audacity (``AppPlugin.gui``): its window on the task's document."""
    return launch_visible(AudacityGuiSession(workspace, document))
