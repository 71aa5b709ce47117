"""A private X display (Xvfb) for programs that need one: started on a free number, stopped with its user.

Nothing assumes a display exists: :func:`start_display` picks the first display number with no
lock file, starts Xvfb there with ``-nolisten tcp``, and waits until its socket appears.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

X_SOCKETS = Path("/tmp/.X11-unix")
FIRST_DISPLAY = 90
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends xvfb"


class Display:
    """A running Xvfb; ``env`` holds the DISPLAY value programs need."""

    def __init__(self, number: int, process: ManagedProcess):
        self.number = number
        self.process = process

    @property
    def name(self) -> str:
        return f":{self.number}"

    @property
    def alive(self) -> bool:
        return self.process.alive

    def env(self) -> dict[str, str]:
        return {"DISPLAY": self.name}

    def stop(self) -> None:
        self.process.stop()
        Path(f"/tmp/.X{self.number}-lock").unlink(missing_ok=True)
        (X_SOCKETS / f"X{self.number}").unlink(missing_ok=True)


def xvfb_path() -> str | None:
    return shutil.which("Xvfb")


def _free_number() -> int:
    for number in range(FIRST_DISPLAY, FIRST_DISPLAY + 200):
        if not Path(f"/tmp/.X{number}-lock").exists() and not (X_SOCKETS / f"X{number}").exists():
            return number
    raise ProgramFailed("No free X display number between :90 and :289.")


def start_display(width: int = 1280, height: int = 800, timeout_s: float = 15.0) -> Display:
    """Start Xvfb on a free display number; retry on a race with another starter."""
    binary = xvfb_path()
    if binary is None:
        raise AppUnavailable("Xvfb is not installed.", hint=INSTALL_HINT)
    last: ProgramFailed | None = None
    for _attempt in range(5):
        number = _free_number()
        log = Path(tempfile.gettempdir()) / f"asil-xvfb-{number}.log"
        process = ManagedProcess("Xvfb", [binary, f":{number}", "-screen", "0", f"{width}x{height}x24",
                                          "-nolisten", "tcp", "-noreset"], log=log)
        socket_file = X_SOCKETS / f"X{number}"
        try:
            process.wait_until(socket_file.exists, timeout_s, "its display socket")
        except ProgramFailed as exc:  # most often: another process took this number first
            last = exc
            continue
        return Display(number, process)
    assert last is not None
    raise last
