"""Writer's setup-file builder: a text document built by LibreOffice from a JSON spec, once, then copied."""

from __future__ import annotations

import shutil
from pathlib import Path

from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import cached_build


def build_document(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"blocks": [{"text", "style", "list", "spans"} | {"table": rows, "name"}], "page", "header", "footer"}``."""
    from asil.adapters.writer.adapter import create_document

    shutil.copyfile(cached_build(item, task, "documents", ".odt", create_document), target)
