"""No orphans: an ASIL process killed mid-episode — SIGTERM or SIGKILL — leaves none of its programs behind.

Each entry point (``asil run``, ``asil bench --workers 2``, ``asil mcp serve`` over stdio, ``asil rollout
serve`` with a rollout in flight) is started
for real, brought to the middle of an episode with its LibreOffice warm (the agent waits on a slow
loopback model; the MCP client has observed a document), and killed. Every process below it at that
moment must be gone within a bounded wait: the SIGTERM path is the process's own cleanup, the SIGKILL
path the reaper (``asil.apps.reaper``).
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest

from asil.apps.process import free_port
from asil.runner.procs import descendants
from asil.tasks import get_task
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace
from tests.chat_server import ChatServer

pytestmark = pytest.mark.slow

WAIT_S = 60.0  # generous: the machine may be loaded; the wait ends as soon as the condition holds
ASIL = [sys.executable, "-m", "asil.cli"]


def _wait_for(condition: Callable[[], object], timeout_s: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _identity(pid: int) -> tuple[str, str] | None:
    """(start time, name) of a living process; None once it is gone or a zombie (dead, not yet reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return None if fields[0] in ("Z", "X") else (fields[19], stat[stat.index("(") + 1 : stat.rindex(")")])


def _programs_below(pid: int) -> dict[int, tuple[str, str]]:
    found = {child: _identity(child) for child in descendants(pid)}
    return {child: ident for child, ident in found.items() if ident is not None}


def _offices(programs: dict[int, tuple[str, str]]) -> int:
    return sum(1 for _, name in programs.values() if name.startswith("soffice"))


def _survivors(programs: dict[int, tuple[str, str]]) -> list[str]:
    return [f"{pid} {ident[1]}" for pid, ident in programs.items() if _identity(pid) == ident]


def _kill_and_count(process: subprocess.Popen[Any], sig: signal.Signals, offices: int) -> None:
    """Wait until ``offices`` LibreOffices run below ``process``, send ``sig``, and wait until nothing below it lives."""
    programs: dict[int, tuple[str, str]] = {}

    def warm() -> bool:
        nonlocal programs
        programs = _programs_below(process.pid)
        return _offices(programs) >= offices and process.poll() is None

    assert _wait_for(warm), f"no warm LibreOffice below the entry point: {programs}"
    time.sleep(0.5)
    programs = _programs_below(process.pid)  # the moment of the kill: everything it started
    process.send_signal(sig)
    process.wait(timeout=WAIT_S)
    assert _wait_for(lambda: not _survivors(programs)), f"left behind: {_survivors(programs)}"


@pytest.fixture
def slow_model() -> Iterator[ChatServer]:
    server = ChatServer()
    server.behaviours = [{"delay": 300, "text": "{}"} for _ in range(4)]  # the agent waits: mid-episode
    yield server
    server.close()


def _agent(model: ChatServer) -> list[str]:
    return ["--agent", "react", "--model", "slow", "--base-url", model.url, "--server", "openai", "--no-stream",
            "--api-key", "not-a-secret"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_asil_run_leaves_no_program(sig: signal.Signals, slow_model: ChatServer, tmp_path: Path) -> None:
    command = [*ASIL, "run", "calc-total-column", *_agent(slow_model), "--out", str(tmp_path / "out")]
    with subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as process:
        try:
            assert _wait_for(lambda: slow_model.requests), "the agent never asked the model"
            _kill_and_count(process, sig, offices=1)
        finally:
            process.kill()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_bench_with_two_workers_leaves_no_program(sig: signal.Signals, slow_model: ChatServer,
                                                           tmp_path: Path) -> None:
    command = [*ASIL, "bench", "--task", "calc-total-column", "--task", "calc-fix-sum-range", "--workers", "2",
               *_agent(slow_model), "--out", str(tmp_path / "out")]
    with subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as process:
        try:
            assert _wait_for(lambda: len(slow_model.requests) >= 2), "the two episodes never asked the model"
            _kill_and_count(process, sig, offices=2)
        finally:
            process.kill()


def _rpc(stdin: IO[str], message: dict[str, Any]) -> None:
    stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    stdin.flush()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_mcp_server_leaves_no_program(sig: signal.Signals, tmp_path: Path) -> None:
    workspace = prepare_workspace(get_task("calc-total-column"), Workspace(tmp_path / "served"))
    document = next(name for name in workspace.files() if name.endswith(".ods"))
    command = [*ASIL, "mcp", "serve", "--app", "calc", "--workspace", str(workspace.root)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            _rpc(process.stdin, {"id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "orphans", "version": "1"}}})
            _rpc(process.stdin, {"method": "notifications/initialized"})
            _rpc(process.stdin, {"id": 2, "method": "tools/call",
                                 "params": {"name": "observe", "arguments": {"document": document}}})
            reply = _reply(process.stdout, 2)
            assert reply is not None and "result" in reply, reply  # the document was observed: LibreOffice is warm
            _kill_and_count(process, sig, offices=1)
        finally:
            process.kill()


def _reply(stdout: IO[str], wanted: int) -> dict[str, Any] | None:
    """The server's answer to request ``wanted``, read on a thread so a silent server cannot hang the test."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in iter(stdout.readline, "")], daemon=True).start()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        message = json.loads(line) if line.startswith("{") else {}
        if message.get("id") == wanted:
            return dict(message)
    return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_rollout_service_leaves_no_program(sig: signal.Signals, slow_model: ChatServer) -> None:
    port = free_port()
    command = [*ASIL, "rollout", "serve", "--port", str(port), "--workers", "1"]
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as process:
        try:
            assert _wait_for(lambda: _answers(f"http://127.0.0.1:{port}/health")), "the service never started"
            body = {"task_id": "calc-total-column", "base_url": slow_model.url, "model": "slow"}
            threading.Thread(target=_post_quietly, args=(f"http://127.0.0.1:{port}/rollout", body),
                             daemon=True).start()
            assert _wait_for(lambda: slow_model.requests), "the rollout never asked the policy"
            _kill_and_count(process, sig, offices=1)
        finally:
            process.kill()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def _post_quietly(url: str, body: dict[str, Any]) -> None:
    """The rollout's client: its answer never comes (the service is killed), which is the point."""
    try:
        httpx.post(url, json=body, timeout=WAIT_S * 2)
    except httpx.TransportError:
        pass
