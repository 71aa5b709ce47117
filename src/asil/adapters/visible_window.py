"""A GUI launch spec made of an adapter's own program shown in a window (OBS, Audacity).

The session is the app's adapter started with ``visible=True``: the same program, private area and control
channel as in an ASIL episode, with its main window filling a private 1280x800 Xvfb. The sync waits for any
dialog the person just confirmed to close and then has the program write its state through the adapter's
``save_live``; each app only says what was stored.
"""

from __future__ import annotations

from typing import Any, TypeVar

from asil.apps.gui_window import await_dialogs_closed, fill_screen
from asil.workspace import Workspace

Session = TypeVar("Session", bound="VisibleAdapterSession")


class VisibleAdapterSession:
    """The adapter's own program, visible; subclasses name the adapter, the window and what a sync stored."""

    adapter_class: Any
    window_class: str  # the main window's WM_CLASS instance name
    program: str  # for the sentences: "OBS", "Audacity"
    gone: str  # what the sync says when the program has exited
    screen: tuple[int, int]

    def __init__(self, workspace: Workspace, document: str | None):
        self.size = self.screen
        self.adapter = self.adapter_class(workspace, document, visible=True)

    @property
    def display_name(self) -> str:
        session = self.adapter.session
        assert session is not None and session.display is not None, f"the GUI {self.program} is not started"
        return str(session.display.name)

    def start(self) -> None:
        self.adapter.start()
        fill_screen(self.display_name, self.window_class, self.size)

    def sync(self) -> str:
        """Have the program write its state to the workspace, and say how."""
        session = self.adapter.session
        if session is None or not session.alive:  # never restart it here: that would bring back the original
            return self.gone
        settled = await_dialogs_closed(self.display_name, self.window_class)
        self.adapter.save_live()
        opened = f"; a dialog of {self.program} was still open, and what it would change is not in the file"
        return self.stored() + ("" if settled else opened)

    def stored(self) -> str:
        raise NotImplementedError

    def stop(self) -> None:
        self.adapter.close()


def launch_visible(session: Session) -> Session:
    """Start the session; a half-started program still holds its Xvfb and private folder, so stop it then."""
    try:
        session.start()
    except BaseException:
        session.stop()
        raise
    return session
