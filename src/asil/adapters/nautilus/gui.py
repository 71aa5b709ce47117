"""A visible Nautilus window on a task's workspace, in a private Xvfb at 1280x800, for the GUI participant.

The program is the adapter's own private Nautilus (:class:`asil.apps.nautilus.NautilusSession`: its own
display, D-Bus session, HOME and XDG folders under ``.asil/nautilus``, GSettings in memory so no
first-run state exists). It starts as the adapter starts it: the windows a task's set-up records are
reopened with their history, tabs and selection; a task without any gets one window on the workspace
root (or the folder the task opens), opened through ``org.gtk.Application.Open`` like ``open_window``.

The GUI-to-canonical sync: what a person does in Nautilus (rename, move, copy, trash) is written to
disk by Nautilus itself; the trash and bookmarks land in the private HOME the evaluator reads. Nautilus
43 publishes no progress of its file jobs on D-Bus, so the sync waits until Nautilus answers on its main
loop and the workspace tree has been still for a moment. The windows (locations, tabs, selection) are
then read from the live program (D-Bus and the accessibility bus) into ``windows.json``, the record the
window checkpoints read, by the adapter's own ``save()``. Back/forward *lists* are ASIL's record of
adapter navigation (Nautilus publishes none), so navigation done by clicks shows only in the real
can-go-back/forward flags.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.adapters.nautilus.navigation import open_window_at
from asil.adapters.nautilus.windows import load_record
from asil.apps.nautilus import FILE_OPS
from asil.workspace import Workspace

SCREEN = (1280, 800)
STILL_S = 0.3  # the tree must be unchanged this long: Nautilus writes a job's files in bursts
SYNC_CAP_S = 15.0


def tree_state(root: Path) -> list[tuple[str, int, int, int]]:
    """Every path under ``root`` (the private area included: trash, bookmarks) with its size, mode and mtime."""
    found = []
    for folder, folders, files in os.walk(root):
        folders.sort()
        for name in sorted(folders + files):
            path = Path(folder) / name
            try:
                info = path.lstat()
            except OSError:  # removed between listing and stat: the tree is not still yet
                found.append((str(path), -1, -1, -1))
                continue
            found.append((str(path), info.st_size, info.st_mode, info.st_mtime_ns))
    return found


class GuiNautilus:
    """The adapter's private Nautilus shown at 1280x800; ``sync`` and ``stop`` as a GuiSession."""

    def __init__(self, workspace: Workspace, folder: str | None):
        self.adapter = NautilusAdapter(workspace, folder, screen=SCREEN)
        self.root = workspace.root
        self.size = SCREEN

    @property
    def display_name(self) -> str:
        session = self.adapter.session
        assert session is not None and session.display is not None, "the GUI Nautilus is stopped"
        return session.display.name

    def accessibility_address(self) -> str | None:
        """The session's accessibility bus (always started: the adapter reads the selection on it)."""
        session = self.adapter.session
        return session.accessibility_address() if session is not None and session.alive else None

    def start(self) -> None:
        """Start Nautilus (reopening recorded windows); with none recorded, open one on the task's folder."""
        recorded = load_record(self.root)
        self.adapter.nautilus()
        if not recorded:
            open_window_at(self.adapter, self.adapter.folder)

    def sync(self) -> str:
        """Wait for Nautilus's file jobs to land, record its windows from the live program; say what was done."""
        session = self.adapter.session
        if session is None or not session.alive:
            return "Nautilus was not running any more; the files hold what it last wrote"
        session.get_property(FILE_OPS, "UndoStatus")  # answered by the main loop once queued work is handed on
        waited = self.wait_still()
        self.adapter.save()
        if self.adapter.lost:
            return f"file jobs settled after {waited:.1f} s; the windows could not be read ({self.adapter.lost})"
        shown = ", ".join(w.get("location", "?") for w in load_record(self.root)) or "none"
        return (f"Nautilus's file jobs had settled on disk after {waited:.1f} s; recorded its open windows "
                f"({shown}) from the live program")

    def wait_still(self) -> float:
        """Seconds until the workspace tree was unchanged for STILL_S (at most SYNC_CAP_S)."""
        started = time.monotonic()
        last, since = tree_state(self.root), time.monotonic()
        while time.monotonic() - started < SYNC_CAP_S:
            time.sleep(0.05)
            now = tree_state(self.root)
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= STILL_S:
                break
        return time.monotonic() - started

    def stop(self) -> None:
        self.adapter.close()


def launch(workspace: Workspace, document: str | None) -> GuiNautilus:
    """The GUI launch spec of Nautilus (``AppPlugin.gui``): its windows on the task's folders."""
    gui = GuiNautilus(workspace, document)
    try:
        gui.start()
    except BaseException:  # a half-started Nautilus still holds its display and bus
        gui.stop()
        raise
    return gui


__all__ = ["GuiNautilus", "launch"]
