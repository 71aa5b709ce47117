"""Calc's setup-file builder: a spreadsheet built by LibreOffice from a sheet spec, once, then copied."""

from __future__ import annotations

import shutil
from pathlib import Path

from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import cached_build


def build_spreadsheet(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: a list of sheets (``{"name", "cells" | "rows", ...}``)."""
    from asil.adapters.calc.adapter import create_spreadsheet

    shutil.copyfile(cached_build(item, task, "spreadsheets", ".ods", create_spreadsheet, content_type=list), target)
