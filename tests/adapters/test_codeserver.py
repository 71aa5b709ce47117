"""The code-server adapter against a real code-server: observation, actions, extensions through
code-server's CLI, confined tasks, batch atomicity, hostile input, persistence and rendering.

One warm adapter (one code-server) serves the module; tests that change state undo it or use
names of their own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.codeserver.adapter import CodeServerAdapter
from asil.adapters.codeserver.validator import raw_judge
from asil.adapters.codeserver.vsix import build_vsix
from asil.apps.codeserver import code_server_path
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, EvalContext
from asil.evaluate.compare import compare
from asil.protocol import Action
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(code_server_path() is None, reason="needs code-server (scripts/install-code-server.sh)")]

USER_SETTINGS = """// Seeded user settings
{
    "editor.fontSize": 13, // small screen
    "files.autoSave": "off"
}
"""


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


PROFILE_STATE = ("user-data/User/settings.json", "user-data/User/keybindings.json", "extensions/", "task-runs/")


def digests(ws: Workspace) -> dict[str, str]:
    """The state's files by content hash: the workspace's and the profile's settings, keybindings,
    extensions and task runs (code-server's own logs and caches are not state)."""
    found = {}
    for path in sorted(ws.root.rglob("*")):
        rel = str(path.relative_to(ws.root))
        private = rel.removeprefix(".asil/codeserver/")
        if path.is_file() and (not rel.startswith(".asil/") or private.startswith(PROFILE_STATE)):
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def verdict(ws: Workspace, cp: dict[str, Any]) -> bool:
    """The evaluator's verdict, after checking that the raw validator agrees."""
    checkpoint = Checkpoint.model_validate({"app": "codeserver", **cp})
    kind = CHECKPOINT_TYPES[checkpoint.type]
    try:
        actual = kind.read(EvalContext(ws), checkpoint)
        passed = compare(checkpoint.compare or kind.default_compare, actual, checkpoint.expected, 1e-6)
    except Exception:
        passed = False
    assert raw_judge(checkpoint, ws) == passed, f"raw validator disagrees on {cp}"
    return passed


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeServerAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("cs"))
    ws.write_bytes("src/app.py", b"def main():\n    return 'old'\n" + b"# filler\n" * 200)
    ws.write_bytes("hello.vsix", build_vsix({"publisher": "asil", "name": "hello", "version": "1.0.0",
                                             "settings": {"hello.greeting": {"type": "string", "default": "hi"},
                                                          "hello.times": {"type": "integer", "minimum": 1}}}))
    ws.write_bytes("broken.vsix", b"PK\x03\x04 not really a zip")
    ws.write_bytes("blob.bin", b"\xff\xfe\x00\x01 binary")
    ws.write_bytes(".vscode/tasks.json", b'{\n    // build tasks\n    "version": "2.0.0",\n    "tasks": [\n'
                   b'        {"label": "hello", "type": "shell", "command": "echo hello from $(pwd)"}\n    ]\n}\n')
    adapter = CodeServerAdapter(ws)
    adapter.places.profile.settings.write_text(USER_SETTINGS)
    yield adapter
    adapter.close()


def test_observation_shows_server_settings_tasks_and_files(warm: CodeServerAdapter) -> None:
    assert CodeServerAdapter.readiness().ready  # what `asil doctor` prints
    obs = warm.observe()
    ids = {e.id: e for e in obs.elements}
    assert obs.metadata.source == "service" and ids["@server"].value == "running"
    assert ids["setting:user:editor.fontSize"].value == 13
    assert ids["task:hello"].value.startswith("echo hello")
    assert {"file:src/app.py", "file:hello.vsix", "file:.vscode/tasks.json"} <= set(ids)
    assert not any(i.startswith("file:.asil") for i in ids)
    launch = warm.gui_launch_spec()
    assert launch is not None and launch["url"].startswith("http://127.0.0.1:")


def test_set_setting_keeps_comments_and_shows_up(warm: CodeServerAdapter) -> None:
    result = warm.execute(fn("set_setting", key="editor.fontSize", value=15))
    assert result.ok and result.changed == ["setting:user:editor.fontSize"]
    text = warm.places.profile.settings.read_text()
    assert text == USER_SETTINGS.replace('"editor.fontSize": 13', '"editor.fontSize": 15')
    assert verdict(warm.workspace, {"type": "codeserver_setting", "target": "user:editor.fontSize", "expected": 15})
    assert not verdict(warm.workspace, {"type": "codeserver_setting", "target": "user:editor.fontSize",
                                        "expected": 13})


