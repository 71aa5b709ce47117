"""JupyterLab's own state for one workspace, read and changed through a real jupyter_server's REST APIs.

* files: the contents API (``/api/contents``), which is the workspace's files;
* kernels: the sessions and kernels APIs; a kernel belongs to a document through its session;
* open documents and the active one: the JupyterLab workspace ``default`` (``/lab/api/workspaces``),
  whose ``layout-restorer:data`` lists the main area's widgets (``notebook:<path>``, ``editor:<path>``)
  and ``current``, the active one, as a JupyterLab page writes and reads it on load.

The workspace layout is a file in the episode's private area, so it survives the server; kernels end
with the server. What was running when the episode was saved is recorded beside it (:data:`RECORD`),
so judges that read the state after the episode (the evaluator, the raw validator) see the same thing.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

from asil.adapters.jupyter.kernel import sandbox_argv
from asil.apps.jupyter_server import JupyterServerError, LabServer
from asil.apps.sandbox import ProcessLimit
from asil.protocol import InvalidAction
from asil.workspace import Workspace, atomic_write

WORKSPACE_ID = "default"
STATE_DIR = "jupyterlab"  # inside the workspace's private area
RECORD = "lab-record.json"
KERNEL_READY_S = 60.0
PREVIEW_CHARS = 300
MAX_FILES = 60
FILE_CHARS = 200_000
# JupyterLab's widget namespace and factory for each kind of document (a notebook, else the text editor)
NOTEBOOK = ("notebook", "Notebook")
EDITOR = ("editor", "Editor")


def state_dir(workspace: Workspace) -> Path:
    folder = workspace.private(STATE_DIR)
    folder.mkdir(exist_ok=True)
    return folder


def widget_of(path: str) -> str:
    namespace = NOTEBOOK[0] if path.endswith(".ipynb") else EDITOR[0]
    return f"{namespace}:{path}"


def path_of(widget: str) -> str:
    return widget.split(":", 1)[1]


def layout_data(open_docs: list[str], active: str | None) -> dict[str, Any]:
    """The workspace data JupyterLab 4 restores: the main dock's widgets, the current one, one entry each."""
    widgets = [widget_of(p) for p in open_docs]
    main: dict[str, Any] = {"dock": {"type": "tab-area", "currentIndex": open_docs.index(active) if active else 0,
                                     "widgets": widgets}}
    if active is not None:
        main["current"] = widget_of(active)
    data: dict[str, Any] = {"layout-restorer:data": {"main": main}}
    for path in open_docs:
        factory = NOTEBOOK[1] if path.endswith(".ipynb") else EDITOR[1]
        data[widget_of(path)] = {"data": {"path": path, "factory": factory}}
    return data


def read_layout(data: dict[str, Any]) -> tuple[list[str], str | None]:
    """(open documents in tab order, active document) from a workspace's data."""
    main = data.get("layout-restorer:data", {}).get("main", {})
    widgets = [w for w in main.get("dock", {}).get("widgets", []) if ":" in w]
    current = main.get("current")
    return [path_of(w) for w in widgets], path_of(current) if isinstance(current, str) and ":" in current else None


