"""The Bash channel: a shell confined to the workspace, with a time limit and captured output.

Commands run under bubblewrap: the whole system is read-only, only the workspace is writable,
home folders and /tmp are empty, and there is no network. The workspace's private area (adapters'
snapshots, program profiles, persisted service state) is hidden behind an empty folder, so model-written
shell cannot read or rewrite what the adapters keep there. Model-written shell never touches
anything but the episode's files.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from asil.protocol import AppUnavailable
from asil.workspace import Workspace

MAX_OUTPUT = 4000  # characters of stdout/stderr kept for the agent


@dataclass
class ShellResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool


def confined_command(command: str, workspace: Workspace) -> list[str]:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise AppUnavailable("The bash channel needs bubblewrap to confine commands.",
                             hint="Install it with: apt-get install bubblewrap")
    root = str(workspace.root)
    private = str(workspace.private())  # made now, so the shell cannot plant one before an adapter does
    return [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
            "--tmpfs", "/tmp", "--tmpfs", "/root", "--tmpfs", "/home", "--tmpfs", "/work",
            "--bind", root, root, "--tmpfs", private, "--dev", "/dev", "--proc", "/proc", "--chdir", root,
            "--setenv", "HOME", root, "/bin/bash", "-c", command]


def run_shell(command: str, workspace: Workspace, timeout_s: float = 30.0) -> ShellResult:
    """Run ``command`` with bash inside the workspace; never raises for the command's own failure."""
    try:
        done = subprocess.run(confined_command(command, workspace), capture_output=True, text=True,
                              timeout=timeout_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return ShellResult(124, _clip(exc.stdout), _clip(exc.stderr) + f"\n(timed out after {timeout_s:g} s)", True)
    return ShellResult(done.returncode, _clip(done.stdout), _clip(done.stderr), False)


def _clip(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text or ""
    return text if len(text) <= MAX_OUTPUT else text[: MAX_OUTPUT // 2] + "\n...\n" + text[-MAX_OUTPUT // 2 :]
