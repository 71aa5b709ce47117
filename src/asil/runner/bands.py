"""Writing a band file (``asil band easy60 --write``): measure what the rule needs, select, write.

Observation sizes need each task's real app (the initial observation is built by the adapter), so
they are measured here, one task after another, only for candidates that are new or changed since
the committed file; everything else comes from the task files (see asil.tasks.bands).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from asil.env import Env
from asil.tasks.bands import (
    BandError,
    BandFile,
    band_path,
    build_band,
    fingerprint,
    is_candidate,
    read_band,
    require_band,
)
from asil.tasks.loader import load_tasks
from asil.tasks.model import Task
from asil.workspace import atomic_write


def observation_bytes(task: Task) -> int:
    """Size of the task's initial observation as an agent receives it (compact UTF-8 JSON)."""
    env = Env(task)
    try:
        observation = env.reset()
        return len(json.dumps(observation.to_agent_dict(), ensure_ascii=False, separators=(",", ":")).encode())
    finally:
        env.close()


def refresh_band(band: str, path: Path | None = None, tasks: list[Task] | None = None,
                 progress: Callable[[str], None] | None = None) -> BandFile:
    """The band file for the current tasks, measuring only candidates that are new or changed."""
    suite, _ = require_band(band)
    tasks = tasks if tasks is not None else load_tasks()
    try:
        known = {c.id: c for c in read_band(band, path).candidates}
    except BandError:
        known = {}
    sizes: dict[str, int] = {}
    for task in tasks:
        if not is_candidate(task, suite):
            continue
        cached = known.get(task.id)
        if cached is not None and cached.fingerprint == fingerprint(task):
            sizes[task.id] = cached.observation_bytes
            continue
        sizes[task.id] = observation_bytes(task)
        if progress is not None:
            progress(f"measured {task.id}: {sizes[task.id]} bytes")
    return build_band(band, tasks, sizes)


def write_band(band: str, path: Path | None = None, progress: Callable[[str], None] | None = None) -> BandFile:
    path = path or band_path(band)
    result = refresh_band(band, path, progress=progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (result.model_dump_json(indent=1) + "\n").encode())
    return result
