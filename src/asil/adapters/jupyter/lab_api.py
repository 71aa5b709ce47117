"""``api_call``: jupyter_server REST requests, named as the server's API names them, from an allowlist.

Each request is ``"METHOD /path/{field}"``; the fields of the path and the body are the request's data,
checked strictly before the server sees anything. Writes never touch notebooks (the notebook is edited
with the cell functions, and the open one is held by the adapter) or hidden files; sessions may only
use the confined ``asil-python`` kernel (the only one the server has). Requests that lose what cannot be
restored (a file, a kernel's variables) are destructive and need ``"destructive": true``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from asil.adapters.api import ApiAllowlist, ApiRequest
from asil.adapters.jupyter.lab import FILE_CHARS, WORKSPACE_ID, require_relative
from asil.adapters.params import NoParams, Params
from asil.protocol import InvalidAction

if TYPE_CHECKING:
    from asil.adapters.jupyter.lab import Lab

Path_ = Annotated[str, Field(min_length=1, max_length=255, description="A path relative to the workspace.")]
KernelId = Annotated[str, Field(pattern=r"^[0-9a-f-]{36}$", description="A kernel id from GET /api/kernels.")]
SessionId = Annotated[str, Field(pattern=r"^[0-9a-f-]{36}$", description="A session id from GET /api/sessions.")]
# (lab, checked data) -> (method, url path, body)
Handler = Callable[["Lab", Any], tuple[str, str, Any]]


class ContentsPath(Params):
    path: Path_


class ContentsPut(Params):
    path: Path_
    content: Annotated[str, Field(max_length=FILE_CHARS)] = Field(description="The file's whole text.")
    type: Literal["file"] = "file"
    format: Literal["text"] = "text"


class ContentsPatch(Params):
    path: Path_
    new_path: Path_ = Field(description="The body's 'path': where the file goes.")


class SessionsPost(Params):
    path: Path_ = Field(description="The notebook the session (and its new kernel) belongs to.")


class SessionDelete(Params):
    session_id: SessionId


class KernelAction(Params):
    kernel_id: KernelId


def _file(path: str) -> str:
    """A writable path: inside the workspace, not hidden, not a notebook."""
    if require_relative(path).endswith(".ipynb"):
        raise InvalidAction(f"api_call may not write the notebook {path!r}.",
                            hint="Edit notebooks with the cell functions (insert_cell, edit_cell, ...).",
                            code="is_notebook")
    return path


def _q(path: str) -> str:
    import urllib.parse

    return urllib.parse.quote(path)


def _request(name: str, description: str, data: type[Params], handler: Handler, *, reads: bool = False,
             destructive: bool = False) -> ApiRequest[Handler]:
    return ApiRequest(name, description, data, reads=reads, destructive=destructive, handler=handler)


JUPYTER_API: ApiAllowlist[Handler] = ApiAllowlist("JupyterLab", "jupyter_server REST requests")
JUPYTER_API.extend([
    _request("GET /api/contents/{path}", "A file's or folder's model (a folder lists its items).", ContentsPath,
             lambda lab, d: ("GET", f"/api/contents/{_q(require_relative(d.path))}", None), reads=True),
    _request("PUT /api/contents/{path}", "Create or replace a non-notebook text file.", ContentsPut,
             lambda lab, d: ("PUT", f"/api/contents/{_q(_file(d.path))}",
                             {"type": "file", "format": "text", "content": d.content})),
    _request("PATCH /api/contents/{path}", "Rename or move a non-notebook file.", ContentsPatch,
             lambda lab, d: ("PATCH", f"/api/contents/{_q(_file(d.path))}", {"path": _file(d.new_path)})),
    _request("DELETE /api/contents/{path}", "Delete a non-notebook file.", ContentsPath,
             lambda lab, d: ("DELETE", f"/api/contents/{_q(_file(d.path))}", None), destructive=True),
    _request("GET /api/sessions", "The sessions: which notebook has which kernel.", NoParams,
             lambda lab, d: ("GET", "/api/sessions", None), reads=True),
    _request("POST /api/sessions", "Start a session with a new confined kernel for a notebook.", SessionsPost,
             lambda lab, d: ("POST", "/api/sessions", {"path": require_relative(d.path), "type": "notebook",
                                                       "name": d.path, "kernel": {"name": "asil-python"}})),
    _request("DELETE /api/sessions/{session_id}", "End a session and shut its kernel down.", SessionDelete,
             lambda lab, d: ("DELETE", f"/api/sessions/{d.session_id}", None), destructive=True),
    _request("GET /api/kernels", "The running kernels and their execution state.", NoParams,
             lambda lab, d: ("GET", "/api/kernels", None), reads=True),
    _request("POST /api/kernels/{kernel_id}/interrupt", "Interrupt a kernel.", KernelAction,
             lambda lab, d: ("POST", f"/api/kernels/{d.kernel_id}/interrupt", None)),
    _request("POST /api/kernels/{kernel_id}/restart", "Restart a kernel: its variables are lost.", KernelAction,
             lambda lab, d: ("POST", f"/api/kernels/{d.kernel_id}/restart", None), destructive=True),
    _request("GET /api/kernelspecs", "The kernels the server may start.", NoParams,
             lambda lab, d: ("GET", "/api/kernelspecs", None), reads=True),
    _request(f"GET /lab/api/workspaces/{WORKSPACE_ID}", "JupyterLab's saved layout: open documents, the active one.",
             NoParams, lambda lab, d: ("GET", f"/lab/api/workspaces/{WORKSPACE_ID}", None), reads=True),
])

API_EXAMPLES = [
    {"action_type": "api_call", "params": {"request": "GET /api/kernels"}},
    {"action_type": "api_call", "params": {"request": "PUT /api/contents/{path}",
                                           "data": {"path": "todo.md", "content": "- check the totals\n"}}},
]
API_TIPS = [
    "api_call makes one jupyter_server REST request from the schema's api_calls (e.g. 'GET /api/sessions'); "
    "the path's fields and the body go in params.data; the answer is in the result's output. Notebooks are "
    "never written this way; destructive requests need \"destructive\": true.",
]
