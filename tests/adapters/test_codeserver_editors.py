"""The VS Code window's editors and renaming/moving, against a real code-server with a real (headless) window:
open, focus, close, cursor and selection seen in observations; refusals that change nothing; editors
that follow a rename; the window's editors coming back after a restart; the new core tasks sound with
the raw validator agreeing.

One warm adapter (one code-server, one window) serves the module; tests use files of their own.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.codeserver.adapter import CodeServerAdapter
from asil.adapters.codeserver.bridge import BRIDGE_ID
from asil.apps.chromium import browser
from asil.apps.codeserver import code_server_path
from asil.protocol import Action, Element
from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(code_server_path() is None or browser() is None,
                                 reason="needs code-server (scripts/install-code-server.sh) and chromium")]

NEW_TASKS = ("codeserver-open-editors", "codeserver-close-editors", "codeserver-focus-editor",
             "codeserver-cursor-at-todo", "codeserver-select-function-name", "codeserver-select-port-value",
             "codeserver-rename-file", "codeserver-move-into-folder", "codeserver-rename-folder",
             "codeserver-rename-open-file")
CODE = "def area(w, h):\n    return w * h\n\n\nprint(area(2, 3))\n"


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def editors(adapter: CodeServerAdapter) -> dict[str, Element]:
    return {e.id: e for e in adapter.observe().elements if e.type == "editor"}


def state_digest(ws: Workspace) -> str:
    """Every workspace file and the window's recorded editors, as one hash."""
    digest = hashlib.sha256()
    for path in sorted(ws.root.rglob("*")):
        rel = str(path.relative_to(ws.root))
        if path.is_file() and (not rel.startswith(".asil/") or rel == ".asil/codeserver/editors.json"):
            digest.update(rel.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeServerAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("cs-editors"))
    ws.write_bytes("geometry.py", CODE.encode())
    ws.write_bytes("notes.md", b"# Notes\n\nshort\n")
    ws.write_bytes("blob.bin", b"\xff\xfe\x00\x01 binary")
    ws.write_bytes("docs/guide.md", b"# Guide\n")
    adapter = CodeServerAdapter(ws)
    yield adapter
    adapter.close()


def test_open_focus_select_and_close_are_seen_in_the_observation(warm: CodeServerAdapter) -> None:
    before = editors(warm)
    assert warm.execute(fn("open_editor", path="geometry.py")).ok
    assert warm.execute(fn("open_editor", path="notes.md")).ok
    seen = editors(warm)
    assert {"editor:geometry.py", "editor:notes.md"} <= set(seen) and seen["editor:notes.md"].meta["active"]
    assert warm.observe().app_state.details["active_editor"] == "notes.md"

    result = warm.execute(fn("set_selection", path="geometry.py", line=2, column=12, end_line=2, end_column=17))
    assert result.ok and result.changed == ["editor:geometry.py"]
    shown = editors(warm)["editor:geometry.py"]
    assert shown.meta["active"] and shown.meta["selected_text"] == "w * h"
    assert shown.meta["cursor"] == {"line": 2, "column": 17}
    assert shown.meta["selection"] == {"start": {"line": 2, "column": 12}, "end": {"line": 2, "column": 17}}
    assert "active geometry.py (Ln 2, Col 17)" in warm.observe().summary

    assert warm.execute(fn("focus_editor", path="notes.md")).ok
    assert editors(warm)["editor:notes.md"].meta["active"]
    assert warm.execute(fn("close_editor", path="notes.md")).ok
    after = editors(warm)
    assert "editor:notes.md" not in after and after["editor:geometry.py"].meta["active"]
    assert not set(before) - set(after) - {"editor:notes.md"}


def test_a_second_group_is_its_own_editor(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("open_editor", path="docs/guide.md", group=2)).ok
    seen = editors(warm)
    assert seen["editor:docs/guide.md@2"].meta["group"] == 2 and seen["editor:docs/guide.md@2"].meta["active"]
    assert warm.execute(fn("close_editor", path="docs/guide.md", group=2)).ok
    assert "editor:docs/guide.md@2" not in editors(warm)