def test_workspace_and_language_settings_by_set_value(warm: CodeServerAdapter) -> None:
    assert warm.execute(Action(action_type="set_value", target="workspace:[python].editor.tabSize",
                               params={"value": 2})).ok
    data = json.loads((warm.workspace.root / ".vscode/settings.json").read_text())
    assert data == {"[python]": {"editor.tabSize": 2}}
    assert verdict(warm.workspace, {"type": "codeserver_setting", "target": "workspace:[python].editor.tabSize",
                                    "expected": 2})
    assert warm.execute(fn("remove_setting", key="editor.tabSize", scope="workspace", language="python")).ok
    assert verdict(warm.workspace, {"type": "codeserver_setting", "target": "workspace:[python].editor.tabSize",
                                    "expected": None})


def test_keybindings_add_and_remove(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("add_keybinding", key="Ctrl+Alt+J", command="editor.action.joinLines",
                           when="editorTextFocus")).ok
    assert verdict(warm.workspace, {"type": "codeserver_keybinding", "target": "ctrl+alt+j",
                                    "expected": "editor.action.joinLines"})
    ids = {e.id for e in warm.observe().elements}
    assert "keybinding:ctrl+alt+j:editor.action.joinLines" in ids
    assert warm.execute(fn("remove_keybinding", key="ctrl+alt+j", command="editor.action.joinLines")).ok
    assert not verdict(warm.workspace, {"type": "codeserver_keybinding", "target": "ctrl+alt+j",
                                        "expected": "editor.action.joinLines"})


def test_extension_install_declares_settings_then_uninstall(warm: CodeServerAdapter) -> None:
    before = warm.execute(fn("set_setting", key="hello.greeting", value="hey"))
    assert before.status == "invalid" and before.error is not None and before.error.code == "unknown_setting"
    assert warm.execute(fn("install_extension", vsix="hello.vsix")).ok
    assert verdict(warm.workspace, {"type": "codeserver_extension", "target": "asil.hello", "expected": "1.0.0"})
    assert "extension:asil.hello" in {e.id for e in warm.observe().elements}
    assert warm.execute(fn("set_setting", key="hello.greeting", value="hey")).ok  # now declared
    bad = warm.execute(fn("set_setting", key="hello.times", value=0))
    assert bad.status == "invalid" and "at least 1" in str(bad.error and bad.error.message)
    assert warm.execute(fn("uninstall_extension", id="asil.hello")).ok
    assert verdict(warm.workspace, {"type": "codeserver_extension", "target": "asil.hello", "expected": None})


def test_files_create_replace_delete_and_editor_view(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("create_file", path="notes/todo.md", content="- one\n")).ok
    assert warm.execute(fn("replace_text", path="src/app.py", old="'old'", new="'new'")).ok
    assert "return 'new'" in (warm.workspace.root / "src/app.py").read_text()
    assert warm.execute(Action(action_type="navigate", target="src/app.py", params={"limit": 5})).ok
    obs = warm.observe()
    editor = next(e for e in obs.elements if e.id == "file:src/app.py")
    assert obs.app_state.view == "editor" and editor.value.startswith("def main():")
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 202
    assert warm.execute(Action(action_type="navigate", params={"view": "files"})).ok
    assert warm.execute(fn("delete_file", path="notes/todo.md")).ok
    assert not (warm.workspace.root / "notes/todo.md").exists()


def test_task_runs_confined_and_records_output(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("run_task", label="hello")).ok
    root = str(warm.workspace.root)
    assert verdict(warm.workspace, {"type": "codeserver_task_output", "target": "hello",
                                    "expected": f"hello from {root}"})
    assert verdict(warm.workspace, {"type": "codeserver_task_exit_code", "target": "hello", "expected": 0})
    # confinement: the home folder is empty and the private folder is read-only inside the task
    assert warm.execute(fn("add_task", label="probe", command="ls -A /root | wc -l; touch .asil/x 2>/dev/null || echo ro")).ok
    assert "// build tasks" in (warm.workspace.root / ".vscode/tasks.json").read_text()
    assert warm.execute(fn("run_task", label="probe")).ok
    task = next(e for e in warm.observe().elements if e.id == "task:probe")
    assert task.meta["last_run"]["stdout_tail"].split() == ["0", "ro"]


def test_task_time_limit_is_enforced(warm: CodeServerAdapter) -> None:
    assert warm.execute(fn("add_task", label="sleepy", command="sleep 30")).ok
    result = warm.execute(fn("run_task", label="sleepy", timeout_s=1))
    assert result.ok and result.latency_ms < 10_000
    assert verdict(warm.workspace, {"type": "codeserver_task_exit_code", "target": "sleepy", "expected": 124})


