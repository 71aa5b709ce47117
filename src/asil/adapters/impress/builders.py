"""Impress's setup-file builder: a presentation built by LibreOffice from a JSON spec, once, then copied."""

from __future__ import annotations

import shutil
from pathlib import Path

from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import cached_build


def build_presentation(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"slides": [{"name", "layout", "title", "body", "notes", "shapes": [...]}]}``."""
    from asil.adapters.impress.adapter import create_presentation

    shutil.copyfile(cached_build(item, task, "presentations", ".odp", create_presentation), target)
