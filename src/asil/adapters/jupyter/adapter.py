"""The JupyterLab adapter: an .ipynb file seen as cells, edited as JSON, run in a confined real kernel.

Edits work on a copy of the notebook (the cell list and each cell dict copied; nested values are
only ever replaced, never changed in place), which becomes the notebook only when the whole
action succeeded: every action, batches included, is atomic for the document. The file is
written atomically on :meth:`save`. One kernel per adapter starts on the first run and dies
in :meth:`close`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.adapters.api import response_text, with_api
from asil.adapters.base import Adapter, Readiness, only_view, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.functions import FunctionTable
from asil.adapters.jupyter import actions as act
from asil.adapters.jupyter.fresh import FreshRun
from asil.adapters.jupyter.kernel import CellRun, SandboxKernel, kernel_readiness
from asil.adapters.jupyter.lab import Lab, require_relative
from asil.adapters.jupyter.lab_actions import LAB_FUNCTIONS, register, restart_document_kernel
from asil.adapters.jupyter.lab_api import API_EXAMPLES, API_TIPS, JUPYTER_API
from asil.adapters.jupyter.lab_view import build_lab_observation
from asil.adapters.jupyter.notebook import (
    MAX_CELLS,
    Cell,
    Notebook,
    join_source,
    load_notebook,
    new_cell,
    new_cell_id,
    retype_cell,
    serialize,
    split_source,
)
from asil.adapters.jupyter.outputs import for_file, output_text
from asil.adapters.jupyter.view import DEFAULT_LIMIT, build_observation
from asil.adapters.params import NoParams
from asil.apps.jupyter_server import server_readiness
from asil.protocol import (
    Action,
    ActionFailed,
    ActionResult,
    InvalidAction,
    Observation,
)
from asil.workspace import Workspace, atomic_write


class CellFailed(ActionFailed):
    """Code raised or timed out; its outputs were recorded in the notebook (as JupyterLab does)."""

    code = "cell_error"


# A notebook function: (adapter, working copy of the notebook, parsed params, run code?) -> changed cell ids.
NotebookFunction = Callable[["JupyterAdapter", Notebook, Any, bool], list[str]]
FUNCTIONS: FunctionTable[NotebookFunction] = FunctionTable("notebook")


class JupyterAdapter(Adapter):
    """A notebook: cells are elements with their nbformat 4.5 ids; one view, paged by cell index."""

    recorded_failures = ("cell_error", "cell_timeout")  # a cell that raised keeps its traceback and count

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 **options: Any):
        super().__init__(workspace, document)
        self.path, document = self._open_document("an .ipynb notebook")
        self.nb, self.dirty = load_notebook(self.path, document)  # dirty: ids were assigned
        self.offset, self.limit = 0, limit
        self.kernel: SandboxKernel | None = None
        self._run_log: list[str] = []
        self._fresh: FreshRun | None = None
        self.lab = Lab(workspace, workspace.relative(self.path))  # the JupyterLab server, started on first use
        self.view = "notebook"

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view == "lab":
            self.view = "lab"
        elif view is not None:
            only_view(view, "notebook")
            self.view = "notebook"
        if self.view == "lab":
            return build_lab_observation(self.lab, step=self.step, notebook=self.workspace.relative(self.path))
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), 100)
        observation = build_observation(self.nb, step=self.step, name=self.path.name, document=self.document,
                                        dirty=self.dirty, offset=self.offset, limit=self.limit,
                                        kernel=self._kernel_state(), environment=self._environment())
        observation.app_state.details["lab"] = self._lab_state()
        return observation

    def _lab_state(self) -> dict[str, Any]:
        if not self.lab.running:
            return {"server": "not started (starts on the first JupyterLab function or observe view 'lab')"}
        docs, active = self.lab.layout()
        return {"server": "running", "open_documents": docs, "active_document": active,
                "kernels": len(self.lab.kernels()), "see": "observe view 'lab'"}

    def _kernel_state(self) -> dict[str, Any]:
        if self.kernel is None:
            return {"state": "not started (starts on the first run)"}
        return {"state": "idle" if self.kernel.alive else "dead", "restarts": self.kernel.restarts}

    def _environment(self) -> dict[str, Any]:
        return {"kernel": "IPython (real Jupyter kernel), started on the first run",
                "sandbox": "code may write only inside the workspace; no network",
                "working_directory": self.workspace.relative(self.path.parent) or ".",
                "default_cell_timeout_s": act.DEFAULT_TIMEOUT_S}

    # ------------------------------------------------------------ actions
    vocabulary = with_api(act.VOCABULARY, JUPYTER_API.specs(), examples=API_EXAMPLES, tips=API_TIPS)
    functions = FUNCTIONS
    doomed_operation = {"op": "delete_cell", "params": {"cell": "no-such-cell"}}
    doomed_api_call = {"request": "DELETE /api/contents/{path}", "data": {"path": "no-such-file.md"},
                       "destructive": True}

    def execute(self, action: Action, observe: bool = True) -> ActionResult:
        """The base template, plus the text that code runs printed (``ActionResult.output``)."""
        self._run_log = []
        result = super().execute(action, observe)
        if self._run_log:
            result = result.model_copy(update={"output": "\n".join(self._run_log)[-4000:]})
        return result

    def _check(self, action: Action) -> None:
        if action.action_type == "api_call":
            self._api_request(action)
            return
        if action.action_type == "navigate":
            self._check_navigate(action)
            return
        self._dispatch(action, _working_copy(self.nb), run=False)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "api_call":
            return self._api_call(action)
        if action.action_type == "navigate":
            self._navigate(action)
            return []
        if action.action_type == "invoke_function" and action.target == "save":
            self.save()
            return []
        work = _working_copy(self.nb)
        try:
            changed = self._dispatch(action, work, run=True)
        except CellFailed:
            if action.action_type != "batch":  # a failed run keeps its outputs; a failed batch keeps nothing
                self.nb, self.dirty = work, True
            raise
        if action.action_type == "invoke_function" and action.target in LAB_FUNCTIONS:
            self.view = "lab"  # the result shows what the function changed
        elif action.target != "restart_kernel":
            self.nb, self.dirty = work, True
            self.view = "notebook"
        return changed

    def _api_request(self, action: Action) -> tuple[bool, str, str, Any]:
        """(reads only, method, url path, body) of an allowed api_call; InvalidAction otherwise."""
        self.vocabulary.require_type(action)
        request, data = JUPYTER_API.check(action)
        return (request.reads, *request.require_handler()(self.lab, data))

    def _api_call(self, action: Action) -> list[str]:
        reads, method, path, body = self._api_request(action)
        answer = self.lab.request(method, path, body)
        if isinstance(answer, dict) and isinstance(answer.get("kernel"), dict) and method == "POST":
            self.lab.wait_ready(answer["kernel"]["id"])  # a new session's kernel, ready as start_kernel's is
        self.output = response_text(answer)
        if not reads:
            self.view = "lab"
        return []

    def _dispatch(self, action: Action, nb: Notebook, run: bool) -> list[str]:
        """Apply one action to ``nb`` (a working copy); with ``run=False`` code is only checked, never run."""
        self.vocabulary.require_type(action)
        if action.action_type == "api_call":
            raise InvalidAction("api_call cannot be part of a batch or modify_file: a server request is not undone "
                                "when a later action fails.", hint="Send the api_call as an action of its own.")
        if action.action_type == "set_value":
            params = self.vocabulary.parse_set_value(action)
            return self._edit_cell(nb, act.EditCell(cell=action.target or "", source=params.source), run)
        if action.action_type == "batch":
            return self._batch(action, nb, run)
        function, parsed = self.functions.parse(action.target, action.params)
        return function.require_handler()(self, nb, parsed, run)

    def _batch(self, action: Action, nb: Notebook, run: bool) -> list[str]:
        changed: list[str] = []
        for index, sub in enumerate(self.vocabulary.batch(action, self.functions), start=1):
            try:
                sub_changed = self._dispatch(sub, nb, run)
            except (InvalidAction, ActionFailed) as exc:
                raise in_batch(exc, index, "Nothing in the notebook was changed.") from None
            changed += [c for c in sub_changed if c not in changed]
        return changed

    def _check_navigate(self, action: Action) -> None:
        self.vocabulary.parse_navigate(action)
        if action.target:
            _find(self.nb, action.target)

    def _navigate(self, action: Action) -> None:
        params = self.vocabulary.parse_navigate(action)
        self.limit = params.limit or self.limit
        if action.target:
            self.offset = _find(self.nb, action.target)
        elif params.offset is not None:
            self.offset = params.offset

    # ------------------------------------------------------------ functions (each: nb, params, run), in schema order
    @FUNCTIONS.function("insert_cell", act.InsertCell, "Insert a new cell (code, markdown or raw).", acts_on="cells")
    def _insert_cell(self, nb: Notebook, p: act.InsertCell, run: bool) -> list[str]:
        taken = {c["id"] for c in nb["cells"]}
        if p.id is not None and p.id in taken:
            raise InvalidAction(f"A cell with id {p.id!r} already exists.", hint="Pick another id or omit it.",
                                code="cell_exists")
        if len(nb["cells"]) >= MAX_CELLS:
            raise InvalidAction(f"The notebook already has {MAX_CELLS} cells, the most allowed here.")
        cell = new_cell(p.cell_type, p.source, p.id or new_cell_id(taken))
        nb["cells"].insert(_place(nb, p, len(nb["cells"])), cell)
        return [cell["id"]]

    @FUNCTIONS.function("edit_cell", act.EditCell, "Replace the whole source of a cell.", acts_on="cell")
    def _edit_cell(self, nb: Notebook, p: act.EditCell, run: bool) -> list[str]:
        cell = nb["cells"][_find(nb, p.cell)]
        cell["source"] = split_source(p.source)
        return [cell["id"]]

    @FUNCTIONS.function("replace_in_cell", act.ReplaceInCell, "Replace a piece of text inside one cell's source.",
                        acts_on="cell")
    def _replace_in_cell(self, nb: Notebook, p: act.ReplaceInCell, run: bool) -> list[str]:
        cell = nb["cells"][_find(nb, p.cell)]
        source = join_source(cell["source"])
        found = source.count(p.old)
        if found == 0:
            raise InvalidAction(f"The text {p.old[:60]!r} does not occur in cell {p.cell!r}.",
                                hint="Copy the exact text from the cell's value (spaces and quotes matter).",
                                code="text_not_found")
        if found > 1 and not p.all:
            raise InvalidAction(f"The text {p.old[:60]!r} occurs {found} times in cell {p.cell!r}.",
                                hint="Give a longer piece of text that occurs once, or set all: true.")
        new = source.replace(p.old, p.new)
        if len(new) > act.MAX_SOURCE:
            raise InvalidAction(f"The new source of cell {p.cell!r} would pass {act.MAX_SOURCE} characters.")
        cell["source"] = split_source(new)
        return [cell["id"]]

    @FUNCTIONS.function("delete_cell", act.CellOnly, "Delete a cell.", destructive=True, acts_on="cell")
    def _delete_cell(self, nb: Notebook, p: act.CellOnly, run: bool) -> list[str]:
        del nb["cells"][_find(nb, p.cell)]
        return [p.cell]

    @FUNCTIONS.function("move_cell", act.MoveCell, "Move a cell before/after another cell or to an index.",
                        acts_on="cell")
    def _move_cell(self, nb: Notebook, p: act.MoveCell, run: bool) -> list[str]:
        if p.cell in (p.before, p.after):
            raise InvalidAction("A cell cannot be moved next to itself.", hint="Name another cell in before/after.")
        cell = nb["cells"].pop(_find(nb, p.cell))
        nb["cells"].insert(_place(nb, p, len(nb["cells"])), cell)
        return [p.cell]

    @FUNCTIONS.function("set_cell_type", act.SetCellType, "Change a cell's type; a code cell's outputs are dropped.",
                        acts_on="cell")
    def _set_cell_type(self, nb: Notebook, p: act.SetCellType, run: bool) -> list[str]:
        cell = nb["cells"][_find(nb, p.cell)]
        if cell["cell_type"] != p.cell_type:
            retype_cell(cell, p.cell_type)
        return [p.cell]

    @FUNCTIONS.function("clear_outputs", act.ClearOutputs,
                        "Clear the outputs and execution counts of one cell or all cells.", acts_on="outputs")
    def _clear_outputs(self, nb: Notebook, p: act.ClearOutputs, run: bool) -> list[str]:
        cells = [nb["cells"][_find(nb, p.cell)]] if p.cell else nb["cells"]
        changed = []
        for cell in cells:
            if cell["cell_type"] == "code" and (cell["outputs"] or cell["execution_count"] is not None):
                cell["outputs"], cell["execution_count"] = [], None
                changed.append(cell["id"])
        return changed

    @FUNCTIONS.function("run_cell", act.RunCell, "Run one code cell in the notebook's kernel and record its outputs.",
                        acts_on="kernel")
    def _run_cell(self, nb: Notebook, p: act.RunCell, run: bool) -> list[str]:
        cell = nb["cells"][_find(nb, p.cell)]
        if cell["cell_type"] != "code":
            raise InvalidAction(f"Cell {p.cell!r} is a {cell['cell_type']} cell; only code cells run.",
                                hint="Run a code cell, or change this cell's type with set_cell_type.")
        if run:
            self._run_into(cell, p.timeout_s)
        return [p.cell]

    @FUNCTIONS.function("run_all", act.RunAll, "Run every code cell from the top; stops at the first cell that fails.",
                        acts_on="kernel")
    def _run_all(self, nb: Notebook, p: act.RunAll, run: bool) -> list[str]:
        if not run:
            return []
        if p.restart and self.kernel is not None and self.kernel.alive:
            self.kernel.restart()
        changed = []
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                changed.append(cell["id"])
                self._run_into(cell, p.timeout_s)
        return changed

    @FUNCTIONS.function("restart_kernel", act.RestartKernel,
                        "Restart the kernel: all variables are lost; outputs stay. With params.document, restart "
                        "that notebook's JupyterLab kernel instead of run_cell's.", acts_on="kernel")
    def _restart_kernel(self, nb: Notebook, p: act.RestartKernel, run: bool) -> list[str]:
        if p.document is not None:
            return restart_document_kernel(self, require_relative(p.document), run)
        if run and self.kernel is not None and self.kernel.alive:
            self.kernel.restart()
        return []

    # _apply writes the file itself; a batch cannot hold save
    @FUNCTIONS.function("save", NoParams, "Write the notebook to disk now (it is also saved when the episode ends).",
                        acts_on="file", batch=False)
    def _save(self, nb: Notebook, p: NoParams, run: bool) -> list[str]:
        return []

    def _run_into(self, cell: Cell, timeout_s: float) -> CellRun:
        """Run a cell in the kernel and store its outputs on it; raise CellFailed when the code failed."""
        if self.kernel is None:
            self.kernel = SandboxKernel(self.workspace.root, self.path.parent)
        result = self.kernel.run(join_source(cell["source"]), timeout_s)
        cell["outputs"] = for_file(result.outputs)
        cell["execution_count"] = result.execution_count
        text = output_text(result.outputs).strip()
        self._run_log.append(f"[{cell['id']}] {text}" if text else f"[{cell['id']}] (no output)")
        if result.status == "timeout":
            raise CellFailed(f"Cell {cell['id']!r} timed out after {timeout_s:g} s and was stopped"
                             f"{'; the kernel was restarted, so all variables are gone' if result.restarted else ''}.",
                             hint="Make the code faster or pass a larger timeout_s (at most 600).", code="cell_timeout")
        if result.status == "error":
            raise CellFailed(f"Cell {cell['id']!r} raised {result.error}; its outputs were recorded.",
                             hint="Fix the cell's source and run it again.")
        return result

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the notebook atomically (nbformat 4.5 JSON) if it has unsaved changes; record JupyterLab's kernels."""
        if self.dirty:
            atomic_write(self.path, serialize(self.nb))
            self.dirty = False
        self.lab.record()

    def notebook(self) -> Notebook:
        """The current notebook (read-only use: checkpoints and renderers)."""
        return self.nb

    def render(self, path: Path) -> Path:
        from asil.adapters.jupyter.render import render_notebook

        return render_notebook(serialize(self.nb), path)

    def fresh_run(self) -> FreshRun:
        """The saved notebook run top to bottom in a fresh kernel and a scratch copy of the workspace (cached)."""
        if self._fresh is None:
            self._fresh = FreshRun(self.workspace.root, self.path, self.nb)
        return self._fresh

    def close(self) -> None:
        self.lab.close()
        if self._fresh is not None:
            self._fresh.close()
            self._fresh = None
        if self.kernel is not None:
            self.kernel.shutdown()
            self.kernel = None

    @classmethod
    def readiness(cls) -> Readiness:
        problem = kernel_readiness() or server_readiness()
        if problem:
            return Readiness(False, f"notebooks can be edited, but {problem}")
        return Readiness(True, "nbformat 4 JSON; code runs in an IPython kernel under bubblewrap; "
                               "a JupyterLab server (jupyter_server) for files, kernels and open documents")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        nb = {"cells": [new_cell("code", "values = [3, 5, 8]\nprint(sum(values))", "cell-1"),
                        new_cell("markdown", "# Notes\nA small sample notebook.", "cell-2")],
              "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
              "nbformat": 4, "nbformat_minor": 5}
        atomic_write(workspace.resolve("sample.ipynb"), serialize(nb))
        return "sample.ipynb"


# ---------------------------------------------------------------- helpers


def _working_copy(nb: Notebook) -> Notebook:
    return {**nb, "cells": [dict(cell) for cell in nb["cells"]]}


def _find(nb: Notebook, cell_id: str) -> int:
    for index, cell in enumerate(nb["cells"]):
        if cell["id"] == cell_id:
            return index
    shown = ", ".join(c["id"] for c in nb["cells"][:8]) + (" …" if len(nb["cells"]) > 8 else "")
    raise InvalidAction(f"There is no cell with id {cell_id!r}.", hint=f"Cell ids: {shown or 'none (empty notebook)'}.",
                        code="unknown_cell")


def _place(nb: Notebook, p: act._Placed, end: int) -> int:
    if p.before is not None:
        return _find(nb, p.before)
    if p.after is not None:
        return _find(nb, p.after) + 1
    if p.index is not None:
        if p.index > end:
            raise InvalidAction(f"Index {p.index} is past the end of the notebook ({end} cells).",
                                hint=f"Use an index from 0 to {end}.")
        return p.index
    return end


register(FUNCTIONS)  # JupyterLab's own functions come after the notebook's in the schema

__all__ = ["CellFailed", "JupyterAdapter"]
