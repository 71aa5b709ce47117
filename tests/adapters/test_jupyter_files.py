"""Hostile notebook files are refused with one sentence and left untouched; files the adapter writes
are notebooks that ``jupyter nbconvert --execute`` runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from asil.adapters.jupyter.adapter import JupyterAdapter
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace
from tests.adapters.jupyter_helpers import code, markdown, write_notebook

GOOD_CELLS = [{"cell_type": "code", "id": "a", "metadata": {}, "source": "1", "outputs": [], "execution_count": None}]
HOSTILE = {
    "not-json.ipynb": (b"{\"cells\": [", "is not valid JSON (Expecting value at line 1)."),
    "binary.ipynb": (b"\xff\xfe\x00garbage", "is not UTF-8 text, so it is not a notebook."),
    "list.ipynb": (b"[1, 2, 3]", "is JSON but not a notebook (no 'cells' list)."),
    "v3.ipynb": (json.dumps({"cells": [], "nbformat": 3}).encode(), "is nbformat 3; only nbformat 4 notebooks"),
    "cells-not-list.ipynb": (json.dumps({"cells": {}, "nbformat": 4}).encode(), "has a malformed 'metadata' or 'cells'"),
    "bad-type.ipynb": (json.dumps({"cells": [{"cell_type": "python", "source": ""}], "nbformat": 4}).encode(),
                       "Cell 1 of 'bad-type.ipynb' is malformed: cell_type 'python' is not one of code, markdown, raw."),
    "bad-source.ipynb": (json.dumps({"cells": [{"cell_type": "code", "source": 5}], "nbformat": 4}).encode(),
                         "its source is neither text nor a list of lines"),
    "bad-outputs.ipynb": (json.dumps({"cells": [{"cell_type": "code", "source": "", "outputs": [1]}],
                                      "nbformat": 4}).encode(), "its outputs are not a list of output objects"),
    "deep.ipynb": (b"[" * 100_000 + b"]" * 100_000, "nests JSON too deeply to be a notebook."),
    "many.ipynb": (json.dumps({"cells": GOOD_CELLS * 10_001, "nbformat": 4}).encode(), "has 10001 cells, more than"),
    "notes.txt": (b"hello", "is not an .ipynb notebook."),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_files_are_refused_with_one_sentence(workspace: Workspace, name: str) -> None:
    data, message = HOSTILE[name]
    path = workspace.resolve(name)
    path.write_bytes(data)
    with pytest.raises(DocumentError) as caught:
        JupyterAdapter(workspace, name)
    assert message in caught.value.message, caught.value.message
    assert caught.value.message.endswith(".") and "\n" not in caught.value.message
    assert path.read_bytes() == data


def test_a_huge_notebook_is_refused_before_it_is_parsed(workspace: Workspace) -> None:
    path = workspace.resolve("huge.ipynb")
    with open(path, "wb") as handle:
        handle.truncate(30 * 2**20)  # sparse: 30 MiB of nothing, cheap to make
    with pytest.raises(DocumentError, match=r"is 30 MiB, more than the 25 MiB"):
        JupyterAdapter(workspace, "huge.ipynb")


def test_a_missing_notebook_is_named(workspace: Workspace) -> None:
    with pytest.raises(DocumentError, match="'gone.ipynb' does not exist in the workspace."):
        JupyterAdapter(workspace, "gone.ipynb")


def test_the_cli_refuses_a_hostile_notebook_without_a_traceback(workspace: Workspace) -> None:
    path = workspace.resolve("broken.ipynb")
    path.write_bytes(b"{not json")
    done = subprocess.run([sys.executable, "-m", "asil.cli", "observe", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "is not valid JSON" in done.stderr


@pytest.mark.slow
def test_notebooks_the_adapter_writes_run_with_nbconvert(workspace: Workspace, tmp_path: Path) -> None:
    write_notebook(workspace, "made.ipynb", [code(None, "a = 2"), markdown(None, "# Title")], 4)
    with JupyterAdapter(workspace, "made.ipynb") as adapter:
        for action in [
            Action(action_type="invoke_function", target="insert_cell", params={"source": "b = a * 21\nprint(b)"}),
            Action(action_type="invoke_function", target="insert_cell",
                   params={"index": 0, "cell_type": "raw", "source": "raw text"}),
            Action(action_type="set_value", target="cell-1", params={"source": "a = 2  # two"}),
        ]:
            assert adapter.execute(action).ok
        adapter.save()
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--output-dir", str(out),
                           str(workspace.resolve("made.ipynb"))], capture_output=True, text=True, timeout=180,
                          env={"JUPYTER_PLATFORM_DIRS": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    executed = json.loads((out / "made.ipynb").read_text())
    assert executed["cells"][-1]["outputs"][0]["text"] == ["42\n"]