class Lab:
    """A JupyterLab server for the workspace, started on first use; :meth:`close` ends it and its kernels."""

    def __init__(self, workspace: Workspace, first_document: str):
        self.workspace = workspace
        self.first_document = first_document
        self.server: LabServer | None = None
        self.started_at: float | None = None
        self.ended: list[str] = []  # notebooks whose kernels a previous server had: they ended with it

    # ------------------------------------------------------------ server
    def ensure(self) -> LabServer:
        if self.server is None or not self.server.alive:
            self.ended = [str(k.get("document")) for k in recorded_kernels(self.workspace)]
            self.server = LabServer(self.workspace.root, state_dir(self.workspace) / "workspaces", self._kernel_argv)
            self.started_at = time.monotonic()
            if self._workspace_data() is None:  # a first start opens the task's notebook, as `jupyter lab NB` does
                self.put_layout([self.first_document], self.first_document)
        return self.server

    def _kernel_argv(self, private: Path, limit: ProcessLimit) -> list[str]:
        command = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        return limit.wrap(sandbox_argv(self.workspace.root, self.workspace.root, private, command))

    @property
    def running(self) -> bool:
        return self.server is not None and self.server.alive

    def request(self, method: str, path: str, body: Any = None) -> Any:
        return self.ensure().request(method, path, body)

    # ------------------------------------------------------------ layout (workspaces API)
    def _workspace_data(self) -> dict[str, Any] | None:
        answer = self.request("GET", f"/lab/api/workspaces/{WORKSPACE_ID}")
        data = answer.get("data") if isinstance(answer, dict) else None
        return data if data else None

    def layout(self) -> tuple[list[str], str | None]:
        return read_layout(self._workspace_data() or {})

    def put_layout(self, open_docs: list[str], active: str | None) -> None:
        self.request("PUT", f"/lab/api/workspaces/{WORKSPACE_ID}",
                     {"data": layout_data(open_docs, active), "metadata": {"id": WORKSPACE_ID}})

    # ------------------------------------------------------------ files (contents API)
    def model(self, path: str, content: bool = False) -> dict[str, Any] | None:
        try:
            answer: dict[str, Any] = self.request("GET", f"/api/contents/{_quote(path)}?content={int(content)}")
        except JupyterServerError as exc:
            if exc.status == 404:
                return None
            raise
        return answer

    def files(self) -> list[dict[str, Any]]:
        """Every file of the workspace (folders walked), notebooks included, in path order."""
        found: list[dict[str, Any]] = []
        folders = [""]
        while folders and len(found) < MAX_FILES:
            listing = self.request("GET", f"/api/contents/{_quote(folders.pop(0))}?content=1")
            for item in sorted(listing["content"], key=lambda m: m["path"]):
                if item["type"] == "directory":
                    folders.append(item["path"])
                else:
                    found.append(item)
        return found[:MAX_FILES]

    def text(self, path: str) -> str:
        model = self.request("GET", f"/api/contents/{_quote(path)}?type=file&format=text&content=1")
        return str(model["content"])

    def write_text(self, path: str, text: str) -> None:
        """Create or replace a text file; missing folders on its path are made first (the server does not)."""
        parents = Path(path).parents
        for folder in reversed([str(p) for p in parents if str(p) != "."]):
            if self.model(folder) is None:
                self.request("PUT", f"/api/contents/{_quote(folder)}", {"type": "directory"})
        self.request("PUT", f"/api/contents/{_quote(path)}",
                     {"type": "file", "format": "text", "content": text})

    def rename(self, path: str, new_path: str) -> None:
        self.request("PATCH", f"/api/contents/{_quote(path)}", {"path": new_path})

    def delete(self, path: str) -> None:
        self.request("DELETE", f"/api/contents/{_quote(path)}")

    # ------------------------------------------------------------ kernels (sessions and kernels APIs)
    def kernels(self) -> list[dict[str, Any]]:
        """Running kernels, each with the document its session belongs to (None for a kernel without one)."""
        sessions = {s["kernel"]["id"]: s["path"] for s in self.request("GET", "/api/sessions") if s.get("kernel")}
        return [{"id": k["id"], "name": k["name"], "execution_state": k["execution_state"],
                 "document": sessions.get(k["id"])} for k in self.request("GET", "/api/kernels")]

    def session_of(self, document: str) -> dict[str, Any] | None:
        for session in self.request("GET", "/api/sessions"):
            if session["path"] == document and session.get("kernel"):
                found: dict[str, Any] = session
                return found
        return None

    def start_kernel(self, document: str) -> dict[str, Any]:
        session = self.request("POST", "/api/sessions", {"path": document, "name": Path(document).name,
                                                         "type": "notebook", "kernel": {"name": "asil-python"}})
        self.wait_ready(session["kernel"]["id"])
        return dict(session)

    def wait_ready(self, kernel_id: str) -> None:
        """Ask the kernel for its info over its channels, as a JupyterLab page does on connecting.

        The server marks a kernel idle only after it answered a first request; until then it says
        "starting". A kernel that does not answer in time is reported as it is, not hidden.
        """
        from jupyter_client.blocking.client import BlockingKernelClient

        assert self.server is not None
        client = BlockingKernelClient(connection_file=str(self.server.private / "rt" / f"kernel-{kernel_id}.json"))
        client.load_connection_file()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=KERNEL_READY_S)
        except RuntimeError:
            pass
        finally:
            client.stop_channels()
        deadline = time.monotonic() + KERNEL_READY_S  # the server reads the idle status asynchronously (slow when loaded)
        while time.monotonic() < deadline:
            if self.request("GET", f"/api/kernels/{kernel_id}")["execution_state"] != "starting":
                return
            time.sleep(0.05)

    def stop_kernel(self, session: dict[str, Any]) -> None:
        self.request("DELETE", f"/api/sessions/{session['id']}")  # ends the session and shuts its kernel down

    def restart_kernel(self, session: dict[str, Any]) -> None:
        kernel_id = session["kernel"]["id"]
        self.request("POST", f"/api/kernels/{kernel_id}/restart")
        self.wait_ready(kernel_id)

    def interrupt_kernel(self, session: dict[str, Any]) -> None:
        self.request("POST", f"/api/kernels/{session['kernel']['id']}/interrupt")

    # ------------------------------------------------------------ record and life
    def record(self) -> None:
        """Write what runs now beside the layout, for judges that read the state after the server is gone.

        Without a running server nothing runs: a record left by an earlier server (a restart) is emptied,
        so it cannot claim kernels that ended with it.
        """
        path = state_dir(self.workspace) / RECORD
        if not self.running and not path.exists():
            return
        kernels = self.kernels() if self.running else []
        atomic_write(path, json.dumps({"kernels": kernels, "note": "kernels running when the episode was saved"},
                                      indent=1).encode())

    def judged_state(self) -> tuple[list[str], str | None, list[dict[str, Any]]]:
        """(open documents, active document, kernels): live while the server runs, else as saved and recorded."""
        if self.running:
            docs, active = self.layout()
            return docs, active, self.kernels()
        docs, active = saved_layout(self.workspace, self.first_document)
        return docs, active, recorded_kernels(self.workspace)

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def saved_layout(workspace: Workspace, notebook: str) -> tuple[list[str], str | None]:
    """The layout of workspace ``default`` as jupyterlab_server saved it (its file: ``<slug>.jupyterlab-workspace``).

    Before any was saved, JupyterLab opens with the task's notebook as its one, active tab.
    """
    for path in sorted((state_dir(workspace) / "workspaces").glob("*.jupyterlab-workspace")):
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if str(saved.get("metadata", {}).get("id", "")).lstrip("/") == WORKSPACE_ID:
            return read_layout(saved.get("data", {}))
    return [notebook], notebook


def recorded_kernels(workspace: Workspace) -> list[dict[str, Any]]:
    """The kernels that ran when the episode was last saved (none when it never started a server)."""
    try:
        data = json.loads((state_dir(workspace) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return list(data.get("kernels", []))


def require_relative(path: str) -> str:
    """A workspace-relative file path: no absolute paths, no '..', not the private area."""
    parts = Path(path).parts
    if not path or path.startswith("/") or ".." in parts or any(p.startswith(".") for p in parts):
        raise InvalidAction(f"{path!r} is not a path inside the workspace.",
                            hint="Give a relative path such as 'notes.md' or 'src/helpers.py' (no '..', no hidden "
                                 "folders).", code="bad_path")
    return path


def _quote(path: str) -> str:
    return urllib.parse.quote(path)


__all__ = ["Lab", "layout_data", "read_layout", "recorded_kernels", "require_relative", "saved_layout"]
