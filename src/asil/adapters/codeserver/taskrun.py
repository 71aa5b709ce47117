"""Running a workspace task (.vscode/tasks.json) the way VS Code's task runner would, but confined.

Only ``shell`` and ``process`` tasks run. The command runs under the project's bubblewrap
confinement (``asil.shell``: read-only system folders, no network, clean environment, only the
workspace writable) with a time limit; ASIL's private folder is bound read-only so a task cannot forge its own record. The
run — command, exit code, output — is written to the profile's ``task-runs`` folder, where
checkpoints read it after the episode.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import state
from asil.apps import reaper
from asil.apps.sandbox import ProcessLimit, clean_env
from asil.protocol import InvalidAction
from asil.shell import confined_command
from asil.workspace import PRIVATE_DIR, Workspace, atomic_write

MAX_RECORDED = 64_000  # characters of stdout/stderr kept in the record
RUNNABLE = ("shell", "process")


def find_task(tasks: list[dict[str, Any]], label: str) -> dict[str, Any]:
    for task in tasks:
        if task.get("label") == label:
            return task
    known = ", ".join(repr(t.get("label")) for t in tasks if t.get("label")) or "none"
    raise InvalidAction(f"There is no task {label!r} in {state.WORKSPACE_TASKS}.", hint=f"Tasks: {known}.",
                        code="no_such_task")


def command_line(task: dict[str, Any], root: Path) -> str:
    """The bash command line of a task, with ${workspaceFolder} filled in; InvalidAction if it cannot run here."""
    kind = task.get("type")
    if kind not in RUNNABLE:
        raise InvalidAction(f"Task {task.get('label')!r} is a {kind!r} task; only shell and process tasks run here.",
                            code="unsupported_task")
    command, args = task.get("command"), task.get("args", [])
    if not isinstance(command, str) or not command.strip():
        raise InvalidAction(f"Task {task.get('label')!r} has no command.", code="unsupported_task")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InvalidAction(f"The args of task {task.get('label')!r} must be a list of strings.",
                            code="unsupported_task")
    words = [_fill(a, root) for a in args]
    line = (f"{_fill(command, root)} {shlex.join(words)}".strip() if kind == "shell"
            else shlex.join([_fill(command, root), *words]))
    cwd = task.get("options", {}).get("cwd") if isinstance(task.get("options"), dict) else None
    if isinstance(cwd, str):
        folder = Path(_fill(cwd, root))
        folder = folder if folder.is_absolute() else root / folder
        if folder.resolve() != root and root not in folder.resolve().parents:
            raise InvalidAction(f"Task {task.get('label')!r} runs in {cwd!r}, outside the workspace.",
                                code="unsupported_task")
        line = f"cd {shlex.quote(str(folder.resolve()))} && {line}"
    return line


def _fill(text: str, root: Path) -> str:
    """VS Code's workspace variables, the only ones a task here may use."""
    return text.replace("${workspaceFolder}", str(root)).replace("${cwd}", str(root))


def run(workspace: Workspace, places: state.Places, task: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """Run the task, record it, and return the record."""
    line = command_line(task, workspace.root)
    argv = confined_command(line, workspace, read_only=(PRIVATE_DIR,))  # the record area, read-only
    limit = ProcessLimit()
    started = time.time()
    try:
        done = subprocess.run(limit.wrap(argv), capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL, errors="replace",
                              env=reaper.tag(clean_env(str(workspace.root))))
        code, out, err, timed_out = done.returncode, done.stdout, done.stderr, False
    except subprocess.TimeoutExpired as exc:
        out, err = _text(exc.stdout), _text(exc.stderr) + f"\n(stopped after {timeout_s:g} s)"
        code, timed_out = 124, True
    finally:
        limit.release()
    record = {"label": task.get("label"), "command": line, "exit_code": code, "timed_out": timed_out,
              "stdout": out[-MAX_RECORDED:], "stderr": err[-MAX_RECORDED:], "started": started,
              "seconds": round(time.time() - started, 3)}
    atomic_write(places.task_run_file(str(task.get("label"))), json.dumps(record, indent=1).encode("utf-8"))
    return record


def _text(data: str | bytes | None) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
