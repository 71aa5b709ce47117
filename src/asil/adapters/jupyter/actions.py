"""The notebook action vocabulary: parameter models, and what an agent is told besides the functions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, Vocabulary, navigate_page
from asil.adapters.params import Params

MAX_BATCH = 100
MAX_SOURCE = 200_000  # characters of one cell's source
DEFAULT_TIMEOUT_S = 30.0
CellType = Literal["code", "markdown", "raw"]
Source = Annotated[str, Field(max_length=MAX_SOURCE)]
CellRef = Annotated[str, Field(min_length=1, max_length=64, description="A cell id from the observation.")]
Timeout = Annotated[float, Field(gt=0, le=600)]


class _Params(Params):
    """Strict parameters: unknown fields, coercion and NaN are refused."""


class _Placed(_Params):
    """Where a cell goes: before or after another cell, or at a 0-based index (at the end when omitted)."""

    before: CellRef | None = None
    after: CellRef | None = None
    index: Annotated[int, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _one_place(self) -> _Placed:
        if sum(v is not None for v in (self.before, self.after, self.index)) > 1:
            raise ValueError("give at most one of before, after or index")
        return self


class SetSource(_Params):
    source: Source


class EditCell(_Params):
    cell: CellRef
    source: Source = Field(description="The whole new source of the cell.")


class ReplaceInCell(_Params):
    cell: CellRef
    old: Annotated[str, Field(min_length=1, max_length=MAX_SOURCE)] = Field(description="Text that occurs in the cell.")
    new: Source
    all: bool = Field(False, description="Replace every occurrence; otherwise 'old' must occur exactly once.")


class InsertCell(_Placed):
    cell_type: CellType = "code"
    source: Source = ""
    id: Annotated[str, Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")] | None = Field(
        None, description="Id for the new cell; a fresh one is made when omitted.")


class CellOnly(_Params):
    cell: CellRef


class MoveCell(_Placed):
    cell: CellRef


class SetCellType(_Params):
    cell: CellRef
    cell_type: CellType


class ClearOutputs(_Params):
    cell: CellRef | None = Field(None, description="One cell; every cell when omitted.")


class RunCell(_Params):
    cell: CellRef
    timeout_s: Timeout = DEFAULT_TIMEOUT_S


class RunAll(_Params):
    timeout_s: Timeout = Field(DEFAULT_TIMEOUT_S, description="Time limit of each cell.")
    restart: bool = Field(False, description="Restart the kernel first, as 'Restart Kernel and Run All Cells'.")


class RestartKernel(_Params):
    document: Annotated[str, Field(min_length=1, max_length=255)] | None = Field(
        None, description="A notebook whose JupyterLab kernel to restart; run_cell's kernel when omitted.")


VOCABULARY = Vocabulary(
    app="jupyter",
    action_types=FILE_ACTION_TYPES,
    target_format="modify_file: the open document (or none); "
    "set_value: a cell id; invoke_function: a function name (the cell goes in params.cell); "
    "navigate: a cell id to show, or none",
    set_value_params=SetSource,
    navigate_params=navigate_page(100),
    max_batch=MAX_BATCH,
    examples=[
        {"action_type": "set_value", "target": "cell-1",
         "params": {"source": "values = [3, 5, 8]\ntotal = sum(values)\nprint(total)"}},
        {"action_type": "invoke_function", "target": "insert_cell",
         "params": {"after": "cell-1", "cell_type": "markdown", "source": "## Results"}},
        {"action_type": "invoke_function", "target": "replace_in_cell",
         "params": {"cell": "cell-1", "old": "print(total)", "new": "print('total:', total)"}},
        {"action_type": "invoke_function", "target": "run_cell", "params": {"cell": "cell-1", "timeout_s": 30}},
        {"action_type": "invoke_function", "target": "run_all", "params": {"restart": True}},
        {"action_type": "invoke_function", "target": "move_cell", "params": {"cell": "cell-1", "index": 0}},
        {"action_type": "invoke_function", "target": "set_cell_type", "params": {"cell": "cell-2", "cell_type": "raw"}},
        {"action_type": "invoke_function", "target": "clear_outputs", "params": {}},
        {"action_type": "navigate", "target": "cell-1", "params": {"limit": 20}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "insert_cell",
             "params": {"id": "mean-cell", "source": "mean = total / len(values)"}},
            {"action_type": "invoke_function", "target": "delete_cell", "params": {"cell": "cell-2"}}]}},
        {"action_type": "invoke_function", "target": "write_file", "params": {"path": "notes.md", "text": "# Notes\n"}},
        {"action_type": "invoke_function", "target": "open_document", "params": {"path": "notes.md"}},
        {"action_type": "invoke_function", "target": "start_kernel", "params": {"document": "sample.ipynb"}},
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "insert_cell", "params": {"cell_type": "markdown", "source": "## Notes"}},
            {"op": "set_value", "target": "mean-cell", "params": {"source": "mean = total / len(values)"}}]}},
    ],
    tips=[
        "Cells are elements; their ids (e.g. 'cell-1', '3f2a9c1e') never change when other cells move. "
        "set_value on a cell id replaces its source.",
        "run_cell and run_all execute in a real Python kernel that keeps variables between runs, like JupyterLab. "
        "Outputs (text, results, errors) appear in the cell's meta.outputs; images are summarized.",
        "Code runs confined: it may read and write files in the workspace only, has no network, and each cell "
        "has a time limit (timeout_s). A cell past its limit is interrupted, or the kernel restarted.",
        "A batch is atomic for the notebook: if one action fails, the notebook is as before. Code a batch already "
        "ran cannot be undone in the kernel (variables, written files) — run code outside batches when that matters.",
        "Prefer replace_in_cell for small fixes; insert_cell takes 'id' to name the new cell.",
        "Large notebooks are shown a window of cells at a time: navigate with a cell id or params.offset to page.",
        "JupyterLab around the notebook (observe view 'lab'): open documents and the active tab, running kernels "
        "with their notebook, and the workspace's files with a text preview. open/close/activate_document, "
        "write/rename/delete_file (non-notebook files) and start/stop/interrupt_kernel change it; they cannot be in "
        "a batch. Kernels end when the server does; files and the open documents stay.",
        MODIFY_FILE_TIP,
    ],
)
