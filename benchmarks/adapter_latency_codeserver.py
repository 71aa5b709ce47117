"""Latency and observation-size benchmark of the code-server adapter (a real code-server 4.100).

For a small workspace (5 files, a commented settings.json) and a large one (10,000 files in 100
folders plus 150 user settings) it measures, with ``time.perf_counter``:

* cold start: a new adapter's first observation (starts code-server, waits for /healthz);
* ``observe()`` (one page of 50 files; every observation also checks /healthz) and its size in
  tokens (``asil.llm.base.estimate_tokens`` on the observation JSON an agent gets);
* warm actions without the observation: ``set_setting`` (a surgical JSONC edit, checked against
  the setting's schema), ``add_keybinding``, ``replace_text`` in a file;
* the slow, program-bound actions, reported apart: ``install_extension`` + ``uninstall_extension``
  (code-server's own CLI, a Node process each) and ``run_task`` (a bubblewrap-confined shell).

The VS Code window's editors are measured apart (``--only editors`` runs just them), on a small
workspace of 10 files: opening the window (the first ``open_editor``: chromium loads the workbench
and the bridge extension answers), then warm ``open_editor``, ``focus_editor``, ``set_selection``,
``close_editor``, ``observe()`` with the window open, and ``rename_path`` made by VS Code (window
open) and on disk (no window).

It asserts that actions succeed and land, never on timings.

    .venv/bin/python benchmarks/adapter_latency_codeserver.py [--repeats 30] [--only settings|editors]
"""

from __future__ import annotations

import argparse
import json
import platform
from typing import Any

from timing import pair, percentile, timed

from asil.adapters.codeserver.adapter import CodeServerAdapter
from asil.adapters.codeserver.vsix import build_vsix
from asil.apps.codeserver import VERSION
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

SETTINGS = '// benchmark settings\n{\n    "editor.fontSize": 12, // small\n    "files.autoSave": "off"\n}\n'


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def workspace(files: int, settings: int) -> CodeServerAdapter:
    ws = Workspace.temporary(prefix="asil-bench-codeserver-")
    for i in range(files):
        ws.write_bytes(f"pkg{i % 100:03d}/module_{i:05d}.py", f"VALUE = {i}\n".encode())
    ws.write_bytes("main.py", b"def main():\n    return 'v0'\n")
    ws.write_bytes("ext.vsix", build_vsix({"publisher": "asil", "name": "bench", "version": "1.0.0"}))
    ws.write_bytes(".vscode/tasks.json", b'{"version": "2.0.0", "tasks": [{"label": "echo", "type": "shell", '
                   b'"command": "echo hi"}]}\n')
    adapter = CodeServerAdapter(ws)
    extra = "".join(f'    "my.setting{i}": {i},\n' for i in range(settings))
    adapter.places.profile.settings.write_text(SETTINGS.replace("{\n", "{\n" + extra, 1))
    return adapter


def run(adapter: CodeServerAdapter, action: Action) -> float:
    ms, result = timed(lambda: adapter.execute(action, observe=False))
    assert result.ok, result.error
    return ms


def measure(label: str, files: int, settings: int, repeats: int) -> dict[str, Any]:
    adapter = workspace(files, settings)
    try:
        cold_ms, obs = timed(adapter.observe)
        assert obs.environment["server"]["state"] == "running", obs.environment["server"]
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        setting = [run(adapter, fn("set_setting", key="editor.fontSize", value=10 + i % 20)) for i in range(repeats)]
        keys = [run(adapter, fn("add_keybinding", key=f"ctrl+alt+{i % 10}", command=f"bench.command{i}"))
                for i in range(repeats)]
        edits = [run(adapter, fn("replace_text", path="main.py", old=f"'v{i}'", new=f"'v{i + 1}'"))
                 for i in range(repeats)]
        warm = setting + keys + edits
        extension = [run(adapter, fn("install_extension", vsix="ext.vsix")) +
                     run(adapter, fn("uninstall_extension", id="asil.bench")) for _ in range(3)]
        task = [run(adapter, fn("run_task", label="echo")) for _ in range(5)]
        assert adapter.observe().environment["counts"]["files"] == files + 3  # + main.py, ext.vsix, .vscode/tasks.json
    finally:
        adapter.close()
        adapter.workspace.cleanup()
    return {"label": label, "files": files, "settings": settings + 2, "cold_s": cold_ms / 1000,
            "observe": pair(observe), "set_setting": pair(setting), "keybinding": pair(keys), "replace": pair(edits),
            "warm": pair(warm), "extension": f"{percentile(extension, 50):.0f}", "task": f"{percentile(task, 50):.0f}",
            "tokens": tokens}


