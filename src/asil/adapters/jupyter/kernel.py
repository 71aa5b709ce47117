"""A real IPython kernel for model-written code, confined like the bash channel.

The kernel process runs under bubblewrap (``asil.apps.sandbox``): only the system's program and
library folders and ASIL's Python exist inside (read-only), the workspace is writable, /tmp is
private, the environment is clean (no API key or token of the ASIL process), processes are capped,
and it has no network (its own network namespace). It talks to ASIL over Unix sockets (ZMQ ``ipc`` transport) in a private folder
bound into the sandbox, since TCP loopback does not cross network namespaces. Every cell has a
time limit: past it the kernel is interrupted, and restarted when the interrupt does not stop it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any

from asil.adapters.jupyter.outputs import Output, append_output, error_line, output_from_message
from asil.apps import reaper
from asil.apps.sandbox import ProcessLimit, clean_env, python_roots
from asil.apps.sandbox import sandbox_argv as confined
from asil.protocol import AppUnavailable
from asil.workspace import PRIVATE_DIR

KERNEL_NAME = "asil-python"
START_TIMEOUT_S = 60.0
INTERRUPT_GRACE_S = 3.0
MEMORY_LIMIT = 8 * 2**30  # address space of the kernel process
FILE_LIMIT = 512 * 2**20  # largest file a cell may write
PROCESS_LIMIT = 512  # processes and threads of one kernel (numerical libraries start a thread per core)


@dataclass
class CellRun:
    """What running one piece of code did."""

    outputs: list[Output] = field(default_factory=list)
    execution_count: int | None = None
    status: str = "ok"  # ok | error | timeout
    interrupted: bool = False
    restarted: bool = False
    seconds: float = 0.0

    @property
    def error(self) -> str | None:
        for output in self.outputs:
            if output["output_type"] == "error":
                return error_line(output)
        return None


def kernel_readiness() -> str | None:
    """None when a sandboxed kernel can start here, else what is missing."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; install it with: apt-get install bubblewrap"
    try:
        import ipykernel  # noqa: F401
        import jupyter_client  # noqa: F401
    except ImportError:
        return "jupyter_client and ipykernel are not installed; install them with: pip install 'asil[jupyter]'"
    return None


def sandbox_argv(workspace: Path, cwd: Path, private: Path, command: list[str], limits: bool = True) -> list[str]:
    """bubblewrap around ``command`` (``asil.apps.sandbox``): system folders and ASIL's Python read-only,
    writable workspace and ``private``, clean environment, no network.

    ``limits`` caps memory and file sizes with prlimit (off for Chromium, which reserves huge address space).
    """
    hidden_area = workspace / PRIVATE_DIR  # adapters' private state: notebook code must not see or change it
    hidden_area.mkdir(exist_ok=True)
    env = clean_env("/tmp", IPYTHONDIR="/tmp/.ipython", MPLCONFIGDIR="/tmp/.matplotlib", JPY_PARENT_PID="0",
                    MPLBACKEND="Agg", JUPYTER_PLATFORM_DIRS="1")
    prlimit = shutil.which("prlimit")
    capped = [prlimit, f"--as={MEMORY_LIMIT}", f"--fsize={FILE_LIMIT}"] if prlimit and limits else []
    return confined(workspace, capped + command, env=env, cwd=cwd, writable=[private], hidden=[hidden_area],
                    read_only=[Path(root) for root in python_roots()], purpose="Running notebook code")


