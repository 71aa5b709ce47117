"""Long-lived programs the adapters start: free loopback ports, process groups, health waits.

Every service or warm program runs in its own process group (``start_new_session``) with its
output in a log file, so stopping it stops everything it spawned and a failure can quote the
log. Each is also registered with this process's reaper (``asil.apps.reaper``), which kills it
if this process dies without stopping it. Nothing here knows any particular program.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

from asil.apps import SPAWN_LOCK, reaper
from asil.protocol import ActionFailed


class ProgramFailed(ActionFailed):
    """A program did not start, stopped answering, or died."""

    code = "program_failed"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.2)
        return probe.connect_ex((host, port)) == 0


def run_once(args: Sequence[str], timeout_s: float, late: str,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a one-shot program to its end, stdin closed and output captured as text.

    It runs in its own session, so when it outlives ``timeout_s`` it and all its helpers are killed
    without touching anyone else's; ProgramFailed then says ``late``.
    """
    process = subprocess.Popen(list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, errors="replace", env=reaper.tag(env), start_new_session=True)
    reaper.watch(process.pid)
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise ProgramFailed(late) from None
    finally:
        reaper.forget(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


# Every program still running, so an exiting Python (normal exit, SystemExit from a signal handler)
# stops them all; a SIGKILLed Python cannot, which is what the reaper (asil.apps.reaper) is for.
_RUNNING: weakref.WeakSet[ManagedProcess] = weakref.WeakSet()


def stop_all_programs() -> None:
    for program in list(_RUNNING):
        program.stop(grace_s=1.0)


atexit.register(stop_all_programs)


GROUP_EXIT_S = 5.0  # how long a stop waits for the killed group's last members to finish exiting


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is still running (a zombie has exited and let go of its files)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _wait_group_gone(pgid: int, timeout_s: float) -> None:
    """A program started again on the same files must not meet its killed predecessor still holding them
    (Syncthing refused to start, "is another instance of Syncthing running?", while its killed child exited)."""
    deadline = time.monotonic() + timeout_s
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)


class ManagedProcess:
    """One started program: its own process group, its log, and a bounded stop."""

    def __init__(self, name: str, args: Sequence[str], *, log: Path, env: dict[str, str] | None = None,
                 cwd: Path | None = None, pass_fds: Sequence[int] = ()):
        self.name = name
        self.log_path = log
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log, "ab")  # noqa: SIM115  (kept open for the process's life)
        with SPAWN_LOCK:
            self.process = subprocess.Popen(
                list(args), stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                env=reaper.tag(env), cwd=cwd, start_new_session=True, pass_fds=tuple(pass_fds))
        reaper.watch(self.process.pid)
        _RUNNING.add(self)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, chars: int = 600) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:].strip()
        except OSError:
            return ""

    def wait_until(self, ready: Callable[[], bool], timeout_s: float, what: str, interval_s: float = 0.1) -> None:
        """Poll ``ready`` until it is true; raise ProgramFailed if the program dies or time runs out."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.alive:
                self.stop()
                raise ProgramFailed(f"{self.name} exited (code {self.process.returncode}) before {what}.",
                                    hint=self.log_tail() or None)
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(interval_s)
        self.stop()
        raise ProgramFailed(f"{self.name} was not ready ({what}) within {timeout_s:g} s and was stopped.",
                            hint=self.log_tail() or None)

    def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM the whole group, SIGKILL it after ``grace_s``; always returns."""
        _RUNNING.discard(self)
        for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
            if self.process.poll() is not None:
                break
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait_s)
            except subprocess.TimeoutExpired:
                continue
        try:  # children that outlived their leader still belong to the group
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _wait_group_gone(self.process.pid, GROUP_EXIT_S)
        reaper.forget(self.process.pid)
        self._log.close()
