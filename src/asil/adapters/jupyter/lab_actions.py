"""Functions on JupyterLab's state: open documents, workspace files, a document's kernel.

They change the server (its files, sessions, kernels, saved layout), not the open notebook, so none of
them may sit in a batch or a ``modify_file``: a later failure could not take a started kernel or a
deleted file back. Each checks everything first and changes state only when the whole action is valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from asil.adapters.functions import FunctionTable
from asil.adapters.jupyter.lab import FILE_CHARS, require_relative
from asil.adapters.params import Params
from asil.protocol import InvalidAction

if TYPE_CHECKING:
    from asil.adapters.jupyter.adapter import JupyterAdapter

PathParam = Annotated[str, Field(min_length=1, max_length=255, description="A path relative to the workspace.")]
LAB_FUNCTIONS = ("open_document", "close_document", "activate_document", "write_file", "rename_file", "delete_file",
                 "start_kernel", "stop_kernel", "interrupt_kernel")


class DocumentPath(Params):
    path: PathParam


class WriteFile(Params):
    path: PathParam
    text: Annotated[str, Field(max_length=FILE_CHARS)] = Field(description="The whole new text of the file.")


class RenameFile(Params):
    path: PathParam
    new_path: PathParam


class NotebookKernel(Params):
    document: PathParam = Field(description="The notebook (.ipynb) whose kernel this is.")


def _open_docs(adapter: JupyterAdapter) -> tuple[list[str], str | None]:
    return adapter.lab.layout()


def _existing_file(adapter: JupyterAdapter, path: str) -> dict[str, Any]:
    model = adapter.lab.model(require_relative(path))
    if model is None or model["type"] == "directory":
        names = ", ".join(m["path"] for m in adapter.lab.files()[:12])
        raise InvalidAction(f"There is no file {path!r} in the workspace.", hint=f"Files: {names or 'none'}.",
                            code="unknown_file")
    return model


def _not_notebook(path: str, doing: str) -> str:
    if path.endswith(".ipynb"):
        raise InvalidAction(f"{doing} works on non-notebook files; {path!r} is a notebook.",
                            hint="Edit notebooks with the cell functions (insert_cell, edit_cell, ...).",
                            code="is_notebook")
    return require_relative(path)


def _open(adapter: JupyterAdapter, path: str) -> tuple[list[str], str | None]:
    docs, active = _open_docs(adapter)
    if path not in docs:
        raise InvalidAction(f"{path!r} is not open in JupyterLab.", hint=f"Open documents: {', '.join(docs) or 'none'}.",
                            code="not_open")
    return docs, active


def _session(adapter: JupyterAdapter, document: str) -> dict[str, Any]:
    session = adapter.lab.session_of(document)
    if session is None:
        running = [k["document"] for k in adapter.lab.kernels() if k["document"]]
        raise InvalidAction(f"No kernel is running for {document!r}.",
                            hint=f"Start one with start_kernel; notebooks with a kernel: {', '.join(running) or 'none'}.",
                            code="no_kernel")
    return session


def register(table: FunctionTable[Any]) -> None:
    """Declare the JupyterLab functions on the adapter's function table (after the notebook's own)."""

    @table.function("open_document", DocumentPath, "Open a workspace file in JupyterLab and make it the active tab.",
                    acts_on="lab", batch=False)
    def open_document(adapter: JupyterAdapter, nb: Any, p: DocumentPath, run: bool) -> list[str]:
        _existing_file(adapter, p.path)
        if run:
            docs, _ = _open_docs(adapter)
            adapter.lab.put_layout(docs if p.path in docs else [*docs, p.path], p.path)
        return [f"doc:{p.path}"]

    @table.function("close_document", DocumentPath, "Close an open document's tab (the file stays).",
                    acts_on="lab", batch=False)
    def close_document(adapter: JupyterAdapter, nb: Any, p: DocumentPath, run: bool) -> list[str]:
        docs, active = _open(adapter, p.path)
        if run:
            rest = [d for d in docs if d != p.path]
            # JupyterLab activates the neighbouring tab when the active one closes
            neighbour = rest[min(docs.index(p.path), len(rest) - 1)] if rest else None
            adapter.lab.put_layout(rest, active if active != p.path else neighbour)
        return [f"doc:{p.path}"]

    @table.function("activate_document", DocumentPath, "Make an open document the active tab.",
                    acts_on="lab", batch=False)
    def activate_document(adapter: JupyterAdapter, nb: Any, p: DocumentPath, run: bool) -> list[str]:
        docs, _ = _open(adapter, p.path)
        if run:
            adapter.lab.put_layout(docs, p.path)
        return [f"doc:{p.path}"]

    @table.function("write_file", WriteFile, "Create a non-notebook file (.py, .csv, .md, ...) or replace its text.",
                    acts_on="file", batch=False)
    def write_file(adapter: JupyterAdapter, nb: Any, p: WriteFile, run: bool) -> list[str]:
        _not_notebook(p.path, "write_file")
        existing = adapter.lab.model(p.path)
        if existing is not None and existing["type"] == "directory":
            raise InvalidAction(f"{p.path!r} is a folder.", hint="Give a file path.", code="is_folder")
        if run:
            adapter.lab.write_text(p.path, p.text)
        return [f"file:{p.path}"]

    @table.function("rename_file", RenameFile, "Rename or move a non-notebook file; its open tab follows it.",
                    acts_on="file", batch=False)
    def rename_file(adapter: JupyterAdapter, nb: Any, p: RenameFile, run: bool) -> list[str]:
        _not_notebook(p.path, "rename_file")
        _not_notebook(p.new_path, "rename_file")
        _existing_file(adapter, p.path)
        if adapter.lab.model(p.new_path) is not None:
            raise InvalidAction(f"{p.new_path!r} already exists.", hint="Pick a new name, or delete that file first.",
                                code="file_exists")
        if run:
            adapter.lab.rename(p.path, p.new_path)
            docs, active = _open_docs(adapter)
            if p.path in docs:
                adapter.lab.put_layout([p.new_path if d == p.path else d for d in docs],
                                       p.new_path if active == p.path else active)
        return [f"file:{p.path}", f"file:{p.new_path}"]

    @table.function("delete_file", DocumentPath, "Delete a non-notebook file; its open tab closes.",
                    destructive=True, acts_on="file", batch=False)
    def delete_file(adapter: JupyterAdapter, nb: Any, p: DocumentPath, run: bool) -> list[str]:
        _not_notebook(p.path, "delete_file")
        _existing_file(adapter, p.path)
        if run:
            docs, _ = _open_docs(adapter)
            if p.path in docs:
                close_document(adapter, nb, p, True)
            adapter.lab.delete(p.path)
        return [f"file:{p.path}"]

    @table.function("start_kernel", NotebookKernel, "Start a (confined) kernel for a notebook, as opening it does.",
                    acts_on="lab", batch=False)
    def start_kernel(adapter: JupyterAdapter, nb: Any, p: NotebookKernel, run: bool) -> list[str]:
        if not p.document.endswith(".ipynb"):
            raise InvalidAction(f"{p.document!r} is not a notebook.", hint="Name an .ipynb file.", code="not_notebook")
        _existing_file(adapter, p.document)
        if adapter.lab.session_of(p.document) is not None:
            raise InvalidAction(f"A kernel is already running for {p.document!r}.",
                                hint="Use restart_kernel with params.document, or stop_kernel.", code="kernel_running")
        if run:
            session = adapter.lab.start_kernel(p.document)
            return [f"kernel:{session['kernel']['id']}"]
        return []

    @table.function("stop_kernel", NotebookKernel, "Shut down a notebook's kernel: its variables are lost.",
                    destructive=True, acts_on="lab", batch=False)
    def stop_kernel(adapter: JupyterAdapter, nb: Any, p: NotebookKernel, run: bool) -> list[str]:
        session = _session(adapter, p.document)
        if run:
            adapter.lab.stop_kernel(session)
        return [f"kernel:{session['kernel']['id']}"]

    @table.function("interrupt_kernel", NotebookKernel, "Interrupt what a notebook's kernel is running.",
                    acts_on="lab", batch=False)
    def interrupt_kernel(adapter: JupyterAdapter, nb: Any, p: NotebookKernel, run: bool) -> list[str]:
        session = _session(adapter, p.document)
        if run:
            adapter.lab.interrupt_kernel(session)
        return [f"kernel:{session['kernel']['id']}"]


def restart_document_kernel(adapter: JupyterAdapter, document: str, run: bool) -> list[str]:
    """restart_kernel with ``params.document``: the server's kernel of that notebook, not run_cell's kernel."""
    session = _session(adapter, document)
    if run:
        adapter.lab.restart_kernel(session)
    return [f"kernel:{session['kernel']['id']}"]
