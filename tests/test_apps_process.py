"""The shared program helpers: free ports, process groups that stop whole, private X displays."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from asil.apps.display import start_display
from asil.apps.process import ManagedProcess, ProgramFailed, free_port, port_open


def test_a_free_port_can_be_bound_and_a_listened_port_is_seen_open() -> None:
    port = free_port()
    assert not port_open(port)
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))
        server.listen(1)
        assert port_open(port)


def test_stop_kills_the_whole_process_group(tmp_path: Path) -> None:
    script = "import subprocess, time; subprocess.Popen(['sleep', '300']); print('up', flush=True); time.sleep(300)"
    process = ManagedProcess("sleeper", [sys.executable, "-c", script], log=tmp_path / "log")
    process.wait_until(lambda: "up" in process.log_tail(), 10, "it printed up")
    group = process.pid
    process.stop(grace_s=1)
    assert not process.alive
    assert _living_members(group) == []


def _living_members(group: int) -> list[str]:
    """Processes still in the group, zombies aside (they are dead, only not yet reaped by init)."""
    deadline = time.monotonic() + 5
    while True:
        listing = subprocess.run(["ps", "-o", "pid=,stat=", "-g", str(group)], capture_output=True, text=True)
        living = [line for line in listing.stdout.splitlines() if "Z" not in line.split()[1]]
        if not living or time.monotonic() > deadline:
            return living
        time.sleep(0.1)


def test_a_program_that_dies_early_is_reported_with_its_log(tmp_path: Path) -> None:
    process = ManagedProcess("quitter", [sys.executable, "-c", "print('no config'); raise SystemExit(3)"],
                             log=tmp_path / "log")
    with pytest.raises(ProgramFailed) as failed:
        process.wait_until(lambda: False, 10, "its port opened")
    assert "exited (code 3)" in failed.value.message and "no config" in (failed.value.hint or "")


def test_a_program_that_never_gets_ready_is_stopped_in_bounded_time(tmp_path: Path) -> None:
    process = ManagedProcess("idler", [sys.executable, "-c", "import time; time.sleep(60)"], log=tmp_path / "log")
    with pytest.raises(ProgramFailed, match="not ready"):
        process.wait_until(lambda: False, 0.5, "its port opened")
    assert not process.alive


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (scripts/install-system.sh)")
def test_displays_started_at_once_get_different_numbers_all_alive_and_go_away() -> None:
    with ThreadPoolExecutor(4) as pool:
        displays = list(pool.map(lambda _: start_display(), range(4)))
    try:
        assert len({d.number for d in displays}) == 4 and all(d.alive for d in displays)
        assert displays[0].env() == {"DISPLAY": f":{displays[0].number}"}
        assert all(Path(f"/tmp/.X11-unix/X{d.number}").exists() for d in displays)
    finally:
        for display in displays:
            display.stop()
    assert not any(d.alive for d in displays)
    # Each socket went with its Xvfb, unless a server of another test has taken the number since.
    assert all(not Path(f"/tmp/.X11-unix/X{d.number}").exists() or _accepts(f"/tmp/.X11-unix/X{d.number}")
               for d in displays)


def _accepts(path: str) -> bool:
    with socket.socket(socket.AF_UNIX) as client:
        return client.connect_ex(path) == 0


def test_a_terminated_asil_command_stops_the_programs_it_started(tmp_path: Path) -> None:
    script = ("import pathlib, time\n"
              "from asil.cli import exit_cleanly_on_signals\n"
              "from asil.apps.process import ManagedProcess\n"
              "exit_cleanly_on_signals()\n"
              f"program = ManagedProcess('sleeper', ['sleep', '300'], log=pathlib.Path({str(tmp_path / 'log')!r}))\n"
              "print(program.pid, flush=True)\n"
              "time.sleep(120)\n")
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) as python:
        assert python.stdout is not None
        program_pid = int(python.stdout.readline())
        python.terminate()
        assert python.wait(timeout=20) == 128 + 15
    assert _living_members(program_pid) == []
