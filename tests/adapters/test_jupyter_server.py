"""JupyterLab's own state through a real jupyter_server: files, open documents, kernels, restarts, confinement.

Every test starts the real server (``python -m jupyterlab``) for its workspace; what the adapter
reports is checked against the disk and against the server's REST API asked directly.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.jupyter.adapter import JupyterAdapter
from asil.adapters.jupyter.lab_validator import read_lab
from asil.protocol import Action
from asil.runner.procs import descendants
from asil.workspace import Workspace
from tests.adapters.jupyter_helpers import code, write_notebook

pytestmark = pytest.mark.slow


# jupyter_server says "starting" until a kernel_info reply reaches it; on a loaded machine (two test workers)
# that can outlast the adapter's wait, so a started kernel is either state, never "dead" or absent
READY = ("idle", "starting")

def fn(name: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


def rest(adapter: JupyterAdapter, path: str) -> Any:
    """Ask the server itself, not through the adapter's reader."""
    server = adapter.lab.server
    assert server is not None
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}",
                                     headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 (loopback)
        return json.loads(answer.read())


def elements(adapter: JupyterAdapter) -> dict[str, Any]:
    return {e.id: e for e in adapter.observe(view="lab").elements}


@pytest.fixture
def lab(workspace: Workspace) -> Iterator[JupyterAdapter]:
    write_notebook(workspace, "analysis.ipynb", [code("a-1", "values = [1, 2, 3]")])
    (workspace.root / "data.csv").write_text("city,temp\nOslo,4\nRome,18\n", encoding="utf-8")
    (workspace.root / "README.md").write_text("# Project\n" + "Long line of text. " * 40, encoding="utf-8")
    adapter = JupyterAdapter(workspace, "analysis.ipynb")
    yield adapter
    adapter.close()


def test_the_lab_view_shows_open_documents_files_and_kernels(lab: JupyterAdapter) -> None:
    obs = lab.observe(view="lab")
    found = {e.id: e for e in obs.elements}
    assert found["doc:analysis.ipynb"].value == "active" and obs.app_state.active_document == "analysis.ipynb"
    csv = found["file:data.csv"]
    assert csv.value == "city,temp\nOslo,4\nRome,18\n" and csv.meta["size"] == len(csv.value.encode())
    readme = found["file:README.md"]
    assert readme.value.startswith("# Project\n") and readme.value.endswith(f"({len('# Project') + 1 + 19 * 40} "
                                                                             "characters)")
    assert found["file:analysis.ipynb"].type == "notebook"
    assert not [e for e in obs.elements if e.type == "kernel"]

    assert lab.execute(fn("start_kernel", document="analysis.ipynb")).ok
    kernels = [e for e in lab.observe(view="lab").elements if e.type == "kernel"]
    assert len(kernels) == 1 and kernels[0].meta["document"] == "analysis.ipynb" and kernels[0].value in READY
    (session,) = rest(lab, "/api/sessions")
    assert session["path"] == "analysis.ipynb" and kernels[0].id == f"kernel:{session['kernel']['id']}"
    assert rest(lab, f"/api/kernels/{session['kernel']['id']}")["execution_state"] in READY
    # the notebook view carries a short summary of the same state
    assert lab.observe(view="notebook").app_state.details["lab"]["kernels"] == 1


def test_documents_open_activate_and_close_in_jupyterlabs_saved_workspace(lab: JupyterAdapter,
                                                                          workspace: Workspace) -> None:
    assert lab.execute(fn("open_document", path="data.csv")).ok
    assert lab.execute(fn("open_document", path="README.md")).ok
    assert lab.execute(fn("activate_document", path="data.csv")).ok
    saved = rest(lab, "/lab/api/workspaces/default")["data"]["layout-restorer:data"]["main"]
    assert saved["dock"]["widgets"] == ["notebook:analysis.ipynb", "editor:data.csv", "editor:README.md"]
    assert saved["current"] == "editor:data.csv"
    assert read_lab("lab_open_documents", None, "analysis.ipynb", workspace) == ["analysis.ipynb", "data.csv",
                                                                                   "README.md"]
    assert lab.execute(fn("close_document", path="data.csv")).ok  # the active tab: its neighbour takes over
    assert read_lab("lab_active_document", None, "analysis.ipynb", workspace) == "README.md"
    assert (workspace.root / "data.csv").is_file()  # closing a tab keeps the file