@pytest.mark.parametrize(("action", "code", "words"), [
    (fn("open_editor", path="missing.py"), "no_such_file", "There is no file 'missing.py'"),
    (fn("open_editor", path="docs"), "not_a_file", "is a folder"),
    (fn("open_editor", path="blob.bin"), "not_text", "not a UTF-8 text file"),
    (fn("open_editor", path="../etc/passwd"), "path_outside_workspace", "climbs out of the workspace"),
    (fn("close_editor", path="docs/guide.md"), "not_open", "is not open in an editor; open editors:"),
    (fn("focus_editor", path="docs/guide.md"), "not_open", "is not open in an editor"),
    (fn("set_selection", path="geometry.py", line=40), "out_of_range", "has 6 lines, so there is no line 40"),
    (fn("set_selection", path="geometry.py", line=1, column=99), "out_of_range", "has 15 characters, so there is no column 99"),
    (fn("set_selection", path="geometry.py", line=1, end_line=2), "bad_selection", "needs both end_line and end_column"),
    (fn("open_editor", path="notes.md", group=9), "bad_params", ""),
    (fn("rename_path", path="notes.md", new_path="../notes.md"), "path_outside_workspace", "climbs out"),
    (fn("rename_path", path="notes.md", new_path="/tmp/notes.md"), "path_outside_workspace", "absolute path"),
    (fn("rename_path", path="notes.md", new_path=".asil/notes.md"), "path_outside_workspace", "reserved for ASIL"),
    (fn("rename_path", path="notes.md", new_path="geometry.py"), "exists", "already exists"),
    (fn("rename_path", path="docs", new_path="docs/inner"), "bad_target", "cannot be moved into itself"),
    (fn("rename_path", path="notes.md", new_path="geometry.py/notes.md"), "bad_target", "inside a file"),
    (fn("rename_path", path="gone.md", new_path="here.md"), "no_such_file", "There is no file or folder"),
    (fn("move_path", path="notes.md", folder="nowhere"), "no_such_folder", "There is no folder 'nowhere'"),
    (fn("move_path", path="docs/guide.md", folder="docs"), "exists", "already exists"),
    (Action(action_type="batch", params={"actions": [{"action_type": "invoke_function", "target": "open_editor",
                                                      "params": {"path": "notes.md"}}]}), "invalid_action", ""),
])
def test_refusals_name_the_problem_and_change_nothing(warm: CodeServerAdapter, action: Action, code: str,
                                                      words: str) -> None:
    before = state_digest(warm.workspace)
    result = warm.execute(action)
    assert result.status == "invalid" and result.error is not None and result.error.code == code
    assert words in result.error.message and result.error.message.endswith(".")
    assert len(result.error.message) < 300 and "\n" not in result.error.message
    assert state_digest(warm.workspace) == before


def test_renaming_an_open_file_and_its_folder_moves_the_editor(warm: CodeServerAdapter) -> None:
    warm.workspace.write_bytes("draft/plan.txt", b"step one\nstep two\n")
    assert warm.execute(fn("open_editor", path="draft/plan.txt")).ok
    assert warm.execute(fn("rename_path", path="draft", new_path="final")).ok
    seen = editors(warm)
    assert "editor:final/plan.txt" in seen and "editor:draft/plan.txt" not in seen
    assert (warm.workspace.root / "final/plan.txt").read_bytes() == b"step one\nstep two\n"
    assert warm.execute(fn("move_path", path="final/plan.txt", folder=".")).ok
    assert "editor:plan.txt" in editors(warm) and not (warm.workspace.root / "final/plan.txt").exists()
    assert warm.execute(fn("close_editor", path="plan.txt")).ok


def test_the_bridge_is_machinery_not_a_user_extension(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("open_editor", path="geometry.py")).ok  # the window (and so the bridge) is up
    assert not any(e.id == f"extension:{BRIDGE_ID}" for e in warm.observe().elements)
    listed = warm.execute(Action(action_type="api_call", target="code-server --list-extensions",
                                 params={"request": "code-server --list-extensions"}))
    assert listed.ok and BRIDGE_ID not in (listed.output or "")
    refused = warm.execute(fn("uninstall_extension", id=BRIDGE_ID))
    assert refused.status == "invalid" and refused.error is not None and refused.error.code == "not_installed"


def call(request: str, **data: Any) -> Action:
    return Action(action_type="api_call", target=request, params={"request": request, "data": data})


