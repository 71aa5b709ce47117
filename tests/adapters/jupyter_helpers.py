"""Notebooks for the Jupyter adapter tests, written as plain nbformat 4 JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.workspace import Workspace

META = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}


def code(cell_id: str | None, source: str, outputs: list[dict[str, Any]] | None = None,
         count: int | None = None) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": "code", "metadata": {}, "source": source, "outputs": outputs or [],
                            "execution_count": count}
    if cell_id is not None:
        cell["id"] = cell_id
    return cell


def markdown(cell_id: str | None, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": "markdown", "metadata": {}, "source": source}
    if cell_id is not None:
        cell["id"] = cell_id
    return cell


def write_notebook(workspace: Workspace, name: str, cells: list[dict[str, Any]], minor: int = 5) -> Path:
    path = workspace.resolve(name)
    nb = {"cells": cells, "metadata": META, "nbformat": 4, "nbformat_minor": minor}
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path