def test_batch_is_atomic_across_files_and_extensions(warm: CodeServerAdapter) -> None:
    before = digests(warm.workspace)
    result = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "set_setting", "params": {"key": "editor.fontSize", "value": 20}},
        {"action_type": "invoke_function", "target": "create_file", "params": {"path": "new.txt", "content": "x"}},
        {"action_type": "invoke_function", "target": "set_setting", "params": {"key": "editor.wordWrap",
                                                                               "value": "sideways"}}]}))
    assert result.status == "invalid" and "Batch action 3" in str(result.error and result.error.message)
    assert digests(warm.workspace) == before
    # a batch whose extension install fails in code-server itself is rolled back after the fact
    (warm.workspace.root / "future.vsix").write_bytes(build_vsix({"publisher": "asil", "name": "future",
                                                                  "version": "1.0.0"}))
    before = digests(warm.workspace)
    ok = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "set_setting", "params": {"key": "editor.fontSize", "value": 21}},
        {"action_type": "invoke_function", "target": "install_extension", "params": {"vsix": "future.vsix"}}]}))
    assert ok.ok and verdict(warm.workspace, {"type": "codeserver_setting", "target": "user:editor.fontSize",
                                              "expected": 21})
    assert digests(warm.workspace) != before
    assert warm.execute(fn("uninstall_extension", id="asil.future")).ok


@pytest.mark.parametrize(("action", "code"), [
    (fn("set_setting", key="editor.fontSize", value="huge"), "bad_setting_value"),
    (fn("set_setting", key="editor.fontsize", value=12), "unknown_setting"),
    (fn("set_setting", key="git.enabled", value="yes"), "bad_setting_value"),  # declared by the bundled git extension
    (fn("set_setting", key="editor.fontSize", value=12, scope="global"), "bad_params"),
    (fn("install_extension", vsix="broken.vsix"), "bad_vsix"),
    (fn("install_extension", vsix="../outside.vsix"), "path_outside_workspace"),
    (fn("uninstall_extension", id="nobody.nothing"), "not_installed"),
    (fn("add_keybinding", key="ctrl+banana", command="x.y"), "bad_key"),
    (fn("create_file", path="src/app.py", content="x"), "exists"),
    (fn("write_file", path=".vscode/tasks.json", content="{ not json"), "bad_document"),
    (fn("write_file", path=".asil/codeserver/user-data/User/settings.json", content="{}"), "path_outside_workspace"),
    (fn("replace_text", path="src/app.py", old="filler", new="x"), "ambiguous"),
    (fn("replace_text", path="blob.bin", old="binary", new="text"), "not_text"),
    (fn("write_file", path="src", content="x"), "invalid_action"),
    (fn("run_task", label="nope"), "no_such_task"),
    (Action(action_type="set_value", target="everyone:editor.fontSize", params={"value": 1}), "invalid_action"),
    (Action(action_type="batch", params={"actions": [{"action_type": "invoke_function", "target": "run_task",
                                                      "params": {"label": "hello"}}]}), "invalid_action"),
])
def test_invalid_actions_change_nothing(warm: CodeServerAdapter, action: Action, code: str) -> None:
    before = digests(warm.workspace)
    result = warm.execute(action)
    assert result.status == "invalid" and result.error is not None and result.error.code == code
    assert result.error.message.endswith(".") and len(result.error.message) < 300
    assert digests(warm.workspace) == before


def test_broken_settings_file_is_reported_not_overwritten(warm: CodeServerAdapter) -> None:
    path = warm.workspace.root / ".vscode/settings.json"
    path.write_text('{ "editor.tabSize": 2,, }')
    obs = warm.observe()
    assert any("workspace settings.json is not valid" in p for p in obs.environment["problems"])
    result = warm.execute(fn("set_setting", key="editor.tabSize", value=3, scope="workspace"))
    assert result.status == "invalid" and path.read_text() == '{ "editor.tabSize": 2,, }'
    assert warm.execute(fn("write_file", path=".vscode/settings.json", content="{}\n")).ok


def test_state_persists_after_close_and_render(warm: CodeServerAdapter, tmp_path: Path) -> None:
    # Set here, not relied on from earlier tests: xdist may run this test on a worker with its own warm adapter.
    assert warm.execute(fn("set_setting", key="editor.fontSize", value=21)).ok
    if not warm.execute(fn("set_setting", key="hello.greeting", value="hey")).ok:  # declared by the extension
        assert warm.execute(fn("install_extension", vsix="hello.vsix")).ok
        assert warm.execute(fn("set_setting", key="hello.greeting", value="hey")).ok
    shot = warm.render(tmp_path / "shot.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 30_000  # drawn (blank: 4.7 kB)
    warm.save()
    pid = warm.session.process.pid if warm.session else None
    warm.close()
    assert warm.session is None and pid is not None
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(pid, 0)
    assert verdict(warm.workspace, {"type": "codeserver_setting", "target": "user:editor.fontSize", "expected": 21})
    assert verdict(warm.workspace, {"type": "codeserver_setting", "target": "user:hello.greeting", "expected": "hey"})