def test_non_notebook_files_are_written_renamed_and_deleted(lab: JupyterAdapter, workspace: Workspace) -> None:
    assert lab.execute(fn("write_file", path="src/helpers.py", text="def double(x):\n    return 2 * x\n")).ok
    assert (workspace.root / "src/helpers.py").read_text() == "def double(x):\n    return 2 * x\n"
    assert rest(lab, "/api/contents/src/helpers.py")["content"].startswith("def double")
    assert lab.execute(fn("open_document", path="data.csv")).ok
    assert lab.execute(fn("rename_file", path="data.csv", new_path="cities.csv")).ok
    assert not (workspace.root / "data.csv").exists() and (workspace.root / "cities.csv").is_file()
    assert lab.observe(view="lab").app_state.details["open_documents"] == ["analysis.ipynb", "cities.csv"]
    result = lab.execute(fn("delete_file", path="cities.csv"))
    assert result.ok and not (workspace.root / "cities.csv").exists()
    assert "doc:cities.csv" not in elements(lab) and "file:cities.csv" not in elements(lab)


def test_a_notebooks_kernel_starts_restarts_interrupts_and_stops(lab: JupyterAdapter) -> None:
    started = lab.execute(fn("start_kernel", document="analysis.ipynb"))
    assert started.ok
    kernel_id = started.changed[0].removeprefix("kernel:")
    assert lab.execute(fn("restart_kernel", document="analysis.ipynb")).ok
    assert rest(lab, f"/api/kernels/{kernel_id}")["execution_state"] == "idle"  # the same kernel, ready again
    assert lab.execute(fn("interrupt_kernel", document="analysis.ipynb")).ok
    assert lab.execute(fn("stop_kernel", document="analysis.ipynb")).ok
    assert rest(lab, "/api/kernels") == [] and rest(lab, "/api/sessions") == []


BAD = [
    (fn("write_file", path="other.ipynb", text="{}"), "is a notebook"),
    (fn("write_file", path="../outside.py", text="x = 1"), "is not a path inside the workspace"),
    (fn("write_file", path=".asil/x.py", text="x = 1"), "is not a path inside the workspace"),
    (fn("rename_file", path="data.csv", new_path="README.md"), "'README.md' already exists"),
    (fn("rename_file", path="missing.csv", new_path="b.csv"), "There is no file 'missing.csv'"),
    (fn("delete_file", path="missing.csv"), "There is no file 'missing.csv'"),
    (fn("delete_file", path="analysis.ipynb"), "is a notebook"),
    (fn("open_document", path="missing.md"), "There is no file 'missing.md'"),
    (fn("close_document", path="data.csv"), "'data.csv' is not open in JupyterLab"),
    (fn("activate_document", path="README.md"), "'README.md' is not open in JupyterLab"),
    (fn("start_kernel", document="data.csv"), "is not a notebook"),
    (fn("stop_kernel", document="analysis.ipynb"), "No kernel is running for 'analysis.ipynb'"),
    (fn("restart_kernel", document="analysis.ipynb"), "No kernel is running for 'analysis.ipynb'"),
    (Action(action_type="batch", params={"actions": [fn("write_file", path="n.md", text="x").model_dump()]}),
     "write_file"),
]


def _disk(workspace: Workspace) -> dict[str, bytes]:
    return {str(p.relative_to(workspace.root)): p.read_bytes() for p in sorted(workspace.root.rglob("*"))
            if p.is_file() and ".asil" not in p.parts}


def test_refusals_name_what_was_wrong_and_change_nothing(lab: JupyterAdapter, workspace: Workspace) -> None:
    lab.observe(view="lab")  # the server is up and has saved its first layout
    for action, says in BAD:
        before = (_disk(workspace), lab.lab.layout(), lab.lab.kernels())
        result = lab.execute(action)
        assert result.status == "invalid" and result.error is not None, action
        assert says in result.error.message, (action, result.error.message)
        assert "\n" not in result.error.message and result.error.message.endswith("."), result.error.message
        assert (_disk(workspace), lab.lab.layout(), lab.lab.kernels()) == before, action


