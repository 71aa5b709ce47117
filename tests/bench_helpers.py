"""Small task folders and result readers for the bench and report tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from asil.apps.reaper import with_environment
from asil.tasks.loader import builtin_root

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def task_dir(tmp_path: Path, *task_ids: str) -> Path:
    """A --tasks-dir holding copies of some built-in tasks."""
    folder = tmp_path / "tasks"
    folder.mkdir(exist_ok=True)
    for task_id in task_ids:
        source = next(builtin_root().rglob(f"{task_id}.json"))
        shutil.copy(source, folder / f"{task_id}.json")
    return folder


def asil(*args: str, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "asil.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def outcomes(out: Path) -> dict[str, tuple[bool, float, int, str]]:
    """Per task (success, score, steps, termination) from each result.json of a run folder."""
    found = {}
    for path in sorted(out.glob("*/result.json")):
        data = json.loads(path.read_text())
        found[data["task_id"]] = (data["success"], data["score"], data["steps"], data["termination"])
    return found


def layout(out: Path) -> dict[str, list[str]]:
    """The files of every task folder (the result layout every backend must share)."""
    return {folder.name: sorted(p.name for p in folder.iterdir())
            for folder in sorted(out.iterdir()) if folder.is_dir() and not folder.name.startswith(".")}


def schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return data


def marked_processes(out: Path) -> list[int]:
    """Processes started for a bench on ``out`` (workers and their LibreOffice inherit ASIL_BENCH_OUT)."""
    return with_environment("ASIL_BENCH_OUT", str(out.resolve()))


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