def measure_editors(repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-codeserver-editors-")
    for i in range(10):
        ws.write_bytes(f"src/file{i}.py", "".join(f"line_{n} = {n}\n" for n in range(200)).encode())
    adapter = CodeServerAdapter(ws)
    try:
        adapter.observe()  # code-server up; the window is not open yet
        window_ms = run(adapter, fn("open_editor", path="src/file0.py"))
        opened = [run(adapter, fn("open_editor", path=f"src/file{1 + i % 9}.py")) for i in range(repeats)]
        focus = [run(adapter, fn("focus_editor", path=f"src/file{i % 10}.py")) for i in range(repeats)]
        select = [run(adapter, fn("set_selection", path="src/file0.py", line=1 + i * 7 % 200, column=1,
                                  end_line=1 + i * 7 % 200, end_column=7)) for i in range(repeats)]
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        tokens = estimate_tokens(json.dumps(adapter.observe().to_agent_dict()))
        rename = [run(adapter, fn("rename_path", path=f"src/file{i % 2}.py" if i % 2 == 0 else "src/moved.py",
                                  new_path="src/moved.py" if i % 2 == 0 else "src/file0.py")) for i in range(repeats // 2 * 2)]
        close = [run(adapter, fn("close_editor", path=f"src/file{i}.py")) for i in range(1, 10)]
        assert [e.id for e in adapter.observe().elements if e.type == "editor"] == ["editor:src/file0.py"]
        adapter.close()  # no window: a rename is made on disk
        disk = [run(adapter, fn("rename_path", path="src/file1.py" if i % 2 == 0 else "src/other.py",
                                new_path="src/other.py" if i % 2 == 0 else "src/file1.py")) for i in range(repeats // 2 * 2)]
    finally:
        adapter.close()
        ws.cleanup()
    return {"window_s": window_ms / 1000, "open": pair(opened), "focus": pair(focus), "select": pair(select),
            "close": pair(close), "observe": pair(observe), "rename": pair(rename), "disk": pair(disk),
            "tokens": tokens}


def print_editors(repeats: int) -> None:
    r = measure_editors(repeats)
    print("| window opens s | open_editor p50/p95 ms | focus_editor p50/p95 ms | set_selection p50/p95 ms "
          "| close_editor p50/p95 ms | observe (window open) p50/p95 ms | rename_path by VS Code p50/p95 ms "
          "| rename_path on disk p50/p95 ms | obs tokens |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    print(f"| {r['window_s']:.2f} | {r['open']} | {r['focus']} | {r['select']} | {r['close']} | {r['observe']} | "
          f"{r['rename']} | {r['disk']} | {r['tokens']:,} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--large", type=int, default=10_000, help="files in the large workspace")
    parser.add_argument("--only", choices=("settings", "editors"), help="run one of the two tables")
    args = parser.parse_args()
    print(f"# code-server {VERSION}, Python {platform.python_version()}, {args.repeats} repeats")
    if args.only != "settings":
        print_editors(args.repeats)
    if args.only == "editors":
        return
    rows = [measure("small", 5, 0, args.repeats), measure("large", args.large, 150, args.repeats)]
    print("| workspace | files | user settings | cold start s | observe p50/p95 ms | set_setting p50/p95 ms "
          "| add_keybinding p50/p95 ms | replace_text p50/p95 ms | all warm actions p50/p95 ms "
          "| install+uninstall ext p50 ms | run_task p50 ms | obs tokens |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        print(f"| {r['label']} | {r['files']:,} | {r['settings']} | {r['cold_s']:.2f} | {r['observe']} | "
              f"{r['set_setting']} | {r['keybinding']} | {r['replace']} | {r['warm']} | {r['extension']} | "
              f"{r['task']} | {r['tokens']:,} |")


if __name__ == "__main__":
    main()
