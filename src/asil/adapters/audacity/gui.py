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
from asil.apps.audacity import GUI_SCREEN
from asil.apps.gui_window import await_dialogs_closed, fill_screen
from asil.workspace import Workspace

WINDOW_CLASS = "audacity"  # the project window's WM_CLASS instance name
OPEN_DIALOG = "; a dialog of Audacity was still open, and what it would change is not in the file"


class AudacityGuiSession:
    """A visible Audacity on the task's document; ``sync`` has Audacity write it to the workspace."""

    def __init__(self, workspace: Workspace, document: str | None):
        self.size = GUI_SCREEN
        self.adapter = AudacityAdapter(workspace, document, visible=True)

    @property
    def display_name(self) -> str:
        session = self.adapter.session
        assert session is not None, "the GUI Audacity is not started"
        return session.display.name

    def start(self) -> None:
        self.adapter.start()
        fill_screen(self.display_name, WINDOW_CLASS, self.size)

    def sync(self) -> str:
        """Have Audacity write the project to the task's document, and say how."""
        session = self.adapter.session
        if session is None or not session.alive:  # never restart it here: that would bring back the original
            return "Audacity is not running any more; the document holds what was last saved"
        settled = await_dialogs_closed(self.display_name, WINDOW_CLASS)
        self.adapter.save_live()
        how = "saved as a project by Audacity (SaveCopy)" if self.adapter.is_project else \
            "exported by Audacity (Export2), labels as Audacity reports them"
        return f"stored {self.adapter.path.name} {how}" + ("" if settled else OPEN_DIALOG)

    def stop(self) -> None:
        self.adapter.close()


def launch(workspace: Workspace, document: str | None) -> AudacityGuiSession:
    """The GUI launch spec of Audacity (``AppPlugin.gui``): its window on the task's document."""
    session = AudacityGuiSession(workspace, document)
    try:
        session.start()
    except BaseException:  # a half-started Audacity still holds its sandbox, Xvfb and private folder
        session.stop()
        raise
    return session
