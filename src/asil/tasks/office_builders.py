"""Setup file builders for Writer and Impress tasks: documents built by LibreOffice from a JSON
spec, once, then copied from the cache (like ``spreadsheet``)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, cache_dir, file_builder


def _cached(item: SetupFile, task: Task, target: Path, kind: str, suffix: str,
            create: Callable[[Path, dict[str, Any]], None]) -> None:
    if not isinstance(item.content, dict) or not item.content:
        raise SetupError(f"Task {task.id}: {kind} {item.path!r} needs content: an object (see the builder's docs).")
    digest = hashlib.sha256(json.dumps(item.content, sort_keys=True).encode()).hexdigest()[:24]
    cached = cache_dir() / f"{kind}s" / f"{digest}{suffix}"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        create(cached, item.content)
    shutil.copyfile(cached, target)


@file_builder("document")
def build_document(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"blocks": [{"text", "style", "list", "spans"} | {"table": rows, "name"}], "page", "header", "footer"}``."""
    from asil.adapters.writer.adapter import create_document

    _cached(item, task, target, "document", ".odt", create_document)


@file_builder("presentation")
def build_presentation(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"slides": [{"name", "layout", "title", "body", "notes", "shapes": [...]}]}``."""
    from asil.adapters.impress.adapter import create_presentation

    _cached(item, task, target, "presentation", ".odp", create_presentation)
