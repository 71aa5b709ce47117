"""A private D-Bus session bus for one GUI program, and GApplication actions called over it.

GTK programs export their application and window actions on the session bus (``org.gtk.Actions``).
A bus of our own per program (``dbus-daemon --session`` on a socket in a private folder) keeps two
episodes' programs from finding each other's names, and lets ASIL run a program's own command (for
example Inkscape's ``document-save``) and know when it has finished: ``Activate`` returns after it ran.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

INSTALL_HINT = "Install it with: apt-get install dbus libglib2.0-bin"
START_TIMEOUT_S = 10.0
CALL_TIMEOUT_S = 60


class SessionBus:
    """One running ``dbus-daemon --session`` listening on a socket file in its own folder."""

    def __init__(self) -> None:
        daemon = shutil.which("dbus-daemon")
        if daemon is None or shutil.which("gdbus") is None:
            raise AppUnavailable("A GUI program's private D-Bus needs dbus-daemon and gdbus.", hint=INSTALL_HINT)
        self.folder = Path(tempfile.mkdtemp(prefix="asil-bus-"))
        self.address = f"unix:path={self.folder / 'bus'}"
        self.process = ManagedProcess("dbus-daemon", [daemon, "--session", "--nofork", "--nopidfile",
                                                      f"--address={self.address}"], log=self.folder / "bus.log")
        self.process.wait_until((self.folder / "bus").exists, START_TIMEOUT_S, "opening its socket")

    def env(self) -> dict[str, str]:
        return {"DBUS_SESSION_BUS_ADDRESS": self.address}

    def activate(self, name: str, path: str, action: str) -> None:
        """Run the GAction ``action`` of the object at ``path``; returns after the program ran it."""
        done = self._gdbus("call", "--dest", name, "--object-path", path, "--method", "org.gtk.Actions.Activate",
                           action, "[]", "{}")
        if done.returncode != 0:
            raise ProgramFailed(f"{name} did not run its {action!r} action: {done.stderr.strip() or done.returncode}.")

    def _gdbus(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["gdbus", args[0], "--session", *args[1:]], env={**self.env(), "PATH": "/usr/bin:/bin"},
                              capture_output=True, text=True, timeout=CALL_TIMEOUT_S)

    def stop(self) -> None:
        self.process.stop(grace_s=1.0)
        shutil.rmtree(self.folder, ignore_errors=True)
