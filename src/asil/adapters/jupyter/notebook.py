"""Notebook documents as plain JSON (nbformat 4): load with checks, repair ids, edit, serialize.

The adapter keeps the notebook as the dict nbformat would write, so what it saves is exactly
what JupyterLab reads. Only the standard library is used: opening a notebook never imports
Jupyter. Hostile files (not JSON, not a v4 notebook, too large) are refused with one sentence.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
from pathlib import Path
from typing import Any

from asil.protocol import DocumentError

MAX_FILE_BYTES = 25 * 1024 * 1024
MAX_CELLS = 10_000
CELL_TYPES = ("code", "markdown", "raw")
ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
VALID = "Give a Jupyter notebook (.ipynb, nbformat 4) as JupyterLab saves it."
Cell = dict[str, Any]
Notebook = dict[str, Any]


def join_source(source: Any) -> str:
    """nbformat allows a string or a list of line strings; agents always see one string."""
    return "".join(source) if isinstance(source, list) else str(source)


def split_source(text: str) -> list[str]:
    """The list-of-lines form JupyterLab writes (each line keeps its newline)."""
    return text.splitlines(keepends=True)


def new_cell_id(taken: set[str]) -> str:
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def new_cell(cell_type: str, source: str, cell_id: str) -> Cell:
    """A cell with exactly the keys nbformat 4.5 allows for its type."""
    cell: Cell = {"cell_type": cell_type, "id": cell_id, "metadata": {}, "source": split_source(source)}
    if cell_type == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def retype_cell(cell: Cell, cell_type: str) -> None:
    """Change a cell's type in place; outputs and counts go, as in JupyterLab."""
    for key in ("outputs", "execution_count", "attachments"):
        cell.pop(key, None)
    cell["cell_type"] = cell_type
    if cell_type == "code":
        cell["execution_count"] = None
        cell["outputs"] = []


def load_notebook(path: Path, shown: str) -> tuple[Notebook, bool]:
    """Read and check a notebook; return it and whether ids had to be assigned or repaired.

    Raises:
        DocumentError: missing, too large, not JSON, or not an nbformat 4 notebook.
    """
    if path.suffix.lower() != ".ipynb":
        raise DocumentError(f"{shown!r} is not an .ipynb notebook.", hint=VALID)
    if not path.is_file():
        raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=VALID)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DocumentError(f"{shown!r} is {size / 2**20:.0f} MiB, more than the {MAX_FILE_BYTES // 2**20} MiB "
                            "a notebook may have here.", hint="Clear large outputs (images) and try again.")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise DocumentError(f"{shown!r} is not UTF-8 text, so it is not a notebook.", hint=VALID) from None
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{shown!r} is not valid JSON ({exc.msg} at line {exc.lineno}).", hint=VALID) from None
    except RecursionError:
        raise DocumentError(f"{shown!r} nests JSON too deeply to be a notebook.", hint=VALID) from None
    check_structure(data, shown)
    return data, ensure_ids(data)


def check_structure(data: Any, shown: str) -> None:
    """The shape every nbformat 4 notebook has; anything else is refused before it is used."""
    if not isinstance(data, dict) or "cells" not in data:
        raise DocumentError(f"{shown!r} is JSON but not a notebook (no 'cells' list).", hint=VALID)
    if data.get("nbformat") != 4:
        raise DocumentError(f"{shown!r} is nbformat {data.get('nbformat')!r}; only nbformat 4 notebooks are supported.",
                            hint="Upgrade it with: jupyter nbconvert --to notebook --inplace FILE.")
    if not isinstance(data.get("metadata", {}), dict) or not isinstance(data["cells"], list):
        raise DocumentError(f"{shown!r} has a malformed 'metadata' or 'cells' field.", hint=VALID)
    if len(data["cells"]) > MAX_CELLS:
        raise DocumentError(f"{shown!r} has {len(data['cells'])} cells, more than the {MAX_CELLS} allowed here.",
                            hint="Split the notebook into smaller ones.")
    for index, cell in enumerate(data["cells"], start=1):
        problem = _cell_problem(cell)
        if problem:
            raise DocumentError(f"Cell {index} of {shown!r} is malformed: {problem}.", hint=VALID)


def _cell_problem(cell: Any) -> str | None:
    if not isinstance(cell, dict):
        return "it is not an object"
    if cell.get("cell_type") not in CELL_TYPES:
        return f"cell_type {cell.get('cell_type')!r} is not one of {', '.join(CELL_TYPES)}"
    source = cell.get("source", "")
    if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
        return "its source is neither text nor a list of lines"
    if cell["cell_type"] == "code":
        outputs = cell.get("outputs", [])
        if not isinstance(outputs, list) or not all(isinstance(o, dict) and "output_type" in o for o in outputs):
            return "its outputs are not a list of output objects"
        count = cell.get("execution_count")
        if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
            return "its execution_count is not a number"
    if not isinstance(cell.get("metadata", {}), dict):
        return "its metadata is not an object"
    return None


def ensure_ids(data: Notebook) -> bool:
    """Give every cell a unique valid id (nbformat 4.5) and fill missing keys; True if anything changed.

    Missing ids become ``cell-N`` (its 1-based position) so an unsaved notebook shows the same ids
    each time it is opened; once saved they are kept in the file.
    """
    changed = False
    taken: set[str] = set()
    for index, cell in enumerate(data["cells"], start=1):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not ID_PATTERN.match(cell_id) or cell_id in taken:
            preferred = f"cell-{index}"
            cell["id"] = preferred if preferred not in taken and not _used_later(data, index, preferred) \
                else new_cell_id(taken)
            changed = True
        taken.add(cell["id"])
        defaults: tuple[tuple[str, Any], ...] = (("metadata", {}), ("source", []))
        for key, default in defaults:
            if key not in cell:
                cell[key] = default
                changed = True
        if cell["cell_type"] == "code":
            code_defaults: tuple[tuple[str, Any], ...] = (("outputs", []), ("execution_count", None))
            for key, default in code_defaults:
                if key not in cell:
                    cell[key] = default
                    changed = True
    if data.get("nbformat_minor", 0) < 5:
        data["nbformat_minor"] = 5
        changed = True
    data.setdefault("metadata", {})
    return changed


def _used_later(data: Notebook, index: int, cell_id: str) -> bool:
    return any(c.get("id") == cell_id for c in data["cells"][index:])


def serialize(data: Notebook) -> bytes:
    """The bytes JupyterLab itself writes: 1-space indent, sorted keys, trailing newline."""
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def snapshot(data: Notebook) -> Notebook:
    return copy.deepcopy(data)