def test_a_restart_keeps_files_and_open_documents_but_not_kernels(workspace: Workspace) -> None:
    write_notebook(workspace, "analysis.ipynb", [code("a-1", "values = [1, 2, 3]")])
    first = JupyterAdapter(workspace, "analysis.ipynb")
    try:
        assert first.execute(fn("write_file", path="notes.md", text="# Notes\n")).ok
        assert first.execute(fn("open_document", path="notes.md")).ok
        assert first.execute(fn("start_kernel", document="analysis.ipynb")).ok
        first.save()  # the episode's end: what runs is recorded for the judges
    finally:
        first.close()
    assert read_lab("lab_kernel_running", "analysis.ipynb", "analysis.ipynb", workspace) is True
    second = JupyterAdapter(workspace, "analysis.ipynb")
    try:
        obs = second.observe(view="lab")
        assert obs.app_state.details["open_documents"] == ["analysis.ipynb", "notes.md"]
        assert obs.app_state.active_document == "notes.md"
        assert obs.app_state.details["kernels"] == [] and rest(second, "/api/kernels") == []
        assert "analysis.ipynb" in obs.environment["kernels_ended_by_restart"]
        second.save()  # nothing runs now, and the record says so
        assert read_lab("lab_kernel_running", "analysis.ipynb", "analysis.ipynb", workspace) is False
        assert second.execute(fn("start_kernel", document="analysis.ipynb")).ok  # a new kernel, no old variables
        second.save()
    finally:
        second.close()
    assert read_lab("lab_kernel_running", "analysis.ipynb", "analysis.ipynb", workspace) is True
    unstarted = JupyterAdapter(workspace, "analysis.ipynb")  # saved without starting a server: no kernel can run
    unstarted.save()
    unstarted.close()
    assert read_lab("lab_kernel_running", "analysis.ipynb", "analysis.ipynb", workspace) is False


def api(request: str, destructive: bool = False, **data: object) -> Action:
    return Action(action_type="api_call", params={"request": request, "data": data, "destructive": destructive})


def test_api_call_makes_allowlisted_server_requests_and_refuses_the_rest(lab: JupyterAdapter,
                                                                          workspace: Workspace) -> None:
    put = lab.execute(api("PUT /api/contents/{path}", path="todo.md", content="- totals\n"))
    assert put.ok and (workspace.root / "todo.md").read_text() == "- totals\n"
    started = lab.execute(api("POST /api/sessions", path="analysis.ipynb"))
    assert started.ok and json.loads(started.output or "")["path"] == "analysis.ipynb"
    (kernel,) = json.loads(lab.execute(api("GET /api/kernels")).output or "")
    assert kernel["name"] == "asil-python" and kernel["execution_state"] in READY
    refusals = [(api("POST /api/terminals"), "is not allowed"),
                (api("DELETE /api/contents/{path}", path="todo.md"), "is destructive"),
                (api("PUT /api/contents/{path}", path="analysis.ipynb", content="{}"), "may not write the notebook"),
                (api("PATCH /api/contents/{path}", path="todo.md", new_path=".asil/x.md"), "not a path inside"),
                (api("POST /api/kernels/{kernel_id}/restart", True, kernel_id="not-an-id"), "kernel_id")]
    for action, says in refusals:
        before = (_disk(workspace), lab.lab.kernels())
        result = lab.execute(action)
        assert result.status == "invalid" and result.error is not None and says in result.error.message, result.error
        assert (_disk(workspace), lab.lab.kernels()) == before
    missing = lab.execute(api("DELETE /api/contents/{path}", True, path="gone.md"))  # the server itself refuses
    assert missing.status == "error" and missing.error is not None
    assert "404" in missing.error.message and str(workspace.root) not in missing.error.message
    assert lab.execute(api("DELETE /api/contents/{path}", True, path="todo.md")).ok
    assert not (workspace.root / "todo.md").exists()


def _lab_processes() -> list[str]:
    found = []
    for pid in descendants(os.getpid()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "-m jupyterlab" in command or "ipykernel_launcher" in command:
            found.append(command[:120])
    return found


def test_kernels_started_through_the_server_are_confined_and_nothing_outlives_close(lab: JupyterAdapter) -> None:
    from jupyter_client import BlockingKernelClient

    assert lab.execute(fn("start_kernel", document="analysis.ipynb")).ok
    server = lab.lab.server
    assert server is not None
    (kernel,) = rest(lab, "/api/kernels")
    client = BlockingKernelClient(connection_file=str(server.private / "rt" / f"kernel-{kernel['id']}.json"))
    client.load_connection_file()
    client.start_channels()
    seen: list[dict[str, Any]] = []
    try:
        probe = ("import os, socket\ns = socket.socket()\ns.settimeout(2)\n"
                 f"print(os.path.exists('/home'), os.path.exists('/root/.bashrc'), s.connect_ex(('127.0.0.1', {server.port})))")
        reply = client.execute_interactive(probe, timeout=60, output_hook=seen.append)
    finally:
        client.stop_channels()
    assert reply["content"]["status"] == "ok"
    printed = "".join(m["content"].get("text", "") for m in seen if m["msg_type"] == "stream").split()
    assert printed[:2] == ["False", "False"] and printed[2] != "0"  # no home folders; the server is out of reach
    with pytest.raises(urllib.error.HTTPError) as refused:  # no terminals: they would be unconfined shells
        rest(lab, "/api/terminals")
    refused.value.close()
    assert refused.value.code == 404
    assert _lab_processes()
    lab.close()
    assert _lab_processes() == []

