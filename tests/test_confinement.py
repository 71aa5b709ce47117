"""A hostile model's shell through the bash channel: every escape it tries is stopped or reported, and
nothing outside the workspace changes (``asil.apps.sandbox``, used by the shell, notebook kernels and
workspace tasks)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from pathlib import Path

import pytest

from asil.apps.sandbox import process_cap
from asil.shell import run_shell
from asil.workspace import Workspace

SECRETS = {"OPENAI_API_KEY": "sk-hostile-test-1", "ASIL_MCP_TOKEN": "mcp-hostile-test-2",
           "ASIL_GITEA_TOKEN": "gitea-hostile-test-3", "AWS_SECRET_ACCESS_KEY": "aws-hostile-test-4"}


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` with its size and modification time."""
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def _processes_running(needle: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if needle.encode() in (entry / "cmdline").read_bytes() and b"Z" not in _state(entry):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _state(entry: Path) -> bytes:
    stat = (entry / "stat").read_bytes()
    return stat[stat.rindex(b")") + 2 :][:1]


def _wait_until(condition: object, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.1)
    return False


def test_the_shell_sees_no_secret_and_only_an_explicit_environment(workspace: Workspace,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    done = run_shell("env; echo ---; cat /proc/1/environ /proc/$PPID/environ | tr '\\0' '\\n'", workspace)
    own, launcher = done.stdout.split("---\n")
    seen = dict(line.split("=", 1) for line in own.splitlines() if "=" in line)
    assert seen["HOME"] == str(workspace.root) and seen["PATH"].startswith("/usr/local/sbin")
    assert set(seen) <= {"HOME", "PATH", "LANG", "TMPDIR", "TERM", "PWD", "SHLVL", "_"}
    # bubblewrap's own process (PID 1 inside) was started with a clean environment too: only the reaper's mark added
    outer = {line.split("=", 1)[0] for line in launcher.splitlines() if "=" in line}
    assert outer <= {"HOME", "PATH", "LANG", "TMPDIR", "TERM", "PWD", "SHLVL", "_", "ASIL_REAPER"}
    assert not [value for value in SECRETS.values() if value in done.stdout + done.stderr]


def test_the_shell_sees_only_system_folders_and_the_workspace(workspace: Workspace) -> None:
    done = run_shell("cat /etc/shadow; ls /opt /srv /mnt /var/lib /root /home /work /run; ls /; "
                     "test -r /etc/ld.so.cache && echo loader-cache; echo done", workspace)
    for hidden in ("/etc/shadow", "/opt", "/srv", "/mnt", "/var/lib", "/root", "/home", "/work", "/run"):
        assert f"'{hidden}': No such file or directory" in done.stderr or \
            f"{hidden}: No such file or directory" in done.stderr, hidden
    top = set(done.stdout.split())
    assert {"usr", "etc", "tmp", "dev", "proc", "loader-cache", "done"} <= top
    assert not top & {"opt", "srv", "mnt", "var", "root", "home", "boot"}


def test_writes_outside_the_workspace_fail_and_change_nothing(workspace: Workspace, tmp_path: Path) -> None:
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "kept.txt").write_text("kept")
    home_probe = Path.home() / f"asil-hostile-{uuid.uuid4().hex}"
    before = _tree(beside)
    done = run_shell(f"echo x > {home_probe}; echo x > ~/../pwned; echo x > /etc/pwned; echo x > /usr/pwned; "
                     f"echo x > {beside}/kept.txt; rm -f {beside}/kept.txt; echo x > /tmp/scratch && echo tmp-ok; "
                     "echo ok > inside.txt", workspace)
    assert "tmp-ok" in done.stdout  # a private /tmp is writable ...
    assert (workspace.root / "inside.txt").read_text() == "ok\n"  # ... and so is the workspace, but nothing else
    assert "Read-only file system" in done.stderr
    assert not home_probe.exists() and not Path("/etc/pwned").exists() and not Path("/usr/pwned").exists()
    assert _tree(beside) == before
    assert not (workspace.root.parent / "pwned").exists()


def test_the_shell_has_no_network_not_even_to_loopback(workspace: Workspace) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        done = run_shell(f"echo hello > /dev/tcp/127.0.0.1/{port} && echo reached; "
                         "getent hosts example.com || echo no-dns", workspace, timeout_s=20)
    assert "reached" not in done.stdout and "no-dns" in done.stdout
    assert "Connection refused" in done.stderr or "Network is unreachable" in done.stderr


def test_background_processes_end_with_the_command(workspace: Workspace) -> None:
    tag = f"{time.time_ns() % 10**6 + 10**6}.5"  # an unusual sleep length names our processes
    done = run_shell(f"sleep {tag} & nohup sleep {tag} >/dev/null 2>&1 & setsid sleep {tag} & "
                     "(sleep 1; echo late > late.txt) & echo started", workspace)
    assert done.stdout.strip() == "started" and not done.timed_out
    assert _wait_until(lambda: not _processes_running(f"sleep\0{tag}"), 30), _processes_running(f"sleep\0{tag}")
    time.sleep(1.5)
    assert not (workspace.root / "late.txt").exists()  # the PID namespace ended with the command


def test_a_fork_bomb_is_capped_and_stopped_by_the_time_limit(workspace: Workspace, tmp_path: Path) -> None:
    kind = process_cap()
    if kind == "none":
        pytest.skip("no pids cgroup here and running as root: nothing caps processes but the time limit")
    tag = f"asil-bomb-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    done = run_shell(f"b(){{ b | b & }}; b; exec -a {tag} sleep 60", workspace, timeout_s=4)
    assert time.monotonic() - started < 60
    assert done.timed_out and done.exit_code == 124
    assert _wait_until(lambda: not _processes_running(tag), 30)  # every copy of the bomb is gone
    if kind == "cgroup":  # and the run's cgroup was removed
        assert not [g for g in Path("/sys/fs/cgroup/pids").glob(f"asil-sandbox-{os.getpid()}-*")]
