"""The independent raw validator for notebook tasks: a second read path beside the adapter.

Structure, sources and saved outputs are read with the standard library's ``json`` straight
from the saved file; execution checkpoints run ``jupyter nbconvert --execute --to notebook``
on a scratch copy of the workspace (confined by bubblewrap, as the adapter's kernel is) and
read the executed copy back with ``json``. It shares no parsing or kernel code with the adapter
and fails closed: anything unreadable or unknown is a failed checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.jupyter.kernel import PROCESS_LIMIT, sandbox_argv
from asil.adapters.jupyter.lab_validator import LAB_TYPES, read_lab
from asil.apps.sandbox import process_limit
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import PRIVATE_DIR, Workspace

MARKER = "<<ASIL-RAW-VALUES>>"
NBCONVERT_TIMEOUT_S = 300
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Appended to the copy: every plain global as JSON, converted the way the adapter's checkpoint converts.
DUMP_CELL = f"""import json as __asil_json
__asil_values = {{}}
for __asil_k, __asil_v in list(globals().items()):
    if __asil_k.startswith('_') or __asil_k in ('In', 'Out') or callable(__asil_v) or type(__asil_v).__name__ == 'module':
        continue
    try:
        __asil_values[__asil_k] = __asil_json.loads(__asil_json.dumps(
            __asil_v, default=lambda o: o.tolist() if hasattr(o, 'tolist') else repr(o)))
    except Exception:
        pass
print({MARKER!r} + __asil_json.dumps(__asil_values))
"""
_EXECUTED: dict[tuple[str, str], tuple[bool, dict[str, Any]]] = {}


class RawNotebookError(Exception):
    """The file or its execution cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw files; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawNotebookError, KeyError, ValueError, TypeError, OSError, subprocess.SubprocessError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _text(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    if isinstance(value, str):
        return value
    raise RawNotebookError("text field is neither a string nor a list of strings")


def _cells(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("nbformat") != 4 or not isinstance(data.get("cells"), list):
        raise RawNotebookError("not an nbformat 4 notebook")
    cells: list[dict[str, Any]] = data["cells"]
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw") \
                or not isinstance(cell.get("id"), str):
            raise RawNotebookError("a cell has no valid type or id")
    return cells


def _outputs_text(cell: dict[str, Any]) -> str:
    parts = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            parts.append(_text(output["text"]))
        elif kind == "error":
            parts.append(f"{output['ename']}: {_ANSI.sub('', str(output['evalue']))}".rstrip(": "))
        elif kind in ("execute_result", "display_data"):
            if "text/plain" in output["data"]:
                parts.append(_text(output["data"]["text/plain"]))
        else:
            raise RawNotebookError(f"unknown output type {kind!r}")
    return _ANSI.sub("", "\n".join(parts))


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    if cp.type in LAB_TYPES:
        return read_lab(cp.type, cp.target, str(cp.document), workspace)
    path = Path(workspace.root, str(cp.document))
    cells = _cells(path)
    kind = cp.type
    if kind in ("executes_cleanly", "variable_value"):
        clean, values = _execute(workspace.root, path)
        if kind == "executes_cleanly":
            return clean
        if not clean:
            raise RawNotebookError("the notebook does not execute cleanly")
        return values[str(cp.target)]
    if kind == "cell_order":
        return [c["id"] for c in cells]
    if kind == "cell_types":
        return [c["cell_type"] for c in cells]
    if kind == "outputs_cleared":
        return all(not c.get("outputs") and c.get("execution_count") is None for c in cells if c["cell_type"] == "code")
    if kind in ("notebook_source", "cell_count"):
        if cp.target not in (None, "code", "markdown", "raw"):
            raise RawNotebookError(f"bad cell type {cp.target!r}")
        chosen = [c for c in cells if cp.target is None or c["cell_type"] == cp.target]
        return len(chosen) if kind == "cell_count" else "\n\n".join(_text(c["source"]) for c in chosen)
    if kind == "cell_output" and cp.target is None:
        return "\n".join(_outputs_text(c) for c in cells if c["cell_type"] == "code")
    matches = [c for c in cells if c["id"] == cp.target]
    if len(matches) != 1:
        raise RawNotebookError(f"no single cell with id {cp.target!r}")
    if kind == "cell_source":
        return _text(matches[0]["source"])
    if kind == "cell_output":
        return _outputs_text(matches[0]) if matches[0]["cell_type"] == "code" else ""
    raise RawNotebookError(f"unknown checkpoint type {kind!r}")


def _execute(root: Path, path: Path) -> tuple[bool, dict[str, Any]]:
    """Run a copy with nbconvert in a scratch workspace; (ran without error, globals as JSON). Cached per file."""
    key = (str(path), hashlib.sha256(path.read_bytes()).hexdigest())
    if key not in _EXECUTED:
        _EXECUTED[key] = _nbconvert(root, path)
    return _EXECUTED[key]


def _nbconvert(root: Path, path: Path) -> tuple[bool, dict[str, Any]]:
    scratch = Path(tempfile.mkdtemp(prefix="asil-raw-"))
    try:
        ws = scratch / "ws"
        shutil.copytree(root, ws, symlinks=True, ignore=shutil.ignore_patterns(PRIVATE_DIR))
        copy = ws / path.relative_to(root)
        data = json.loads(copy.read_text(encoding="utf-8"))
        data["cells"].append({"cell_type": "code", "execution_count": None, "id": "asil-raw-dump", "metadata": {},
                              "outputs": [], "source": DUMP_CELL})
        copy.write_text(json.dumps(data), encoding="utf-8")
        out = scratch / "out"
        out.mkdir()
        command = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute",
                   "--ExecutePreprocessor.kernel_name=python3", "--ExecutePreprocessor.timeout=60",
                   "--output-dir", str(out), "--output", "executed.ipynb", str(copy)]
        with process_limit(sandbox_argv(ws, copy.parent, out, command), PROCESS_LIMIT) as argv:
            done = subprocess.run(argv, capture_output=True, timeout=NBCONVERT_TIMEOUT_S, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            return False, {}
        executed = json.loads((out / "executed.ipynb").read_text(encoding="utf-8"))
        dump = _outputs_text(executed["cells"][-1])
        if MARKER not in dump:
            raise RawNotebookError("the value dump did not print")
        values: dict[str, Any] = json.loads(dump.split(MARKER, 1)[1].strip().splitlines()[0])
        return True, values
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