def test_api_call_speaks_the_extension_api(warm: CodeServerAdapter) -> None:
    warm.workspace.write_bytes("api/one.txt", b"first\nsecond\n")
    assert warm.execute(call("window.showTextDocument", path="api/one.txt")).ok
    assert warm.execute(fn("set_selection", path="api/one.txt", line=2, column=1, end_line=2, end_column=7)).ok
    active = warm.execute(call("window.activeTextEditor"))
    assert active.ok and json.loads(active.output or "null") == {
        "document": {"path": "api/one.txt"}, "viewColumn": 1,
        "selections": [{"anchor": {"line": 1, "character": 0}, "active": {"line": 1, "character": 6}}]}
    refused = warm.execute(call("WorkspaceEdit.renameFile", oldUri="api/one.txt", newUri="geometry.py"))
    assert refused.status == "invalid" and refused.error is not None and "already exists" in refused.error.message
    assert warm.execute(call("WorkspaceEdit.renameFile", oldUri="api/one.txt", newUri="api/two.txt")).ok
    groups = json.loads(warm.execute(call("window.tabGroups.all")).output or "[]")
    paths = [t["path"] for g in groups for t in g["tabs"]]
    assert "api/two.txt" in paths and "api/one.txt" not in paths
    assert warm.execute(fn("close_editor", path="api/two.txt")).ok


def test_editors_and_cursor_come_back_after_a_restart(tmp_path_factory: pytest.TempPathFactory) -> None:
    ws = Workspace(tmp_path_factory.mktemp("cs-restart"))
    ws.write_bytes("a.py", CODE.encode())
    ws.write_bytes("b.md", b"# B\n")
    first = CodeServerAdapter(ws)
    try:
        assert first.execute(fn("open_editor", path="b.md")).ok
        assert first.execute(fn("set_selection", path="a.py", line=5, column=7)).ok
    finally:
        first.close()
    recorded = json.loads((ws.root / ".asil/codeserver/editors.json").read_text())
    assert recorded["active"] == "a.py"
    again = CodeServerAdapter(ws)  # a new code-server and a new window
    try:
        seen = editors(again)
        assert {"editor:a.py", "editor:b.md"} <= set(seen)
        assert seen["editor:a.py"].meta["active"] and seen["editor:a.py"].meta["cursor"] == {"line": 5, "column": 7}
        assert again.observe().environment["window"]["state"] == "open"
    finally:
        again.close()


def test_a_killed_window_or_server_is_replaced_with_the_same_editors(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    ws = Workspace(tmp_path_factory.mktemp("cs-faults"))
    ws.write_bytes("a.py", CODE.encode())
    adapter = CodeServerAdapter(ws)
    try:
        assert adapter.execute(fn("set_selection", path="a.py", line=2, column=5)).ok
        assert adapter.workbench is not None and adapter.session is not None
        os.killpg(adapter.workbench.browser.pid, signal.SIGKILL)  # chromium (the window) dies
        adapter.workbench.browser.process.wait(timeout=10)
        seen = editors(adapter)
        assert seen["editor:a.py"].meta["cursor"] == {"line": 2, "column": 5} and adapter.workbench.alive
        os.killpg(adapter.session.process.pid, signal.SIGKILL)  # code-server dies
        adapter.session.process.process.wait(timeout=10)
        obs = adapter.observe()
        assert obs.environment["server"]["restarts"] == 1
        assert {e.id: e for e in obs.elements}["editor:a.py"].meta["active"]
    finally:
        adapter.close()


def test_a_render_shows_the_editors_and_records_nothing(warm: CodeServerAdapter, tmp_path: Path) -> None:
    assert warm.execute(fn("set_selection", path="geometry.py", line=1, column=5, end_line=1, end_column=9)).ok
    recorded = (warm.workspace.root / ".asil/codeserver/editors.json").read_bytes()
    shot = warm.render(tmp_path / "shot.png")  # its own window opens the recorded editors before it is taken
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 30_000
    assert (warm.workspace.root / ".asil/codeserver/bridge-shown").is_file()
    assert (warm.workspace.root / ".asil/codeserver/editors.json").read_bytes() == recorded
    assert editors(warm)["editor:geometry.py"].meta["selected_text"] == "area"


def test_without_a_window_the_observation_says_so_and_opens_none(tmp_path_factory: pytest.TempPathFactory) -> None:
    ws = Workspace(tmp_path_factory.mktemp("cs-nowindow"))
    ws.write_bytes("a.py", b"x = 1\n")
    adapter = CodeServerAdapter(ws)
    try:
        obs = adapter.observe()
        assert adapter.workbench is None and not [e for e in obs.elements if e.type == "editor"]
        assert obs.environment["window"]["state"] == "closed" and "No VS Code window is open" in obs.summary
    finally:
        adapter.close()


@pytest.mark.parametrize("task_id", NEW_TASKS)
def test_new_core_task_is_sound_and_the_raw_validator_agrees(task_id: str) -> None:
    task = next(t for t in load_tasks(suite="core", app="codeserver") if t.id == task_id)
    outcome = check_task(task, raw=True)
    assert outcome.ok, outcome.detail
