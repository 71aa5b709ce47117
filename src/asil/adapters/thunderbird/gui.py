"""A visible Thunderbird on a task's mailbox, in a private Xvfb at 1280x800, for the GUI participant.

The services are the adapter's own: a private Dovecot serving a live copy of the task's Maildir, the
local SMTP sink, and a Thunderbird whose profile lives in the workspace's private area (its ``user.js``
turns off the default-client question, the start page, update checks, telemetry and the account
wizard: the one IMAP account is already configured). The only difference from the adapter is that
Thunderbird runs visible on its own display instead of ``--headless``; its main window shows the
account's folders, and compose windows open as a person opens them (Ctrl+N).

The GUI-to-canonical sync is the adapter's ``save()``, done by the programs themselves: Thunderbird
writes its filters, prefs and address book through its own APIs (the ``flush`` operation), the open
compose windows are read from the live program, and the Maildir Dovecot keeps (where Thunderbird's
moves, flags, sent copies and drafts land over IMAP) is copied into the workspace. Sent mail is in the
SMTP sink already, written as Thunderbird delivered it.
"""

from __future__ import annotations

import time
from pathlib import Path

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.apps.accessibility_bus import AccessibleDisplay, start_accessible_display
from asil.apps.display import Display, start_display
from asil.apps.process import ProgramFailed
from asil.workspace import Workspace

SCREEN = (1280, 800)
MAIN_WINDOW_TIMEOUT_S = 30.0
IDLE_S = 0.5  # the sink and the Maildir must be unchanged this long: delivery and IMAP writes come in bursts
SYNC_CAP_S = 15.0

# Thunderbird's main window has painted its folder tree once the account's folders are listed in it.
FOLDERS_SHOWN = """
const win = Services.wm.getMostRecentWindow("mail:3pane");
const about3 = win && win.gTabmail && win.gTabmail.currentAbout3Pane;
return Boolean(about3 && about3.document.readyState === "complete" && about3.folderTree
               && about3.folderTree.querySelectorAll("li").length > 1);
"""

# A person's Thunderbird reopens on the inbox; a new profile opens on the account's start page instead.
SHOW_INBOX = """
const about3 = Services.wm.getMostRecentWindow("mail:3pane").gTabmail.currentAbout3Pane;
const inbox = MailServices.accounts.getAccount("account1").incomingServer.rootFolder
  .getFolderWithFlags(Ci.nsMsgFolderFlags.Inbox);
about3.displayFolder(inbox);
return about3.gDBView ? about3.gDBView.rowCount : -1;
"""

# Compose windows still sending or saving (Thunderbird's own flags in MsgComposeCommands.js): a sent
# message reaches the sink and the Sent folder only when its window has finished.
COMPOSE_BUSY = """
let busy = 0;
for (const w of Services.wm.getEnumerator("msgcompose")) {
  if (w.gWindowLocked || w.gSendOperationInProgress || w.gSaveOperationInProgress) busy += 1;
}
return busy;
"""


def mail_files(root: Path) -> list[tuple[str, int, int]]:
    """Every file under ``root`` with its size and mtime (a Maildir or the SMTP sink)."""
    found = []
    for path in sorted(root.rglob("*")) if root.exists() else []:
        try:
            info = path.stat()
        except OSError:  # renamed between listing and stat (Dovecot moves new/ to cur/): not still yet
            found.append((str(path), -1, -1))
            continue
        found.append((str(path), info.st_size, info.st_mtime_ns))
    return found


class GuiThunderbird:
    """The adapter's services with Thunderbird visible at 1280x800; ``sync`` and ``stop`` as a GuiSession."""

    def __init__(self, workspace: Workspace, document: str | None, accessibility: bool = False):
        self.size = SCREEN
        # with ``accessibility`` the display carries an accessibility bus Thunderbird publishes its widgets on
        self.display: Display | None = start_accessible_display(*SCREEN) if accessibility else start_display(*SCREEN)
        try:
            self.adapter = ThunderbirdAdapter(workspace, document, display=self.display)
        except BaseException:  # e.g. the task's mailbox is not a Maildir: the display must not outlive this
            self.display.stop()
            raise

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the GUI Thunderbird is stopped"
        return self.display.name

    def accessibility_address(self) -> str | None:
        return self.display.bus.address if isinstance(self.display, AccessibleDisplay) else None

    def start(self) -> None:
        """Start Dovecot, the sink and Thunderbird (the adapter's first observation) and wait for its folders."""
        self.adapter.observe()
        session = self.adapter.session
        assert session is not None and session.marionette is not None
        deadline = time.monotonic() + MAIN_WINDOW_TIMEOUT_S
        while not session.marionette.execute(FOLDERS_SHOWN, [], MAIN_WINDOW_TIMEOUT_S):
            if time.monotonic() > deadline:
                raise ProgramFailed(f"Thunderbird did not show its folders within {MAIN_WINDOW_TIMEOUT_S:g} s.")
            time.sleep(0.1)
        while session.marionette.execute(SHOW_INBOX, [], MAIN_WINDOW_TIMEOUT_S) < 0:  # until its message list exists
            if time.monotonic() > deadline:
                raise ProgramFailed(f"Thunderbird did not list the inbox within {MAIN_WINDOW_TIMEOUT_S:g} s.")
            time.sleep(0.1)

    def sync(self) -> str:
        """Let Thunderbird's deliveries and IMAP writes land, then the adapter's save(); say what was done."""
        adapter = self.adapter
        if adapter.session is None or not adapter.session.alive:
            adapter.save()
            return "Thunderbird was not running any more; exported the Maildir as Dovecot holds it"
        waited = self.wait_idle([adapter.outbox, adapter.dovecot.maildir if adapter.dovecot else adapter.maildir])
        adapter.save()
        sent = len(list(adapter.outbox.glob("*.eml")))
        return (f"mail traffic settled after {waited:.1f} s; Thunderbird flushed its filters, prefs and address book, "
                f"{len(adapter.compose_seen)} open compose window(s) were read from it, Dovecot's Maildir was "
                f"exported and the SMTP sink holds {sent} message(s)")

    def compose_busy(self) -> int:
        """How many compose windows Thunderbird is still sending or saving."""
        session = self.adapter.session
        assert session is not None and session.marionette is not None
        return int(session.marionette.execute(COMPOSE_BUSY, [], SYNC_CAP_S))

    def wait_idle(self, roots: list[Path]) -> float:
        """Seconds until no compose window was busy and the files under ``roots`` were unchanged for IDLE_S
        (at most SYNC_CAP_S)."""
        started = time.monotonic()
        last, since = [mail_files(r) for r in roots], time.monotonic()
        while time.monotonic() - started < SYNC_CAP_S:
            time.sleep(0.1)
            now = [mail_files(r) for r in roots]
            if now != last or self.compose_busy():
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= IDLE_S:
                break
        return time.monotonic() - started

    def stop(self) -> None:
        self.adapter.close()
        if self.display is not None:
            self.display.stop()
            self.display = None


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiThunderbird:
    """The GUI launch spec of Thunderbird (``AppPlugin.gui``): its main window on the task's mailbox."""
    gui = GuiThunderbird(workspace, document, accessibility)
    try:
        gui.start()
    except BaseException:  # a half-started Thunderbird still holds its display, Dovecot and sink
        gui.stop()
        raise
    return gui


__all__ = ["GuiThunderbird", "launch"]
