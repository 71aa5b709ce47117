"""Nautilus or its bus killed or hung mid-episode: a clear error or a restart within bounded time, never a hang."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.protocol import Action
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nautilus") is None or shutil.which("dbus-run-session") is None,
                                 reason="needs nautilus and dbus (scripts/install-system.sh)")]


def fn(function: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=function, params=dict(params))


def child(parent: int, name: str) -> int:
    """The pid of ``parent``'s child process called ``name``."""
    for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split():
        if Path(f"/proc/{pid}/comm").read_text().strip() == name:
            return int(pid)
    raise LookupError(f"no {name} under {parent}")


@pytest.fixture
def adapter(tmp_path: Path) -> Iterator[NautilusAdapter]:
    (tmp_path / "a.txt").write_text("alpha\n")
    adapter = NautilusAdapter(Workspace(tmp_path), call_timeout_s=10.0, op_timeout_s=20.0)
    started = adapter.execute(fn("create_folder", path="one"), observe=False)
    assert started.ok, started.error  # Nautilus is running now
    yield adapter
    adapter.close()


def wait_dead(pid: int) -> None:
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except OSError:
            return
        time.sleep(0.05)


@pytest.mark.parametrize("victim", ["nautilus", "dbus-daemon"])
def test_a_killed_nautilus_or_bus_is_reported_then_replaced(adapter: NautilusAdapter, victim: str) -> None:
    assert adapter.session is not None and adapter.session.process is not None
    pid = child(adapter.session.process.pid, victim)
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)
    time.sleep(0.3)  # dbus-run-session notices its child or bus is gone
    observation = adapter.observe()
    assert "not running" in observation.environment["nautilus"]["state"]
    assert observation.environment["nautilus"]["error"]
    started = time.monotonic()
    result = adapter.execute(fn("copy", sources=["a.txt"], destination="one"), observe=False)
    assert result.ok, result.error
    assert time.monotonic() - started < 30
    assert adapter.restarts == 1 and (adapter.workspace.root / "one" / "a.txt").is_file()


def test_a_hung_nautilus_times_out_changes_nothing_and_is_replaced(adapter: NautilusAdapter) -> None:
    assert adapter.session is not None and adapter.session.process is not None
    adapter.session.call_timeout_s = 2.0  # short, so the test waits little for the hang to be noticed
    os.kill(child(adapter.session.process.pid, "nautilus"), signal.SIGSTOP)
    started = time.monotonic()
    result = adapter.execute(fn("copy", sources=["a.txt"], destination="one"), observe=False)
    assert time.monotonic() - started < 15
    assert result.status == "error" and result.error is not None and "did not answer" in result.error.message
    assert not (adapter.workspace.root / "one" / "a.txt").exists()
    assert "not running" in adapter.observe().environment["nautilus"]["state"]
    assert adapter.execute(fn("copy", sources=["a.txt"], destination="one"), observe=False).ok
    assert adapter.restarts == 1
