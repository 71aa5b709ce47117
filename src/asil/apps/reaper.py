"""The reaper: a tiny watchdog process that kills every program an ASIL process started once that process is gone.

An ASIL process (the CLI running an episode, a bench worker, the MCP server) stops its programs
itself when it exits normally, on Ctrl-C or on SIGTERM. When it cannot — SIGKILL, the OOM killer, a
crash of the interpreter — its programs (LibreOffice, Blender, GIMP, Xvfb, Chromium, ...) would live
on. So the first time a process starts a program, it also starts a reaper: a separate Python process,
in its own session, deaf to SIGINT/SIGTERM/SIGHUP, that reads a pipe from its owner. The pipe ends
only when the owner is gone, however it died; the reaper then SIGKILLs

* every process whose environment carries the owner's mark (``ASIL_REAPER=<token>``, put in the
  owner's ``os.environ`` so every program and all it starts inherit it, and into every explicit
  environment through :func:`tag`), and
* the process groups the owner registered with :func:`watch` (every program is a group leader),
  which also covers helpers that rewrite their environment block (setproctitle),

and exits. It works whichever thread started the program, unlike a parent-death signal, which fires
when the *thread* that forked exits and reaches only the direct child. After a normal exit it finds
nothing left to kill. The one gap: a SIGKILL of the reaper itself, which nothing in ASIL sends.

This file runs as a script too (``python -I reaper.py TOKEN``), so it imports only the standard library.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path

MARK = "ASIL_REAPER"
_lock = threading.RLock()  # re-entrant: a signal handler may stop a program while the main thread writes
_owner_pid = 0
_token = ""
_pipe = -1  # our end of the reaper's stdin


def ensure() -> str:
    """Start this process's reaper if it has none (or it died); return the mark's token."""
    global _owner_pid, _token, _pipe
    with _lock:
        if _pipe >= 0 and _owner_pid == os.getpid():
            return _token
        if _pipe >= 0:  # a forked child: the parent's pipe must not keep the parent's reaper waiting
            os.close(_pipe)
        token = f"{os.getpid()}-{secrets.token_hex(8)}"
        read_end, write_end = os.pipe()  # both close-on-exec; the reaper gets the read end as its stdin
        # posix_spawn, not subprocess: no Popen object to warn "still running" when this process exits
        os.posix_spawn(sys.executable, [sys.executable, "-I", str(Path(__file__).resolve()), token],
                       {"PATH": os.defpath}, setsid=True,
                       file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0),
                                     (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        os.close(read_end)
        _owner_pid, _token, _pipe = os.getpid(), token, write_end
        os.environ[MARK] = token  # every program started from now on inherits the mark
        return token


def tag(env: dict[str, str] | None) -> dict[str, str] | None:
    """``env`` for a program about to start, with the mark (None inherits ``os.environ``, which has it)."""
    token = ensure()
    return None if env is None else {**env, MARK: token}


def watch(pid: int) -> None:
    """Register the process group led by ``pid`` (a program just started with ``start_new_session``)."""
    _send(f"+{pid}\n")


def forget(pid: int) -> None:
    """The group led by ``pid`` was stopped: do not kill a later group that reuses the number."""
    _send(f"-{pid}\n")


def _send(line: str) -> None:
    global _pipe
    ensure()
    with _lock:
        try:
            os.write(_pipe, line.encode())  # a short line: one atomic write to a pipe
        except OSError:  # the reaper died: the next ensure() starts another
            os.close(_pipe)
            _pipe = -1


# ---- the reaper process -----------------------------------------------------------------------------

def _start_time(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]  # field 22: start time in clock ticks since boot


def marked(token: str) -> list[int]:
    """Processes whose environment carries ``token``'s mark."""
    return with_environment(MARK, token)


def with_environment(name: str, value: str) -> list[int]:
    """Processes whose environment has ``name=value`` (a mark children inherit)."""
    needle = f"{name}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found.append(int(entry.name))
    return found


def reap(token: str, groups: dict[int, str | None]) -> None:
    """SIGKILL the registered groups and the marked processes, until none is left (bounded)."""
    me = os.getpid()
    for _ in range(50):
        for leader, started in groups.items():
            now = _start_time(leader)
            if now is not None and now != started:
                continue  # the number now leads someone else's group
            try:
                os.killpg(leader, signal.SIGKILL)
            except OSError:
                pass
        found = [pid for pid in marked(token) if pid != me]
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not found:
            return
        time.sleep(0.1)


def main(token: str) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # a Ctrl-C or a kill of the owner's group must not stop us first
    groups: dict[int, str | None] = {}
    for line in sys.stdin.buffer:  # ends when the owner's end of the pipe closes: the owner is gone
        sign, pid = line[:1], int(line[1:])
        if sign == b"+":
            groups[pid] = _start_time(pid)
        else:
            groups.pop(pid, None)
    reap(token, groups)


if __name__ == "__main__":
    main(sys.argv[1])
