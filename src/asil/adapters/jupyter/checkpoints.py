"""Checkpoint types that read a notebook through the Jupyter adapter (and its real kernel)."""

from __future__ import annotations

from typing import Any

from asil.adapters.jupyter.notebook import CELL_TYPES, Cell, join_source
from asil.adapters.jupyter.outputs import output_text
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require


def _adapter(ctx: EvalContext, cp: Checkpoint) -> Any:
    from asil.adapters.jupyter.adapter import JupyterAdapter

    adapter = ctx.adapter("jupyter", require(cp.document, "document (.ipynb path)"))
    assert isinstance(adapter, JupyterAdapter)
    return adapter


def _cells(ctx: EvalContext, cp: Checkpoint) -> list[Cell]:
    cells: list[Cell] = _adapter(ctx, cp).notebook()["cells"]
    return cells


def _cell(ctx: EvalContext, cp: Checkpoint) -> Cell:
    wanted = require(cp.target, "cell id target")
    for cell in _cells(ctx, cp):
        if cell["id"] == wanted:
            return cell
    raise CheckpointUnreadable(f"there is no cell with id {wanted!r}")


def _of_type(ctx: EvalContext, cp: Checkpoint) -> list[Cell]:
    """Cells of the type named by ``target`` (all cells when it is omitted)."""
    if cp.target is not None and cp.target not in CELL_TYPES:
        raise CheckpointUnreadable(f"target must be one of {', '.join(CELL_TYPES)} or omitted, not {cp.target!r}")
    return [c for c in _cells(ctx, cp) if cp.target is None or c["cell_type"] == cp.target]


@checkpoint_type("cell_source", default_compare="regex")
def cell_source(ctx: EvalContext, cp: Checkpoint) -> str:
    """The source of the cell whose id is ``target``."""
    return join_source(_cell(ctx, cp)["source"])


@checkpoint_type("notebook_source", default_compare="regex")
def notebook_source(ctx: EvalContext, cp: Checkpoint) -> str:
    """The sources of every cell of type ``target`` (code, markdown, raw; all when omitted), joined by blank lines."""
    return "\n\n".join(join_source(c["source"]) for c in _of_type(ctx, cp))


@checkpoint_type("cell_output", default_compare="contains")
def cell_output(ctx: EvalContext, cp: Checkpoint) -> str:
    """The saved output text of cell ``target`` (streams, plain results, error lines); every cell's when omitted."""
    cells = [_cell(ctx, cp)] if cp.target else _cells(ctx, cp)
    return "\n".join(output_text(c.get("outputs", [])) for c in cells if c["cell_type"] == "code")


@checkpoint_type("cell_count")
def cell_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many cells of type ``target`` there are (all cells when omitted)."""
    return len(_of_type(ctx, cp))


@checkpoint_type("cell_types")
def cell_types(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The type of every cell, in order."""
    return [c["cell_type"] for c in _cells(ctx, cp)]


@checkpoint_type("cell_order")
def cell_order(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The ids of the cells, in order."""
    return [c["id"] for c in _cells(ctx, cp)]


@checkpoint_type("outputs_cleared")
def outputs_cleared(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when no code cell has outputs or an execution count."""
    return all(not c.get("outputs") and c.get("execution_count") is None
               for c in _cells(ctx, cp) if c["cell_type"] == "code")


@checkpoint_type("executes_cleanly")
def executes_cleanly(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when every code cell runs without error, top to bottom, in a fresh kernel."""
    return bool(_adapter(ctx, cp).fresh_run().clean)


@checkpoint_type("variable_value", default_compare="approx")
def variable_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The value (as JSON) of the variable ``target`` after a fresh top-to-bottom run."""
    run = _adapter(ctx, cp).fresh_run()
    if not run.clean:
        raise CheckpointUnreadable(f"the notebook does not run cleanly: {run.failure}")
    try:
        return run.value(require(cp.target, "variable name"))
    except (KeyError, ValueError) as exc:
        raise CheckpointUnreadable(str(exc)) from None


# ---------------------------------------------------------------- JupyterLab state (open documents, kernels)


def _lab(ctx: EvalContext, cp: Checkpoint) -> tuple[list[str], str | None, list[dict[str, Any]]]:
    state: tuple[list[str], str | None, list[dict[str, Any]]] = _adapter(ctx, cp).lab.judged_state()
    return state


@checkpoint_type("lab_open_documents")
def lab_open_documents(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The documents open in JupyterLab, in tab order (its saved workspace layout)."""
    return _lab(ctx, cp)[0]


@checkpoint_type("lab_active_document")
def lab_active_document(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The active document in JupyterLab (None when nothing is open)."""
    return _lab(ctx, cp)[1]


@checkpoint_type("lab_kernel_running")
def lab_kernel_running(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when a JupyterLab kernel runs for the notebook ``target`` (as recorded when the episode was saved)."""
    wanted = require(cp.target, "notebook path target")
    return any(k.get("document") == wanted for k in _lab(ctx, cp)[2])
