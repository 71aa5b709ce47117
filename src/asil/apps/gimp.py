"""A warm GIMP: one ``gimp-console`` per session running the Script-Fu server on a loopback port.

Why the Script-Fu server rather than a batch interpreter fed over a pipe: the server frames
every reply ('G', an error flag, a length), so a result can never be confused with log noise
on stdout, and an error is a flag rather than text to guess at. Every request has a timeout;
a timed-out or dead GIMP is stopped (its whole process group) and the caller gets
:class:`GimpCrashed` — the adapter decides how to recover.

GIMP never sees the user's profile: each session gets its own ``GIMP2_DIRECTORY`` and ``HOME``,
copied from a profile template built once under the ASIL cache (a fresh GIMP profile costs
about 5 s of plug-in queries; a copied one starts in about 2 s).
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from asil.apps.process import ManagedProcess, ProgramFailed, free_port, port_open
from asil.apps.sandbox import program_env
from asil.protocol import ActionFailed, AppUnavailable

START_TIMEOUT_S = 60.0
REQUEST_TIMEOUT_S = 30.0
POLL_S = 0.25  # how often a waiting request checks that GIMP is still alive
MAX_REQUEST = 65_535  # the server's length field is two bytes
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends gimp"


class GimpCrashed(ProgramFailed):
    """GIMP died or did not answer in time; the process is gone."""

    code = "gimp_crashed"


class ScriptError(ActionFailed):
    """GIMP answered with a Script-Fu error; GIMP itself is still running."""

    code = "gimp_error"


def gimp_path() -> str | None:
    return shutil.which("gimp-console")


def helpers_script() -> Path:
    return Path(str(resources.files("asil.apps") / "gimp_scripts" / "asil_gimp.scm"))


def scheme_string(text: str) -> str:
    """``text`` as a Script-Fu string literal: the only way agent text ever reaches Scheme."""
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise ValueError("control characters cannot be sent to GIMP")
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _cache_root() -> Path:
    from asil.workspace import cache_dir

    return cache_dir() / "gimp"


def gimp_env(home: Path, profile: Path) -> dict[str, str]:
    """No display, a private HOME and profile, none of ASIL's variables (no API key or token); fontconfig's
    cache is shared (it is safe to share)."""
    return program_env(str(home), GIMP2_DIRECTORY=str(profile), XDG_CONFIG_HOME=str(home / ".config"),
                       XDG_CACHE_HOME=str(_cache_root() / "xdg-cache"), LC_ALL="C.UTF-8")


def profile_template() -> Path:
    """A GIMP profile initialised once (plug-ins queried), copied into every session."""
    template = _cache_root() / "profile-2.10"
    if (template / "pluginrc").is_file():
        return template
    binary = _require_binary()
    with tempfile.TemporaryDirectory(prefix="asil-gimp-profile-") as scratch:
        fresh = Path(scratch) / "profile"
        one_shot_raw(binary, ["-b", "(gimp-quit 0)"], gimp_env(Path(scratch), fresh), 120, Path(scratch))
        if not (fresh / "pluginrc").is_file():
            raise AppUnavailable("GIMP could not initialise a profile.", hint=INSTALL_HINT)
        template.parent.mkdir(parents=True, exist_ok=True)
        staged = template.with_name(f".{template.name}.{os.getpid()}")
        shutil.copytree(fresh, staged, dirs_exist_ok=True)
        try:
            staged.rename(template)
        except OSError:  # another process made it first
            shutil.rmtree(staged, ignore_errors=True)
    return template


def _require_binary() -> str:
    binary = gimp_path()
    if binary is None:
        raise AppUnavailable("GIMP (gimp-console) is not installed.", hint=INSTALL_HINT)
    return binary


@dataclass(frozen=True)
class OneShot:
    """How a one-shot gimp-console ended: its exit code and the end of its output."""

    returncode: int
    output: str


def one_shot_raw(binary: str, args: list[str], env: dict[str, str], timeout_s: float, folder: Path) -> OneShot:
    """Run ``gimp-console -i -d ARGS`` to the end; its whole process group is stopped afterwards,
    so no plug-in outlives it (a timed-out run raises GimpCrashed)."""
    program = ManagedProcess("GIMP (one-shot)", [binary, "-i", "-d", *args], log=folder / "gimp-once.log", env=env,
                             cwd=folder)
    try:
        code = program.process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise GimpCrashed(f"A one-shot GIMP did not finish within {timeout_s:g} s and was stopped.",
                          hint=program.log_tail() or None) from None
    finally:
        program.stop(grace_s=1.0)
    return OneShot(code, program.log_tail(2000))


def one_shot(script: str, timeout_s: float = 60.0) -> OneShot:
    """Run one Script-Fu batch in a fresh ``gimp-console`` with a private profile (builders, the raw validator)."""
    binary = _require_binary()
    template = profile_template()
    with tempfile.TemporaryDirectory(prefix="asil-gimp-once-") as scratch:
        profile = Path(scratch) / "profile"
        shutil.copytree(template, profile)
        return one_shot_raw(binary, ["-b", script, "-b", "(gimp-quit 0)"], gimp_env(Path(scratch), profile),
                            timeout_s, Path(scratch))


@dataclass(frozen=True)
class Visible:
    """How to start a GIMP with its window shown (the GUI arm) instead of ``gimp-console``."""

    binary: str  # the GUI program, ``gimp``
    document: Path  # opened in the window
    env: dict[str, str]  # at least DISPLAY
    prepare: Callable[[Path], None]  # seeds the copied profile (gimprc, sessionrc)


class GimpSession:
    """One running GIMP; ``request`` sends Scheme text and returns the printed result."""

    def __init__(self, visible: Visible | None = None) -> None:
        binary = _require_binary() if visible is None else visible.binary
        template = profile_template()
        self.folder = Path(tempfile.mkdtemp(prefix="asil-gimp-"))
        profile = self.folder / "profile"
        shutil.copytree(template, profile)
        self.port = free_port()
        serve = f'(plug-in-script-fu-server RUN-NONINTERACTIVE "127.0.0.1" {self.port} "")'
        env = gimp_env(self.folder, profile)
        args = [binary, "-i", "-d", "-b", serve]
        if visible is not None:  # the GUI GIMP (asil.apps.gimp_gui): its window on the document, data loaded
            visible.prepare(profile)
            env.update(visible.env)
            args = [binary, "--no-splash", "-b", serve, str(visible.document)]
        self.program = ManagedProcess("GIMP", args, log=self.folder / "gimp.log", env=env, cwd=self.folder)
        self.conn: socket.socket | None = None
        atexit.register(self.kill)  # a Python that exits without close() must not leave GIMP running
        try:
            self.program.wait_until(lambda: port_open(self.port), START_TIMEOUT_S, "its Script-Fu server listened")
            self.conn = socket.create_connection(("127.0.0.1", self.port), timeout=REQUEST_TIMEOUT_S)
            # The server writes header and body separately: without these, Nagle's algorithm and
            # delayed ACKs add 40 ms to every reply.
            self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.request(f"(load {scheme_string(str(helpers_script()))})")
        except BaseException:
            self.kill()
            raise

    @property
    def alive(self) -> bool:
        return self.program.alive and self.conn is not None

    def request(self, scheme: str, timeout_s: float = REQUEST_TIMEOUT_S) -> str:
        """Evaluate ``scheme``; its printed value. ScriptError for a Script-Fu error, GimpCrashed if GIMP is lost."""
        if not self.alive or self.conn is None:
            raise GimpCrashed(f"GIMP is not running (exit code {self.program.process.returncode}).")
        body = scheme.encode("utf-8")
        if len(body) > MAX_REQUEST:
            raise ActionFailed(f"The request to GIMP is {len(body)} bytes; at most {MAX_REQUEST} fit.",
                               hint="Send a smaller batch or shorter text.")
        deadline = time.monotonic() + timeout_s
        try:
            self.conn.settimeout(timeout_s)
            self.conn.sendall(b"G" + struct.pack(">H", len(body)) + body)
            header = self._receive(4, deadline)
            text = self._receive(struct.unpack(">H", header[2:4])[0], deadline).decode("utf-8", errors="replace")
        except TimeoutError:
            self.kill()
            raise GimpCrashed(f"GIMP did not answer within {timeout_s:g} s and was stopped.",
                              hint="The next action restarts GIMP from the last good state.") from None
        except OSError as exc:
            code = self.program.process.poll()
            self.kill()
            what = f"GIMP exited (code {code})" if code is not None else f"The connection to GIMP broke ({exc})"
            raise GimpCrashed(f"{what} during the call.",
                              hint="The next action restarts GIMP from the last good state.") from None
        if header[1] != 0:
            raise ScriptError(f"GIMP refused the operation: {text.strip().removeprefix('Error: ')}")
        return text

    def _receive(self, count: int, deadline: float) -> bytes:
        """Read ``count`` bytes, watching GIMP itself: the Script-Fu server runs in a plug-in
        process that can outlive a killed GIMP, so a dead GIMP must not wait out the timeout."""
        assert self.conn is not None
        data = b""
        while len(data) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.conn.settimeout(min(POLL_S, remaining))
            self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            try:
                chunk = self.conn.recv(count - len(data))
            except TimeoutError:
                if not self.program.alive:
                    raise ConnectionResetError("GIMP exited") from None
                continue
            if not chunk:
                raise ConnectionResetError("GIMP closed the connection")
            data += chunk
        return data

    def kill(self) -> None:
        """Stop GIMP and its plug-ins (the whole process group); remove the session folder."""
        atexit.unregister(self.kill)
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        self.program.stop(grace_s=1.0)
        shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        """Stop GIMP: nothing in it needs saving (the adapter saves first), and Script-Fu's
        ``gimp-quit`` does not end a server-mode GIMP, so the process group is simply stopped."""
        self.kill()
