"""The real Kdenlive (Debian 12's 22.12) with one document open in a private Xvfb.

Kdenlive shows a usable window there, without its first-run dialogs, once three things are seeded (found by
running it, see docs/gui.md): a ``kdenliverc`` with a ``[version]`` group (without it Kdenlive runs its
"Welcome to Kdenlive" wizard), a private ``TMPDIR`` (its startup lock ``$TMPDIR/kdenlivelock``, left by a
killed instance, makes the next one offer to reset the configuration) and a private session bus
(``dbus-run-session``). Everything it writes stays in a temporary HOME removed by ``stop()``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

KDENLIVE_VERSION = "22.12.3"
OPEN_TIMEOUT_S = 60.0
LATE_DIALOG_S = 2.0  # a dialog about the document comes right after the main window shows its name


@dataclass
class KdenliveWindow:
    """Kdenlive running on ``document``: its display, process and private HOME."""

    document: Path
    display: Display
    process: ManagedProcess
    home: Path

    def windows(self) -> list[tuple[str, str]]:
        """Kdenlive's visible top-level windows, (id, title): its main window and any dialog it shows."""
        # xdotool's --name matches WM_NAME, which Kdenlive sets without the " — Kdenlive" that getwindowname
        # reads (_NET_WM_NAME): list every named window, then read the full titles
        env = {"DISPLAY": self.display.name}
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--maxdepth", "1", "--name", "."], env=env,
                               capture_output=True, text=True, timeout=10)
        named = ((w, subprocess.run(["xdotool", "getwindowname", w], env=env, capture_output=True, text=True,
                                    timeout=10).stdout.strip()) for w in found.stdout.split())
        return [(w, title) for w, title in named if title]

    def titles(self) -> list[str]:
        return sorted(title for _, title in self.windows())

    def main_title(self) -> str:
        """The main window's title once the document is loaded: ``<name> / <profile> — Kdenlive``."""
        return f"{self.document.stem} / "

    def stop(self) -> None:
        self.process.stop()
        self.display.stop()
        shutil.rmtree(self.home, ignore_errors=True)


def _home() -> Path:
    home = Path(tempfile.mkdtemp(prefix="asil-kdenlive-home-"))
    (home / ".config").mkdir()
    (home / ".config" / "kdenliverc").write_text(f"[version]\nversion={KDENLIVE_VERSION}\n")
    (home / "tmp").mkdir()
    return home


def open_document(document: Path, size: tuple[int, int] = (1280, 800)) -> KdenliveWindow:
    """Start Kdenlive on ``document`` and return once its main window or a dialog about the document shows."""
    binary, bus = shutil.which("kdenlive"), shutil.which("dbus-run-session")
    if binary is None or bus is None or shutil.which("xdotool") is None:
        raise AppUnavailable("Kdenlive, dbus-run-session or xdotool is not installed.",
                             hint="apt-get install kdenlive dbus xdotool")
    display, home = start_display(*size), _home()
    env = dict(os.environ, DISPLAY=display.name, HOME=str(home), TMPDIR=str(home / "tmp"),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_CACHE_HOME=str(home / ".cache"))
    args = [bus, "--", binary, "-qwindowgeometry", f"{size[0]}x{size[1]}+0+0", str(document)]
    process = ManagedProcess("kdenlive", args, log=home / "kdenlive.log", env=env, cwd=document.parent)
    window = KdenliveWindow(document, display, process, home)
    try:
        process.wait_until(lambda: _document_shown(window), OPEN_TIMEOUT_S, "its window showed the document")
    except ProgramFailed:
        window.stop()
        raise
    time.sleep(LATE_DIALOG_S)
    return window


def _document_shown(window: KdenliveWindow) -> bool:
    """The main window names the document, or a dialog shows (a main window's title holds " / ", a dialog's not)."""
    titles = window.titles()
    return any(t.startswith(window.main_title()) or " / " not in t for t in titles)
