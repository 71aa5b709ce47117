"""Faults around the code-server process: killed, hung, port taken, CLI hung, not installed.

Each case must end within a bounded time with either a working server again or a clear error,
and never with changed state after a failed action.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from asil.adapters.codeserver.adapter import CodeServerAdapter
from asil.adapters.codeserver.vsix import build_vsix
from asil.apps import codeserver
from asil.apps.codeserver import code_server_path
from asil.protocol import Action
from asil.workspace import Workspace

needs_code_server = pytest.mark.skipif(code_server_path() is None,
                                       reason="needs code-server (scripts/install-code-server.sh)")


def fn(function: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=function, params=dict(params))


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture()
def adapter(tmp_path: Path) -> CodeServerAdapter:
    ws = Workspace(tmp_path / "ws")
    ws.write_bytes("a.txt", b"alpha\n")
    return CodeServerAdapter(ws)


@pytest.mark.slow
@needs_code_server
def test_killed_server_is_replaced_and_the_observation_says_so(adapter: CodeServerAdapter) -> None:
    with adapter:
        assert adapter.observe().environment["server"]["state"] == "running"
        assert adapter.session is not None
        old = adapter.session.process.pid
        os.killpg(old, signal.SIGKILL)
        time.sleep(0.2)
        started = time.monotonic()
        result = adapter.execute(fn("set_setting", key="editor.fontSize", value=17))  # file state needs no server
        server = result.observation.environment["server"] if result.observation else {}
        assert result.ok and time.monotonic() - started < 60
        assert server["state"] == "running" and server["restarts"] == 1 and "exited" in server["note"]
        assert adapter.session is not None and adapter.session.process.pid != old and adapter.session.healthy()


@pytest.mark.slow
@needs_code_server
def test_hung_server_is_stopped_and_replaced_within_bounded_time(adapter: CodeServerAdapter) -> None:
    with adapter:
        adapter.observe()
        assert adapter.session is not None
        old = adapter.session.process.pid
        os.killpg(old, signal.SIGSTOP)
        started = time.monotonic()
        server = adapter.observe().environment["server"]
        assert time.monotonic() - started < 30
        assert server["state"] == "running" and "stopped answering" in server["note"]
        assert gone(old)


@pytest.mark.slow
@needs_code_server
def test_port_in_use_moves_to_another_free_port(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = taken.getsockname()[1]
        with CodeServerAdapter(Workspace(tmp_path / "ws"), port=busy) as adapter:
            server = adapter.observe().environment["server"]
            assert server["state"] == "running" and adapter.session is not None and adapter.session.port != busy


@pytest.mark.slow
@needs_code_server
def test_hung_cli_times_out_and_changes_nothing(adapter: CodeServerAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter.workspace.write_bytes("ext.vsix", build_vsix({"publisher": "asil", "name": "slow", "version": "1.0.0"}))
    monkeypatch.setattr(codeserver, "CLI_TIMEOUT_S", 0.05)
    before = sorted(p.name for p in adapter.places.profile.extensions.iterdir())
    result = adapter.execute(fn("install_extension", vsix="ext.vsix"), observe=False)
    assert result.status == "error" and result.error is not None and "did not finish" in result.error.message
    assert sorted(p.name for p in adapter.places.profile.extensions.iterdir()) == before
    adapter.close()


def test_missing_code_server_gives_a_clear_observation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASIL_CODE_SERVER_DIR", str(tmp_path / "nothing"))
    monkeypatch.setenv("PATH", "/nonexistent")
    assert not CodeServerAdapter.readiness().ready
    with CodeServerAdapter(Workspace(tmp_path / "ws")) as adapter:
        obs = adapter.observe()
        server = obs.environment["server"]
        assert server["state"] == "down" and server["error"] == "code-server is not installed."
        assert "install-code-server.sh" in server["hint"]
        again = adapter.observe().environment["server"]  # reported again without another start attempt
        assert again == server and again["retry_after_s"] > 0
        assert adapter.execute(fn("create_file", path="b.txt", content="beta")).ok  # the files stay usable