class SandboxKernel:
    """One confined IPython kernel; start it with :meth:`start`, end it with :meth:`shutdown`."""

    def __init__(self, workspace: Path, cwd: Path):
        self.workspace, self.cwd = workspace, cwd
        self._private = Path(tempfile.mkdtemp(prefix="asil-k-"))  # short: Unix socket paths are limited
        self._limit: ProcessLimit | None = None
        self._km: Any = None
        self._kc: Any = None
        self.restarts = 0

    @property
    def alive(self) -> bool:
        return self._km is not None and bool(self._km.is_alive())

    def start(self) -> None:
        problem = kernel_readiness()
        if problem:
            raise AppUnavailable(f"Cannot run notebook code: {problem}.")
        reaper.ensure()  # the kernel's bwrap inherits the mark: it dies even if this process is SIGKILLed
        os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")  # silences jupyter_core's path migration warning
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager

        spec_dir = self._private / "spec" / KERNEL_NAME
        spec_dir.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        self._limit = self._limit or ProcessLimit(PROCESS_LIMIT)
        spec = {"argv": self._limit.wrap(sandbox_argv(self.workspace, self.cwd, self._private, command)),
                "display_name": "Python 3 (ASIL sandbox)", "language": "python", "interrupt_mode": "message"}
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        self._log = open(self._private / "kernel.log", "ab")  # noqa: SIM115  (closed in shutdown)
        self._km = KernelManager(kernel_name=KERNEL_NAME,
                                 kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)]),
                                 transport="ipc", ip=str(self._private / "k"),
                                 connection_file=str(self._private / "connection.json"))
        try:
            self._km.start_kernel(stdout=self._log, stderr=self._log)
            self._connect()
        except RuntimeError as exc:
            self.shutdown()
            raise AppUnavailable(f"The notebook kernel did not start: {exc}.") from None

    def _connect(self) -> None:
        self._kc = self._km.client()
        self._kc.start_channels()
        self._kc.wait_for_ready(timeout=START_TIMEOUT_S)

    def ensure(self) -> None:
        if self._km is None:
            self.start()
        elif not self.alive:
            self.restart()

    def restart(self) -> None:
        """A fresh interpreter: every variable is gone."""
        if self._kc is not None:
            self._kc.stop_channels()
        self._km.restart_kernel(now=True)
        self.restarts += 1
        self._connect()

    def run(self, code: str, timeout_s: float) -> CellRun:
        """Run ``code`` and collect its outputs; a run past ``timeout_s`` is interrupted (or the kernel restarted)."""
        self.ensure()
        started = time.perf_counter()
        msg_id = self._kc.execute(code, store_history=True, allow_stdin=False, stop_on_error=False)
        run = CellRun()
        finished = self._collect(msg_id, run, time.monotonic() + timeout_s)
        if not finished:
            run.status = "timeout"
            self._km.interrupt_kernel()
            run.interrupted = True
            if not self._collect(msg_id, run, time.monotonic() + INTERRUPT_GRACE_S):
                self.restart()
                run.restarted = True
            run.outputs = [o for o in run.outputs if o["output_type"] != "error"]
            append_output(run.outputs, {"output_type": "error", "ename": "TimeoutError", "traceback": [],
                                        "evalue": _timeout_text(timeout_s, run.restarted)})
        elif run.error:
            run.status = "error"
        self._drain_shell()
        run.seconds = time.perf_counter() - started
        return run

    def _collect(self, msg_id: str, run: CellRun, deadline: float) -> bool:
        """Read iopub messages of ``msg_id`` until the kernel is idle again; False at the deadline."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                msg = self._kc.get_iopub_msg(timeout=min(remaining, 1.0))
            except Empty:
                if not self.alive:
                    return False
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                return True
            if kind == "execute_input":
                run.execution_count = content.get("execution_count")
            elif kind == "clear_output":
                run.outputs.clear()
            else:
                output = output_from_message(kind, content)
                if output is not None:
                    append_output(run.outputs, output)

    def _drain_shell(self) -> None:
        try:
            while self._kc.shell_channel.msg_ready():
                self._kc.get_shell_msg(timeout=0.1)
        except Empty:
            pass

    def shutdown(self) -> None:
        """Kill the kernel and remove its sockets; safe to call twice."""
        if self._kc is not None:
            self._kc.stop_channels()
            self._kc = None
        if self._km is not None:
            try:
                self._km.shutdown_kernel(now=True)
            except Exception:  # a kernel that already died is fine
                pass
            self._km = None
        log = getattr(self, "_log", None)
        if log is not None:
            log.close()
        if self._limit is not None:
            self._limit.release()
            self._limit = None
        shutil.rmtree(self._private, ignore_errors=True)


def _timeout_text(timeout_s: float, restarted: bool) -> str:
    what = ("the kernel was restarted, so every variable is gone" if restarted
            else "the kernel was interrupted; variables set before the interrupt remain")
    return f"The cell ran longer than {timeout_s:g} s and was stopped: {what}."
