"""Task set-up: WAV files synthesised from a spec (pure Python), cached by content, and label files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from asil.adapters.audacity.audio import format_labels, synthesize
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, cached_build
from asil.workspace import atomic_write


def build_audio(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"rate", "channels", "duration", "parts": [{"kind", "start", "end", "frequency", ...}]}``."""
    if not isinstance(item.content, dict) or "duration" not in item.content:
        raise SetupError(f"Task {task.id}: audio {item.path!r} needs content with a duration and parts.")

    def write_wav(path: Path, spec: Any) -> None:
        try:
            data = synthesize(spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"Task {task.id}: audio {item.path!r}: {exc}.") from None
        atomic_write(path, data)

    shutil.copyfile(cached_build(item, task, "audio", ".wav", write_wav), target)


def build_labels(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``[[start, end, text], ...]`` written in Audacity's label text format."""
    if not isinstance(item.content, list):
        raise SetupError(f"Task {task.id}: labels {item.path!r} need content: a list of [start, end, text].")
    atomic_write(target, format_labels([(float(s), float(e), str(t)) for s, e, t in item.content]).encode("utf-8"))
