"""Checkpoint types for code-server tasks, read from the state the session persisted in the workspace.

Targets: a setting ``"user:editor.fontSize"`` or ``"workspace:[python].editor.tabSize"`` (its value,
null when unset); a key chord ``"ctrl+alt+t"`` (the commands the user's keybindings bind it to); an
extension id ``"publisher.name"`` (its installed version, null when absent); a task label (its
command in tasks.json, or its last run's output / exit code). File contents use the generic
``text_regex`` and ``file_exists`` types; ``codeserver_file_sha256`` proves a moved file kept its bytes.
The VS Code window's editors (open ones, the active one, the cursor line and selected text of a
file's on-screen editor) are read from ``editors.json``, which the window's bridge rewrites on
every change, so they can be checked after the window is closed.
"""

from __future__ import annotations

import hashlib
from typing import Any

from asil.adapters.codeserver import state
from asil.adapters.codeserver.workbench import read_snapshot
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require
from asil.protocol import AsilError


def _places(ctx: EvalContext) -> state.Places:
    return state.Places(ctx.workspace.root, state.profile_of(ctx.workspace.root))


def split_setting_target(target: str) -> tuple[str, str | None, str]:
    """('user', 'python', 'editor.tabSize') for 'user:[python].editor.tabSize'."""
    scope, _, key = target.partition(":")
    language = None
    if key.startswith("[") and "]." in key:
        language, _, key = key[1:].partition("].")
    if scope not in state.SCOPES or not key:
        raise CheckpointUnreadable(f"setting target {target!r} is not '<user|workspace>:<key>'")
    return scope, language, key


def _read(read: Any) -> Any:
    try:
        return read()
    except AsilError as exc:
        raise CheckpointUnreadable(exc.message) from None


@checkpoint_type("codeserver_setting")
def setting(ctx: EvalContext, cp: Checkpoint) -> Any:
    """The value of a user or workspace setting; None when it is not set."""
    scope, language, key = split_setting_target(require(cp.target, "setting target"))
    data = _read(lambda: state.settings(_places(ctx), scope))
    if language is not None:
        data = data.get(f"[{language}]")
        if not isinstance(data, dict):
            return None
    return data.get(key)


@checkpoint_type("codeserver_keybinding", default_compare="contains")
def keybinding(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The commands the user's keybindings bind the key chord ``target`` to (in file order)."""
    key = " ".join(require(cp.target, "key chord").lower().split())
    bindings = _read(lambda: state.keybindings(_places(ctx)))
    return [str(b.get("command")) for b in bindings
            if isinstance(b.get("key"), str) and " ".join(b["key"].lower().split()) == key]


@checkpoint_type("codeserver_extension")
def extension(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The installed version of extension ``target`` (publisher.name); None when it is not installed."""
    found = _read(lambda: state.extensions(state.profile_of(ctx.workspace.root)))
    info = found.get(require(cp.target, "extension id").lower())
    return None if info is None else str(info["version"])


@checkpoint_type("codeserver_task")
def task(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The command of the task labelled ``target`` in .vscode/tasks.json; None when there is none."""
    label = require(cp.target, "task label")
    for item in _read(lambda: state.tasks(_places(ctx))):
        if item.get("label") == label:
            return str(item.get("command"))
    return None


def _run(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    record = state.task_run(_places(ctx), require(cp.target, "task label"))
    if record is None:
        raise CheckpointUnreadable(f"task {cp.target!r} was never run")
    return record


@checkpoint_type("codeserver_task_output", default_compare="regex")
def task_output(ctx: EvalContext, cp: Checkpoint) -> str:
    """The standard output of the last run of task ``target``."""
    return str(_run(ctx, cp)["stdout"])


@checkpoint_type("codeserver_task_exit_code")
def task_exit_code(ctx: EvalContext, cp: Checkpoint) -> int:
    """The exit code of the last run of task ``target`` (124 when it was stopped at its time limit)."""
    return int(_run(ctx, cp)["exit_code"])


# ---------------------------------------------------------------- the VS Code window's editors
def _editors(ctx: EvalContext) -> dict[str, Any]:
    """The editor state the window recorded last (the bridge rewrites it on every change); empty when none."""
    return read_snapshot(state.profile_of(ctx.workspace.root)) or {}


@checkpoint_type("codeserver_open_editors", default_compare="set")
def open_editors(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The workspace paths open in text editors (each once, whatever the group); compare 'set' or 'contains'."""
    return sorted({str(e["path"]) for e in _editors(ctx).get("editors", [])})


@checkpoint_type("codeserver_active_editor")
def active_editor(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The path of the active editor (the one with the keyboard focus); None when none is active."""
    active = _editors(ctx).get("active")
    return None if active is None else str(active)


def _selection(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    path = require(cp.target, "file path")
    for editor in _editors(ctx).get("visible", []):
        if editor.get("path") == path and editor.get("selections"):
            return dict(editor["selections"][0])
    raise CheckpointUnreadable(f"{path!r} is not shown in an editor, so it has no cursor")


@checkpoint_type("codeserver_cursor_line")
def cursor_line(ctx: EvalContext, cp: Checkpoint) -> int:
    """The line (1-based) of the cursor in the on-screen editor of file ``target``."""
    return int(_selection(ctx, cp)["active"][0]) + 1


@checkpoint_type("codeserver_selected_text")
def selected_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """The text selected in the on-screen editor of file ``target`` ('' for a bare cursor)."""
    return str(_selection(ctx, cp).get("text", ""))


@checkpoint_type("codeserver_file_sha256")
def file_sha256(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The SHA-256 of file ``target``'s bytes (proves a moved file kept its content); None when it is missing."""
    path = ctx.workspace.resolve(require(cp.target, "file path"))
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
