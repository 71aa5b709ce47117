"""A private X display (Xvfb) for programs that need one: started on a free number, stopped with its user.

Nothing assumes a display exists. Xvfb chooses a free display number itself (``-displayfd``)
and writes it to a pipe once it listens, so two starters can never race for one number.
"""

from __future__ import annotations

import os
import select
import shutil
import tempfile
import time
from pathlib import Path

from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

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
        # Nothing to clean up by hand: a stopped Xvfb removes its socket itself, and a socket file left by
        # a killed one is replaced by the next server to take the number (the abstract socket, which dies
        # with its process, is what reserves a number). Deleting the file here raced with that next server.
        self.process.stop()
        shutil.rmtree(self.process.log_path.parent, ignore_errors=True)


def xvfb_path() -> str | None:
    return shutil.which("Xvfb")


def start_display(width: int = 1280, height: int = 800, timeout_s: float = 15.0) -> Display:
    """Start Xvfb on a display number it picks; return once it accepts clients."""
    binary = xvfb_path()
    if binary is None:
        raise AppUnavailable("Xvfb is not installed.", hint=INSTALL_HINT)
    read_end, write_end = os.pipe()
    log = Path(tempfile.mkdtemp(prefix="asil-xvfb-")) / "xvfb.log"
    try:
        process = ManagedProcess("Xvfb", [binary, "-displayfd", str(write_end), "-screen", "0",
                                          f"{width}x{height}x24", "-nolisten", "tcp", "-noreset"],
                                 log=log, pass_fds=[write_end])
    finally:
        os.close(write_end)
    try:
        number = _read_display_number(read_end, process, timeout_s)
    finally:
        os.close(read_end)
    return Display(number, process)


def _read_display_number(read_end: int, process: ManagedProcess, timeout_s: float) -> int:
    """The number Xvfb writes (then a newline) once its display is ready."""
    deadline = time.monotonic() + timeout_s
    text = b""
    while not text.endswith(b"\n"):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read_end], [], [], max(0.0, min(left, 0.2)))
        chunk = os.read(read_end, 16) if ready else b""
        text += chunk
        if ready and not chunk:  # the pipe closed: Xvfb exited before it was ready
            break
        if left <= 0:
            process.stop()
            raise ProgramFailed(f"Xvfb did not open a display within {timeout_s:g} s and was stopped.",
                                hint=process.log_tail() or None)
    if not text.strip().isdigit():
        process.stop()
        raise ProgramFailed("Xvfb exited before it opened a display.", hint=process.log_tail() or None)
    return int(text.strip())
