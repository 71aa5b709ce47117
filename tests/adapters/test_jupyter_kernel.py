"""Running cells in the real, confined IPython kernel: outputs, the sandbox, timeouts, lifecycle."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from asil.adapters.jupyter.adapter import JupyterAdapter
from asil.apps.sandbox import process_cap, python_roots
from asil.protocol import Action
from asil.workspace import Workspace
from tests.adapters.jupyter_helpers import code, write_notebook

pytestmark = pytest.mark.slow


def fn(name: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


def run(adapter: JupyterAdapter, source: str, timeout_s: float = 20) -> tuple[Action, object]:
    """Put ``source`` in cell 'work' and run it."""
    assert adapter.execute(Action(action_type="set_value", target="work", params={"source": source})).ok
    action = fn("run_cell", cell="work", timeout_s=timeout_s)
    return action, adapter.execute(action)


@pytest.fixture
def adapter(workspace: Workspace) -> JupyterAdapter:
    write_notebook(workspace, "nb.ipynb", [code("setup", "x = 21"), code("work", "")])
    with JupyterAdapter(workspace, "nb.ipynb") as opened:
        yield opened


def test_cells_run_in_a_real_kernel_that_keeps_variables(adapter: JupyterAdapter, workspace: Workspace) -> None:
    first = adapter.execute(fn("run_cell", cell="setup"))
    assert first.ok, first.error
    _, result = run(adapter, "print('hello')\nx * 2")
    assert result.ok and "hello" in (result.output or "")  # type: ignore[attr-defined]
    work = next(e for e in result.observation.elements if e.id == "work")  # type: ignore[attr-defined]
    assert work.meta["execution_count"] == 2 and work.meta["outputs"] == ["[stdout] hello\n", "42"]
    assert result.observation.app_state.details["kernel"]["state"] == "idle"  # type: ignore[attr-defined]
    adapter.save()
    saved = json.loads(workspace.resolve("nb.ipynb").read_text())["cells"][1]
    assert saved["outputs"][1]["data"]["text/plain"] == "42" and saved["execution_count"] == 2


def test_a_cell_error_is_reported_and_its_outputs_kept(adapter: JupyterAdapter) -> None:
    _, result = run(adapter, "print('before')\n1 / 0")
    assert result.status == "error" and result.error.code == "cell_error"  # type: ignore[attr-defined]
    assert "ZeroDivisionError: division by zero" in result.error.message  # type: ignore[attr-defined]
    work = next(e for e in adapter.observe().elements if e.id == "work")
    assert work.meta["outputs"][-1].startswith("[error] ZeroDivisionError")


def test_run_all_runs_from_the_top_and_stops_at_the_first_failure(adapter: JupyterAdapter) -> None:
    assert adapter.execute(Action(action_type="set_value", target="work", params={"source": "y = x + 1"})).ok
    result = adapter.execute(fn("run_all", restart=True))
    assert result.ok and result.changed == ["setup", "work"]
    assert adapter.execute(fn("insert_cell", index=0, id="boom", source="raise RuntimeError('stop here')")).ok
    failed = adapter.execute(fn("run_all", restart=True))
    assert failed.status == "error" and "RuntimeError: stop here" in failed.error.message  # type: ignore[union-attr]
    counts = {e.id: e.meta.get("execution_count") for e in adapter.observe().elements}
    assert counts["boom"] == 1 and counts["setup"] == 1  # setup keeps its count from the first run


def test_code_cannot_write_outside_the_workspace_or_reach_the_network(adapter: JupyterAdapter, workspace: Workspace,
                                                                      tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"  # beside the workspace, on the real disk
    repo_file = Path(__file__).resolve().parent / "escaped.txt"
    _, result = run(adapter, "\n".join([
        "import os, socket",
        "open('inside.txt', 'w').write('ok')",
        "report = []",
        f"for target in [{str(outside)!r}, {str(repo_file)!r}, '/etc/asil-escape', os.path.expanduser('~/x')]:",
        "    try:",
        "        open(target, 'w').write('escaped')",
        "        report.append('wrote ' + target)",
        "    except OSError as exc:",
        "        report.append('refused ' + type(exc).__name__)",
        "try:",
        "    socket.create_connection(('127.0.0.1', 22), timeout=2)",
        "    report.append('network')",
        "except OSError:",
        "    report.append('no network')",
        "print(report)",
    ]))
    assert result.ok, result.error  # type: ignore[attr-defined]
    assert workspace.resolve("inside.txt").read_text() == "ok"
    assert not outside.exists() and not repo_file.exists() and not Path("/etc/asil-escape").exists()
    assert "no network" in result.output and "'network'" not in result.output  # type: ignore[attr-defined]


def test_hostile_code_finds_no_secret_and_no_system_file_and_leaves_nothing_running(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ASIL_MCP_TOKEN", "ASIL_GITEA_TOKEN"):
        monkeypatch.setenv(name, f"{name.lower()}-hostile-kernel")  # before the kernel starts (on the first run)
    tag = f"{time.time_ns() % 10**6 + 2 * 10**6}.5"  # an unusual sleep length names the processes it starts
    write_notebook(workspace, "h.ipynb", [code("probe", "\n".join([
        "import json, os, subprocess",
        "report = {'env': sorted(os.environ), 'seen': [p for p in ('/etc/shadow', '/opt', '/srv', '/mnt', "
        "'/var/lib', '/root', '/root/.bashrc', '/root/.cache', '/home', '/work/main') if os.path.exists(p)]}",
        f"subprocess.Popen(['sleep', {tag!r}])  # left running on purpose",
        "started = []",
        "try:",
        "    for _ in range(2000):",
        "        started.append(subprocess.Popen(['sleep', '30']))",
        "    report['processes'] = 'unlimited'",
        "except OSError as exc:",
        "    report['processes'] = f'refused after {len(started)}: {type(exc).__name__}'",
        "for process in started:",
        "    process.kill()",
        "    process.wait()",
        "print(json.dumps(report))",
    ]))])
    adapter = JupyterAdapter(workspace, "h.ipynb")
    try:
        result = adapter.execute(fn("run_cell", cell="probe", timeout_s=60))
        assert result.ok, result.error
        printed = result.output or ""
        report = json.loads(printed[printed.index("{"): printed.rindex("}") + 1])
    finally:
        adapter.close()
    # only the folders holding ASIL's own Python (a venv, pyenv under /root) are there, read-only
    assert [seen for seen in report["seen"] if not any(root.startswith(seen + "/") for root in python_roots())] == []
    assert not [name for name in report["env"] if "TOKEN" in name or "KEY" in name], report["env"]
    given = {"PATH", "HOME", "LANG", "TMPDIR", "TERM", "IPYTHONDIR", "MPLCONFIGDIR", "JPY_PARENT_PID", "MPLBACKEND",
             "JUPYTER_PLATFORM_DIRS", "PWD"}  # what sandbox_argv sets (PWD: bubblewrap); ipykernel adds its own
    leaked = (set(report["env"]) & set(os.environ)) - given
    assert not leaked, leaked  # none of this test process's variables got in
    if process_cap() != "none":
        assert report["processes"].startswith("refused"), report["processes"]
    running = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p) == f"sleep\0{tag}\0"]
    assert not running  # the PID namespace ended with the kernel


def _cmdline(entry: Path) -> str:
    try:
        return (entry / "cmdline").read_text()
    except OSError:
        return ""


def test_code_cannot_see_or_change_the_workspace_private_area(adapter: JupyterAdapter, workspace: Workspace) -> None:
    kept = workspace.private("kept.txt")
    kept.write_text("adapter state")
    _, result = run(adapter, "import os\nprint(sorted(os.listdir('.asil')))\nopen('.asil/kept.txt', 'w').write('x')")
    assert result.ok, result.error  # type: ignore[attr-defined]
    assert "[]" in result.output  # type: ignore[attr-defined]
    assert kept.read_text() == "adapter state"


def test_an_endless_loop_is_interrupted_and_reported(adapter: JupyterAdapter) -> None:
    assert adapter.execute(fn("run_cell", cell="setup")).ok
    _, result = run(adapter, "while True:\n    pass", timeout_s=2)
    assert result.status == "error" and result.error.code == "cell_timeout"  # type: ignore[attr-defined]
    assert "timed out after 2 s" in result.error.message  # type: ignore[attr-defined]
    work = next(e for e in adapter.observe().elements if e.id == "work")
    assert "TimeoutError: The cell ran longer than 2 s" in work.meta["outputs"][-1]
    _, after = run(adapter, "print(x)")
    assert after.ok and "21" in after.output  # type: ignore[attr-defined]  # interrupted, not restarted


def test_a_loop_that_ignores_interrupts_gets_the_kernel_restarted(adapter: JupyterAdapter) -> None:
    assert adapter.execute(fn("run_cell", cell="setup")).ok
    _, result = run(adapter, "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                             "while True:\n    time.sleep(0.01)", timeout_s=2)
    assert result.error.code == "cell_timeout"  # type: ignore[attr-defined]
    assert "the kernel was restarted, so all variables are gone" in result.error.message  # type: ignore[attr-defined]
    assert adapter.observe().app_state.details["kernel"]["restarts"] == 1
    _, after = run(adapter, "print('x' in dir())")
    assert after.ok and "False" in after.output  # type: ignore[attr-defined]


def test_a_batch_with_a_failing_run_restores_the_notebook(adapter: JupyterAdapter) -> None:
    before = adapter.observe().elements
    result = adapter.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "set_value", "target": "work", "params": {"source": "side_effect = 1\nraise ValueError('no')"}},
        {"action_type": "invoke_function", "target": "run_cell", "params": {"cell": "work"}}]}))
    assert result.status == "error" and result.error.message.startswith("Batch action 2: Cell 'work' raised")  # type: ignore[union-attr]
    assert adapter.observe().elements == before
    _, probe = run(adapter, "print(side_effect)")
    assert "1" in probe.output  # type: ignore[attr-defined]  # the kernel's side effect stays, as the schema says


def test_close_kills_the_kernel(workspace: Workspace) -> None:
    write_notebook(workspace, "k.ipynb", [code("pid", "import os\nprint(os.getpid())")])
    adapter = JupyterAdapter(workspace, "k.ipynb")
    assert adapter.execute(fn("run_cell", cell="pid")).ok
    kernel = adapter.kernel
    assert kernel is not None and kernel.alive
    launcher = kernel._km.provisioner.process.pid  # the bubblewrap process that holds the kernel
    adapter.close()
    assert adapter.kernel is None and not kernel.alive
    with pytest.raises(ProcessLookupError):
        os.kill(launcher, 0)
