"""A visible LibreOffice on a task's document, in a private Xvfb, for the GUI participant.

Unlike the warm headless ``Office`` (asil.apps.libreoffice), this one shows its window: it is what a
person (or a computer-use model) sees and clicks. It has its own profile (``-env:UserInstallation``)
seeded so no first-start dialog, tip of the day or recovery prompt covers the document, and it listens
on a private UNO pipe only so that ASIL can *store* the document through the same LibreOffice at the end
(the GUI-to-canonical sync: exactly what Ctrl+S does, without the Keep-format dialog).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from asil.apps.display import Display, start_display
from asil.apps.libreoffice import _office_environment, import_uno, soffice_path
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

START_TIMEOUT_S = 60.0
SCREEN = (1280, 800)

# Besides what the headless launcher turns off (locks, autosave, recovery): the first-start wizard, the
# tip of the day, the "what's new" infobar, the Keep-format question, Calc's AutoInput (which would
# complete typed text from the column and change what a recorded keystroke sequence enters).
_PROP = '<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse"><value>{value}</value></prop></item>'
_SETTINGS = [
    ("/org.openoffice.Office.Common/Misc", "UseLocking", "false"),
    ("/org.openoffice.Office.Common/Misc", "FirstRun", "false"),
    ("/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "false"),
    ("/org.openoffice.Office.Common/Misc", "ShowDonation", "false"),
    ("/org.openoffice.Office.Common/Misc", "ShowGetInvolved", "false"),
    ("/org.openoffice.Setup/Office", "ooSetupInstCompleted", "true"),
    ("/org.openoffice.Setup/Product", "ooSetupLastVersion", "99.0"),
    ("/org.openoffice.Setup/Product", "LastTimeDonateShown", "9999999999"),
    ("/org.openoffice.Setup/Product", "LastTimeGetInvolvedShown", "9999999999"),
    ("/org.openoffice.Office.Common/Save/Document", "AutoSave", "false"),
    ("/org.openoffice.Office.Common/Save/Document", "WarnAlienFormat", "false"),
    ("/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "false"),
    ("/org.openoffice.Office.Calc/Input", "AutoInput", "false"),
    ("/org.openoffice.Office.Common/AutoCorrect", "SingleQuoteAtStart", "0"),
]
_REGISTRY = ('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
             'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
             + "\n".join(_PROP.format(path=p, name=n, value=v) for p, n, v in _SETTINGS) + "\n</oor:items>\n")


class GuiOffice:
    """One visible soffice on one document, on its own Xvfb display and profile."""

    def __init__(self, document: Path, width: int = SCREEN[0], height: int = SCREEN[1]):
        self.document = document
        self.size = (width, height)
        self.display: Display | None = None
        self.process: ManagedProcess | None = None
        self.profile: Path | None = None
        self._context: Any = None

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the GUI LibreOffice is not started"
        return self.display.name

    def start(self) -> None:
        """Start Xvfb and soffice; return once the document's window is open (its model is loaded)."""
        binary = soffice_path()
        if binary is None:
            raise AppUnavailable("LibreOffice (soffice) is not installed.",
                                 hint="Install it with: apt-get install libreoffice-calc libreoffice-writer "
                                      "libreoffice-impress python3-uno")
        uno = import_uno()
        self.display = start_display(*self.size)
        self.profile = Path(tempfile.mkdtemp(prefix="asil-lo-gui-"))
        (self.profile / "user").mkdir()
        (self.profile / "user" / "registrymodifications.xcu").write_text(_REGISTRY, encoding="utf-8")
        pipe = f"asil-gui-{os.getpid()}-{id(self)}"
        env = {**_office_environment(uno), **self.display.env(), "SAL_USE_VCLPLUGIN": "gen"}
        args = [binary, "--nologo", "--norestore", "--nolockcheck", "--nodefault",
                f"-env:UserInstallation={self.profile.as_uri()}",
                f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext", str(self.document)]
        self.process = ManagedProcess("LibreOffice (GUI)", args, log=self.profile / "soffice.log", env=env)
        self._context = self._connect(uno, pipe)
        self.process.wait_until(self._window_shown, START_TIMEOUT_S, "showing the document's window")

    def _window_shown(self) -> bool:
        model = self.document_model()
        if model is None:
            return False
        controller = model.getCurrentController()
        return controller is not None and bool(controller.getFrame().getContainerWindow().isVisible())

    def _connect(self, uno: Any, pipe: str) -> Any:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + START_TIMEOUT_S
        assert self.process is not None
        while time.monotonic() < deadline and self.process.alive:
            try:
                return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            except Exception:  # NoConnectException until the listener is up
                time.sleep(0.1)
        self.stop()
        raise ProgramFailed(f"LibreOffice (GUI) did not open its UNO pipe within {START_TIMEOUT_S:g} s.")

    def document_model(self) -> Any:
        """The open document (an XModel) whose file is ours, or None while it is still loading."""
        desktop = self._context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", self._context)
        components = desktop.getComponents().createEnumeration()
        while components.hasMoreElements():
            component = components.nextElement()
            if hasattr(component, "getURL") and component.getURL() == self.document.as_uri():
                return component
        return None

    def sync(self) -> str:
        """The GUI-to-canonical sync of a GUI episode: store the document, and say what happened."""
        if self.store():
            return f"stored {self.document.name} through LibreOffice (as Ctrl+S keeping its format)"
        return f"{self.document.name} was not open any more; the file holds what was last saved"

    def store(self) -> bool:
        """Save the document through this LibreOffice in its own format (the GUI-to-canonical sync).

        Returns False when there is no document to store: the person closed it (then the file on disk is
        whatever they last saved, which is what the evaluator reads).
        """
        if self.process is None or not self.process.alive:
            return False
        model = self.document_model()
        if model is None:
            return False
        # The Save command is what Ctrl+S runs: unlike XStorable.store() it first ends a cell or text edit
        # still in progress, as a person's save would. The document is ODF, so no Keep-format question.
        frame = model.getCurrentController().getFrame()
        helper = self._context.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper",
                                                                        self._context)
        helper.executeDispatch(frame, ".uno:Save", "", 0, ())
        if model.isModified():  # the command was refused (a modal dialog is open): store what the model holds
            model.store()
        return True

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace_s=2.0)
            self.process = None
        self._context = None
        if self.display is not None:
            self.display.stop()
            self.display = None
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


def launch(workspace: Workspace, document: str | None) -> GuiOffice:
    """The GUI launch spec of Calc, Writer and Impress (``AppPlugin.gui``): soffice on the task's document."""
    if document is None:
        raise AppUnavailable("A LibreOffice GUI episode needs the task's document, and this task names none.")
    office = GuiOffice(workspace.resolve(document))
    try:
        office.start()
    except BaseException:  # a half-started office still holds its Xvfb and profile
        office.stop()
        raise
    return office
