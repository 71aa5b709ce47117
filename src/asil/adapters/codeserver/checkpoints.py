"""Checkpoint types for code-server tasks, read from the state the session persisted in the workspace.

Targets: a setting ``"user:editor.fontSize"`` or ``"workspace:[python].editor.tabSize"`` (its value,
null when unset); a key chord ``"ctrl+alt+t"`` (the commands the user's keybindings bind it to); an
extension id ``"publisher.name"`` (its installed version, null when absent); a task label (its
command in tasks.json, or its last run's output / exit code). File contents use the generic
``text_regex`` and ``file_exists`` types.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.codeserver import state
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
