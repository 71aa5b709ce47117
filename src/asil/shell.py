"""The Bash channel: a shell confined to the workspace, with a time limit and captured output.

Commands run under bubblewrap (``asil.apps.sandbox``): only the system's program and library
folders (read-only) and the workspace (read-write) exist inside, with a private /tmp, no network,
no capabilities, a clean environment (no variable of the ASIL process, so no API key or token), a
cap on processes and on file size, and a PID namespace that ends every background process when the
command returns. The workspace's private area (adapters' snapshots, program profiles, persisted
service state) is hidden behind an empty folder, so model-written shell cannot read or rewrite what
the adapters keep there. Model-written shell never touches anything but the episode's files.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from asil.apps import reaper
from asil.apps.sandbox import clean_env, process_limit, sandbox_argv
from asil.workspace import Workspace

MAX_OUTPUT = 4000  # characters of stdout/stderr kept for the agent


@dataclass
class ShellResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool


FILE_LIMIT = 512 * 2**20  # largest file one command may write


def confined_command(command: str, workspace: Workspace, read_only: tuple[str, ...] = ()) -> list[str]:
    """bwrap running ``bash -c command`` in the workspace; ``read_only`` folders inside it are bound read-only."""
    root = workspace.root
    private = workspace.private()  # made now, so the shell cannot plant one before an adapter does
    bash = ["/usr/bin/prlimit", f"--fsize={FILE_LIMIT}", "/bin/bash", "-c", command]
    return sandbox_argv(root, bash, env=clean_env(str(root)), hidden=[private],
                        read_only=[root / folder for folder in read_only], purpose="The bash channel")


def run_shell(command: str, workspace: Workspace, timeout_s: float = 30.0,
              read_only: tuple[str, ...] = ()) -> ShellResult:
    """Run ``command`` with bash inside the workspace; never raises for the command's own failure."""
    with process_limit(confined_command(command, workspace, read_only)) as argv:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout_s,
                                  stdin=subprocess.DEVNULL, env=reaper.tag(clean_env(str(workspace.root))))
        except subprocess.TimeoutExpired as exc:
            return ShellResult(124, _clip(exc.stdout), _clip(exc.stderr) + f"\n(timed out after {timeout_s:g} s)",
                               True)
    return ShellResult(done.returncode, _clip(done.stdout), _clip(done.stderr), False)


def _clip(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text or ""
    return text if len(text) <= MAX_OUTPUT else text[: MAX_OUTPUT // 2] + "\n...\n" + text[-MAX_OUTPUT // 2 :]
