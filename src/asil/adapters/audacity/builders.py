"""Task set-up: WAV files synthesised from a spec (pure Python), cached by content, and label files."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from asil.adapters.audacity.audio import format_labels, synthesize
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import atomic_write, cache_dir


def build_audio(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"rate", "channels", "duration", "parts": [{"kind", "start", "end", "frequency", ...}]}``."""
    if not isinstance(item.content, dict) or "duration" not in item.content:
        raise SetupError(f"Task {task.id}: audio {item.path!r} needs content with a duration and parts.")
    digest = hashlib.sha256(json.dumps(item.content, sort_keys=True).encode()).hexdigest()[:24]
    cached = cache_dir() / "audio" / f"{digest}.wav"
    if not cached.is_file():
        try:
            data = synthesize(item.content)
        except (ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"Task {task.id}: audio {item.path!r}: {exc}.") from None
        atomic_write(cached, data)
    shutil.copyfile(cached, target)


def build_labels(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``[[start, end, text], ...]`` written in Audacity's label text format."""
    if not isinstance(item.content, list):
        raise SetupError(f"Task {task.id}: labels {item.path!r} need content: a list of [start, end, text].")
    atomic_write(target, format_labels([(float(s), float(e), str(t)) for s, e, t in item.content]).encode("utf-8"))
