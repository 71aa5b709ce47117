"""A real JupyterLab server (``jupyter_server`` + ``jupyterlab_server``) for one workspace, spoken to over REST.

It listens on 127.0.0.1 on a free port with a random token, its root is the task workspace, terminals
are off (a terminal would be an unconfined shell), and the only kernel it may start is ASIL's confined
one: a kernelspec whose command is the same bubblewrap sandbox the notebook adapter's own kernel uses
(no network, clean environment, workspace-only writes, process and memory caps). Because the sandbox
has its own network namespace, kernels talk to the server over ZMQ Unix sockets in a private folder.
JupyterLab's workspaces (the saved layout: open documents, the active one) are files in
``workspaces_dir``, so they outlive the server; kernels and sessions live in its memory and end with it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from asil.apps.process import ManagedProcess, ProgramFailed, free_port
from asil.apps.sandbox import ProcessLimit

KERNEL_NAME = "asil-python"
START_TIMEOUT_S = 90.0  # a cold start on a loaded 2-core machine takes several seconds
REQUEST_TIMEOUT_S = 30.0


class JupyterServerError(ProgramFailed):
    """The server answered a request with an error status (its message is kept)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"The Jupyter server answered {status}: {message}")
        self.status = status


def server_readiness() -> str | None:
    """None when a JupyterLab server can start here, else what is missing (nothing is imported)."""
    if importlib.util.find_spec("jupyter_server") is None or importlib.util.find_spec("jupyterlab") is None:
        return "jupyter_server and jupyterlab are not installed; install them with: pip install 'asil[jupyter]'"
    return None


class LabServer:
    """One ``jupyter lab`` process for ``root``; :meth:`stop` ends it and every kernel it started."""

    def __init__(self, root: Path, workspaces_dir: Path, kernel_argv: Any):
        """``kernel_argv(private, limit)`` gives the confined kernel command (``{connection_file}`` in it)."""
        self.root, self.workspaces_dir = root, workspaces_dir
        self.private = Path(tempfile.mkdtemp(prefix="asil-js-"))  # short: Unix socket paths are limited
        self.port, self.token = free_port(), secrets.token_hex(24)
        self.limit = ProcessLimit(512)
        self._write_kernelspec(kernel_argv(self.private, self.limit))
        workspaces_dir.mkdir(parents=True, exist_ok=True)
        self.process = ManagedProcess("JupyterLab server", self._argv(), log=self.private / "server.log",
                                      env=self._env(), cwd=root)
        try:
            self.process.wait_until(self._answers, START_TIMEOUT_S, "its REST API answered", interval_s=0.2)
        except ProgramFailed:
            self.stop()
            raise

    def _write_kernelspec(self, argv: list[str]) -> None:
        spec_dir = self.private / "share" / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        spec = {"argv": argv, "display_name": "Python 3 (ASIL sandbox)", "language": "python",
                "interrupt_mode": "message"}
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")

    def _argv(self) -> list[str]:
        return [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
                "--ServerApp.terminals_enabled=False", "--ServerApp.open_browser=False",
                "--LabApp.extension_manager=readonly",  # no pip installs through the extension manager's API
                f"--LabApp.workspaces_dir={self.workspaces_dir}",
                f"--KernelSpecManager.allowed_kernelspecs={KERNEL_NAME}",
                "--KernelSpecManager.ensure_native_kernel=False",
                f"--MappingKernelManager.default_kernel_name={KERNEL_NAME}",
                # Unix sockets: TCP loopback does not reach into the sandbox's network namespace
                "--KernelManager.transport=ipc", f"--KernelManager.ip={self.private / 'k'}",
                # root runs it on CI machines; the server is ASIL's own, the code it runs is confined
                *(["--allow-root"] if os.geteuid() == 0 else [])]

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
        return {**env, "JUPYTER_PATH": str(self.private / "share"), "JUPYTER_CONFIG_DIR": str(self.private / "cfg"),
                "JUPYTER_DATA_DIR": str(self.private / "data"), "JUPYTER_RUNTIME_DIR": str(self.private / "rt"),
                "JUPYTER_PLATFORM_DIRS": "1", "JUPYTER_NO_CONFIG": "1"}

    def _answers(self) -> bool:
        try:
            self.request("GET", "/api/status")
        except (OSError, JupyterServerError):
            return False
        return True

    @property
    def alive(self) -> bool:
        return self.process.alive

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One REST request; the decoded JSON answer (None for an empty one)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=REQUEST_TIMEOUT_S) as answer:  # noqa: S310 (loopback only)
                raw = answer.read()
        except urllib.error.HTTPError as exc:
            # paths in the server's messages are absolute; the agent knows them relative to the workspace
            raise JupyterServerError(exc.code, _message(exc.read()).replace(f"{self.root}/", "")) from None
        return json.loads(raw) if raw.strip() else None

    def stop(self) -> None:
        """SIGTERM the server (it shuts its kernels down), SIGKILL what is left, remove the private folder."""
        process = getattr(self, "process", None)
        if process is not None:
            process.stop(grace_s=5.0)
        self.limit.release()
        shutil.rmtree(self.private, ignore_errors=True)


def _message(raw: bytes) -> str:
    try:
        answer = json.loads(raw)
        return str(answer.get("message") or answer.get("reason") or raw[:200].decode(errors="replace"))
    except (ValueError, AttributeError):
        return raw[:200].decode(errors="replace")
