"""A private code-server (VS Code in the browser) per session, on a free loopback port.

code-server is installed from the npm registry by ``scripts/install-code-server.sh`` into
``~/.cache/asil/code-server`` (``ASIL_CODE_SERVER_DIR`` moves it). Every session has its own
profile folder: the user-data dir (settings, keybindings, logs), the extensions dir, the config
file, and a HOME/XDG tree, so nothing is read from or written to the user's ~/.config or ~/.local.
The server runs with ``--auth none`` in its own process group (``ManagedProcess``) and is healthy
when ``/healthz`` answers. Extension installs use code-server's own CLI on the same profile.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from asil.apps.process import ManagedProcess, ProgramFailed, free_port, port_open, run_once
from asil.protocol import AppUnavailable

VERSION = "4.100.3"
START_TIMEOUT_S = 45.0  # it answers in 1.5-3 s here; a start that takes this long has hung
HEALTH_TIMEOUT_S = 2.0
CLI_TIMEOUT_S = 120.0
START_ATTEMPTS = 3  # another free port each time, in case one was taken between choosing and binding
INSTALL_HINT = "Install it with scripts/install-code-server.sh (npm, Node 20 and build tools; see install-system.sh)."


def install_dir() -> Path:
    return Path(os.environ.get("ASIL_CODE_SERVER_DIR", Path.home() / ".cache" / "asil" / "code-server"))


def code_server_path() -> str | None:
    """The code-server launcher: the project's install, else one on PATH."""
    local = install_dir() / "node_modules" / ".bin" / "code-server"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("code-server")


def require_code_server() -> str:
    binary = code_server_path()
    if binary is None:
        raise AppUnavailable("code-server is not installed.", hint=INSTALL_HINT)
    return binary


def builtin_extensions_dir() -> Path | None:
    """VS Code's bundled extensions (their package.json files declare many settings)."""
    binary = code_server_path()
    if binary is None:
        return None
    package = Path(binary).resolve().parents[2]  # the launcher is <package>/out/node/entry.js
    folder = package / "lib" / "vscode" / "extensions"
    return folder if folder.is_dir() else None


@dataclass(frozen=True)
class Profile:
    """The folders one session's code-server reads and writes; all under ``root``."""

    root: Path

    @property
    def user_data(self) -> Path:
        return self.root / "user-data"

    @property
    def user_dir(self) -> Path:
        return self.user_data / "User"

    @property
    def settings(self) -> Path:
        return self.user_dir / "settings.json"

    @property
    def keybindings(self) -> Path:
        return self.user_dir / "keybindings.json"

    @property
    def extensions(self) -> Path:
        return self.root / "extensions"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def task_runs(self) -> Path:
        return self.root / "task-runs"

    @property
    def log(self) -> Path:
        return self.root / "code-server.log"

    def create(self) -> None:
        for folder in (self.user_dir, self.extensions, self.home / ".config", self.home / ".local" / "share",
                       self.home / ".cache", self.task_runs):
            folder.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        """The environment code-server runs in: the profile's home, no inherited VS Code hooks."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("VSCODE_", "CODE_SERVER_", "ELECTRON_")) and k not in ("PASSWORD", "HASHED_PASSWORD")}
        env.update(HOME=str(self.home), XDG_CONFIG_HOME=str(self.home / ".config"),
                   XDG_DATA_HOME=str(self.home / ".local" / "share"), XDG_CACHE_HOME=str(self.home / ".cache"),
                   ASIL_CODESERVER_PROFILE=str(self.root))  # where ASIL's editor bridge extension talks to ASIL
        return env

    def common_args(self) -> list[str]:
        return ["--user-data-dir", str(self.user_data), "--extensions-dir", str(self.extensions),
                "--config", str(self.root / "config.yaml")]


def health(port: int) -> dict[str, object] | None:
    """code-server's /healthz answer, or None when it does not answer in time."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=HEALTH_TIMEOUT_S) as reply:
            data = json.loads(reply.read().decode("utf-8"))
    except (OSError, urllib.error.URLError, ValueError):
        return None
    return data if isinstance(data, dict) and "status" in data else None


class CodeServerSession:
    """One running code-server serving ``folder`` with ``profile``; ``port`` is where it listens."""

    def __init__(self, folder: Path, profile: Profile, port: int | None = None):
        binary = require_code_server()
        profile.create()
        self.folder, self.profile = folder, profile
        last: ProgramFailed | None = None
        for _ in range(START_ATTEMPTS):
            self.port = port if port is not None and not port_open(port) else free_port()
            port = None
            self.process = ManagedProcess("code-server", self._args(binary), log=profile.log, env=profile.env(),
                                          cwd=folder)
            try:
                self.process.wait_until(lambda: health(self.port) is not None, START_TIMEOUT_S, "/healthz answered")
                return
            except ProgramFailed as exc:
                last = exc
                if "EADDRINUSE" not in self.process.log_tail(2000):
                    raise
        assert last is not None
        raise last

    def _args(self, binary: str) -> list[str]:
        return [binary, "--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}", *self.profile.common_args(),
                "--session-socket", str(self.profile.root / "ipc.sock"), "--disable-telemetry",
                "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override",
                "--ignore-last-opened", "--skip-auth-preflight", str(self.folder)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={self.folder}"

    @property
    def alive(self) -> bool:
        return self.process.alive

    def healthy(self) -> bool:
        return self.alive and health(self.port) is not None

    def stop(self) -> None:
        self.process.stop()


def run_cli(profile: Profile, args: list[str], timeout_s: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``code-server <profile args> ARGS`` (e.g. --install-extension) with a time limit; kill its group on timeout."""
    timeout_s = timeout_s or CLI_TIMEOUT_S
    profile.create()
    return run_once([require_code_server(), *profile.common_args(), *args], timeout_s,
                    f"code-server {' '.join(args[:1])} did not finish within {timeout_s:g} s and was stopped.",
                    env=profile.env())
