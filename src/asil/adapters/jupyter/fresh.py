"""Running a saved notebook from the top in a fresh confined kernel, for checkpoints.

The run happens in a scratch copy of the workspace, so judging a notebook never writes into
the episode's files (a cell that writes ``out.csv`` must not make a file checkpoint pass).
"""

from __future__ import annotations

import json
import keyword
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.jupyter.kernel import SandboxKernel
from asil.adapters.jupyter.notebook import Notebook, join_source
from asil.workspace import PRIVATE_DIR

CELL_TIMEOUT_S = 60.0
# How a value leaves the kernel: JSON, with numpy/pandas values as plain lists and numbers, else repr.
DUMP = "print(__import__('json').dumps({name}, default=lambda o: o.tolist() if hasattr(o, 'tolist') else repr(o)))"


def copy_workspace(root: Path) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="asil-fresh-"))
    shutil.copytree(root, scratch / "ws", symlinks=True, ignore=shutil.ignore_patterns(PRIVATE_DIR))
    return scratch


def check_variable_name(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a Python variable name")
    return name


class FreshRun:
    """All code cells of ``nb`` run once, top to bottom, stopping at the first failure."""

    def __init__(self, workspace_root: Path, notebook_path: Path, nb: Notebook):
        self._scratch = copy_workspace(workspace_root)
        root = self._scratch / "ws"
        cwd = root / notebook_path.parent.relative_to(workspace_root)
        self.kernel = SandboxKernel(root, cwd)
        self.failure: str | None = None
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            run = self.kernel.run(join_source(cell["source"]), CELL_TIMEOUT_S)
            if run.status != "ok":
                self.failure = f"cell {cell['id']!r}: {run.error or run.status}"
                break

    @property
    def clean(self) -> bool:
        return self.failure is None

    def value(self, name: str) -> Any:
        """The JSON value of a variable after the run; KeyError when it is not defined."""
        run = self.kernel.run(DUMP.format(name=check_variable_name(name)), CELL_TIMEOUT_S)
        text = "".join(o.get("text", "") for o in run.outputs if o["output_type"] == "stream" and o["name"] == "stdout")
        if run.status != "ok" or not text.strip():
            raise KeyError(f"{name} is not defined after running the notebook ({run.error or run.status})")
        return json.loads(text)

    def close(self) -> None:
        self.kernel.shutdown()
        shutil.rmtree(self._scratch, ignore_errors=True)
