"""A warm headless Blender: one ``blender -b`` process per session, served over a Unix socket.

Blender runs ``blender_scripts/asil_blender_server.py`` on its main thread, which connects back
to a socket this side listens on and answers one JSON request per line. Every request has a
timeout; a timed-out or crashed Blender is killed (its whole process group) and the caller gets
:class:`BlenderCrashed` — the adapter decides how to recover. Nothing here imports bpy.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from asil.apps import reaper
from asil.apps.process import ManagedProcess
from asil.apps.sandbox import program_env
from asil.protocol import ActionFailed, AppUnavailable, InvalidAction

START_TIMEOUT_S = 60.0
REQUEST_TIMEOUT_S = 60.0
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends blender"


class BlenderCrashed(ActionFailed):
    """Blender died or did not answer in time; the process is gone."""

    code = "blender_crashed"


def blender_path() -> str | None:
    return shutil.which("blender")


def server_script() -> Path:
    return Path(str(resources.files("asil.apps") / "blender_scripts" / "asil_blender_server.py"))


def blender_env() -> dict[str, str]:
    """No display, no user config, and none of ASIL's variables: Blender must never open a window or read
    ~/.config, and ``run_python`` code runs inside it, so it must find no API key or token either."""
    nowhere = tempfile.gettempdir() + "/asil-blender-none"
    return program_env(nowhere, BLENDER_USER_CONFIG=nowhere, BLENDER_USER_SCRIPTS=nowhere)


class BlenderSession:
    """One running Blender with a document open; ``request`` sends one command and waits for its answer."""

    def __init__(self, document: Path):
        binary = blender_path()
        if binary is None:
            raise AppUnavailable("Blender is not installed.", hint=INSTALL_HINT)
        self.folder = Path(tempfile.mkdtemp(prefix="asil-blender-"))
        address = str(self.folder / "s")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(address)
        listener.listen(1)
        listener.settimeout(START_TIMEOUT_S)
        # Its own process group (ManagedProcess): stopping it stops everything Blender started, and an
        # exiting Python stops it too.
        self.program = ManagedProcess(
            "Blender", [binary, "-b", "--factory-startup", "-noaudio", str(document), "--python", str(server_script()),
                        "--", address], log=self.folder / "blender.log", env=blender_env())
        self.process = self.program.process
        try:
            self.conn, _ = _accept(listener, self.process)
        except BaseException:
            self.kill()
            raise
        finally:
            listener.close()
        self.reader = self.conn.makefile("r", encoding="utf-8")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, op: str, params: dict[str, Any] | None = None, *, dry: bool = False,
                timeout_s: float | None = None) -> Any:
        """Send one command; its result, InvalidAction/ActionFailed for refusals, BlenderCrashed if Blender is lost."""
        timeout_s = REQUEST_TIMEOUT_S if timeout_s is None else timeout_s  # read now: tests shorten it
        if not self.alive:
            raise BlenderCrashed(f"Blender is not running (exit code {self.process.returncode}).")
        line = json.dumps({"op": op, "params": params or {}, "dry": dry}) + "\n"
        try:
            self.conn.settimeout(timeout_s)
            self.conn.sendall(line.encode("utf-8"))
            answer = self.reader.readline()
        except TimeoutError:
            self.kill()
            raise BlenderCrashed(f"Blender did not answer {op!r} within {timeout_s:g} s and was stopped.",
                                 hint="Make the request smaller or faster.") from None
        except OSError as exc:
            self.kill()
            raise BlenderCrashed(f"The connection to Blender broke during {op!r} ({exc.strerror}).") from None
        if not answer:
            code = self.process.wait(timeout=10)
            self.kill()
            raise BlenderCrashed(f"Blender exited (code {code}) while handling {op!r}.")
        reply = json.loads(answer)
        if reply["ok"]:
            return reply["result"]
        error = InvalidAction if reply["kind"] == "invalid" else ActionFailed
        raise error(reply["message"], hint=reply.get("hint"))

    def kill(self) -> None:
        """Stop Blender and everything it started; remove the session's scratch folder."""
        self.program.stop(grace_s=0)
        if hasattr(self, "conn"):
            self.conn.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        """Ask Blender to quit, then make sure it did."""
        if self.alive and hasattr(self, "conn"):
            try:
                self.conn.sendall(b'{"op": "quit"}\n')
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


def _accept(listener: socket.socket, process: subprocess.Popen[bytes]) -> tuple[socket.socket, Any]:
    """Wait for Blender's server to connect, noticing early if Blender died (e.g. a corrupt file)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    listener.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            return listener.accept()
        except TimeoutError:
            if process.poll() is not None:
                raise BlenderCrashed(f"Blender exited (code {process.returncode}) before it was ready.") from None
    raise BlenderCrashed(f"Blender did not start within {START_TIMEOUT_S:g} s.")


def one_shot(args: list[str], timeout_s: float = 120.0) -> subprocess.CompletedProcess[str]:
    """Run a short-lived ``blender -b --factory-startup ARGS`` (builders and the raw validator)."""
    binary = blender_path()
    if binary is None:
        raise AppUnavailable("Blender is not installed.", hint=INSTALL_HINT)
    return subprocess.run([binary, "-b", "--factory-startup", "-noaudio", *args], capture_output=True, text=True,
                          timeout=timeout_s, env=reaper.tag(blender_env()), stdin=subprocess.DEVNULL)
