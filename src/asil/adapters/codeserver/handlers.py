"""The code-server functions, each declared with what it does to a :class:`Plan`.

Handlers validate (raising InvalidAction with one clear sentence) and record the new file texts
or extension operations in the plan; they never touch the disk. Each returns the ids of the
elements it changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import actions as act
from asil.adapters.codeserver import jsonc, settings, state, taskrun, vsix
from asil.adapters.codeserver.plan import ExtensionOp, Plan, TaskRun
from asil.adapters.functions import FunctionTable
from asil.apps.codeserver import builtin_extensions_dir
from asil.protocol import DocumentError, InvalidAction
from asil.workspace import Workspace

MODIFIER = r"(?:(?:ctrl|shift|alt|meta|cmd|win)\+)"
KEY_NAME = (r"(?:[a-z0-9]|f(?:[1-9]|1[0-9])|[`\-=\[\];',./\\]|left|right|up|down|pageup|pagedown|home|end|tab|"
            r"enter|escape|space|backspace|delete|insert|pausebreak|capslock|numpad[0-9]|numpad_\w+|oem_\w+)")
CHORD = re.compile(rf"^{MODIFIER}*{KEY_NAME}(?: {MODIFIER}*{KEY_NAME})?$")
JSON_FILES = (state.WORKSPACE_SETTINGS, state.WORKSPACE_TASKS)  # code-server must stay able to read these


@dataclass
class Context:
    workspace: Workspace
    places: state.Places
    editors: Callable[[], dict[str, Any]] | None = None  # the VS Code window's editor state, when one can be had


Handler = Callable[[Plan, Context, Any], list[str]]
FUNCTIONS: FunctionTable[Handler] = FunctionTable("code-server")


def setting_id(scope: str, key: str, language: str | None = None) -> str:
    return f"setting:{scope}:" + (f"[{language}]." if language else "") + key


def _read_jsonc(plan: Plan, path: Path, default: Any, what: str) -> tuple[str, Any]:
    text = plan.read(path, what)
    try:
        data = jsonc.loads(text) if text.strip() else default
    except jsonc.JsoncError as exc:
        raise InvalidAction(f"{what} is not valid JSON with comments ({exc}); it was not changed.",
                            hint="Rewrite the file with write_file, or fix the broken part first.",
                            code="bad_document") from None
    if type(data) is not type(default):
        raise InvalidAction(f"{what} must hold a JSON {type(default).__name__}.", code="bad_document")
    return text, data


def _write_checked(plan: Plan, path: Path, text: str, expected: Any, what: str) -> None:
    """Write ``text`` only if it reads back as ``expected``: an edit can never corrupt a file."""
    if jsonc.loads(text) != expected:
        raise InvalidAction(f"The edit of {what} could not be made without changing other entries; nothing was "
                            "changed.", hint="Rewrite the file with write_file.", code="edit_conflict")
    plan.write(path, text)


# ---------------------------------------------------------------- settings
def _catalog(plan: Plan) -> dict[str, settings.Schema]:
    return settings.catalog(builtin_extensions_dir(), state.extension_manifests(plan.profile))


@FUNCTIONS.function("set_setting", act.SetSetting, "Set a user or workspace setting (checked against its declared type; the "
                    "file's comments and layout are kept).", acts_on="settings")
def set_setting(plan: Plan, ctx: Context, p: act.SetSetting) -> list[str]:
    where = f"the {p.scope} settings"
    settings.check_setting(p.key, p.value, _catalog(plan), p.allow_unknown, where)
    path = ctx.places.settings_file(p.scope)
    text, data = _read_jsonc(plan, path, {}, f"The {p.scope} settings.json")
    keys = [f"[{p.language}]", p.key] if p.language else [p.key]
    if p.language:
        section = data.get(keys[0])
        data[keys[0]] = {**(section if isinstance(section, dict) else {}), p.key: p.value}
    else:
        data[p.key] = p.value
    _write_checked(plan, path, jsonc.set_path(text, keys, p.value), data, f"the {p.scope} settings.json")
    return [setting_id(p.scope, p.key, p.language)]


@FUNCTIONS.function("remove_setting", act.RemoveSetting, "Remove a setting so its default applies again.",
                    acts_on="settings")
def remove_setting(plan: Plan, ctx: Context, p: act.RemoveSetting) -> list[str]:
    path = ctx.places.settings_file(p.scope)
    text, data = _read_jsonc(plan, path, {}, f"The {p.scope} settings.json")
    holder = data.get(f"[{p.language}]") if p.language else data
    if not isinstance(holder, dict) or p.key not in holder:
        raise InvalidAction(f"{p.key!r} is not set in the {p.scope} settings"
                            + (f" for {p.language}" if p.language else "") + ".",
                            hint="Settings that are set appear as 'setting:<scope>:<key>' elements.",
                            code="not_set")
    del holder[p.key]
    keys = [f"[{p.language}]", p.key] if p.language else [p.key]
    _write_checked(plan, path, jsonc.remove_path(text, keys), data, f"the {p.scope} settings.json")
    return [setting_id(p.scope, p.key, p.language)]


# ---------------------------------------------------------------- keybindings
def keybinding_id(key: str, command: str) -> str:
    return f"keybinding:{key}:{command}"


def _normal_key(key: str) -> str:
    chord = " ".join(key.lower().split())
    if not CHORD.match(chord):
        raise InvalidAction(f"{key!r} is not a key chord.", hint="Use modifiers ctrl, shift, alt, meta joined by '+' "
                            "and a key, e.g. 'ctrl+shift+t', 'f5' or 'ctrl+k ctrl+c'.", code="bad_key")
    return chord


def _keybindings(plan: Plan, ctx: Context) -> tuple[Path, str, list[Any]]:
    """The user keybindings.json: its path, its text and its entries, as the plan leaves them."""
    path = ctx.places.profile.keybindings
    text, data = _read_jsonc(plan, path, [], "keybindings.json")
    return path, text, data


@FUNCTIONS.function("add_keybinding", act.AddKeybinding, "Add a user keybinding (keybindings.json).",
                    acts_on="keybindings")
def add_keybinding(plan: Plan, ctx: Context, p: act.AddKeybinding) -> list[str]:
    key = _normal_key(p.key)
    path, text, data = _keybindings(plan, ctx)
    entry: dict[str, Any] = {"key": key, "command": p.command}
    if p.when:
        entry["when"] = p.when
    if p.args is not None:
        entry["args"] = p.args
    if entry in data:
        raise InvalidAction(f"{key} is already bound to {p.command} in the same way.", code="duplicate")
    root = jsonc.parse_tree(text)
    if root.start < 0:
        new = (text.rstrip() + "\n" if text.strip() else "") + "[\n" + jsonc.DEFAULT_INDENT + \
            jsonc.format_value(entry, jsonc.DEFAULT_INDENT, jsonc.DEFAULT_INDENT) + "\n]\n"
    else:
        new = jsonc.append_entry(text, root, None, entry, jsonc.indent_unit(text, root))
    _write_checked(plan, path, new, [*data, entry], "keybindings.json")
    return [keybinding_id(key, p.command)]


@FUNCTIONS.function("remove_keybinding", act.RemoveKeybinding, "Remove the user keybindings of a key and command.",
                    acts_on="keybindings")
def remove_keybinding(plan: Plan, ctx: Context, p: act.RemoveKeybinding) -> list[str]:
    key = _normal_key(p.key)
    path, text, data = _keybindings(plan, ctx)
    hits = [i for i, e in enumerate(data) if isinstance(e, dict) and _same_key(e.get("key"), key)
            and e.get("command") == p.command]
    if not hits:
        raise InvalidAction(f"There is no user keybinding of {key} to {p.command}.",
                            hint="User keybindings appear as 'keybinding:<key>:<command>' elements.", code="not_set")
    for index in reversed(hits):
        text = jsonc.remove_entry(text, jsonc.parse_tree(text), index)
    _write_checked(plan, path, text, [e for i, e in enumerate(data) if i not in hits], "keybindings.json")
    return [keybinding_id(key, p.command)]


def _same_key(found: Any, key: str) -> bool:
    return isinstance(found, str) and " ".join(found.lower().split()) == key


# ---------------------------------------------------------------- extensions
@FUNCTIONS.function("install_extension", act.InstallExtension, "Install an extension from a .vsix file in the workspace.",
                    acts_on="extensions")
def install_extension(plan: Plan, ctx: Context, p: act.InstallExtension) -> list[str]:
    path = ctx.workspace.resolve(p.vsix)
    info = vsix.inspect(path, repr(p.vsix))
    installed = plan.extensions()
    if installed.get(info.id) == info.version:
        raise InvalidAction(f"{info.id} {info.version} is already installed.", code="duplicate")
    plan.extension_ops.append(ExtensionOp("install", str(path), info.id))
    installed[info.id] = info.version
    return [f"extension:{info.id}"]


@FUNCTIONS.function("uninstall_extension", act.UninstallExtension, "Uninstall an installed extension.",
                    destructive=True, acts_on="extensions")
def uninstall_extension(plan: Plan, ctx: Context, p: act.UninstallExtension) -> list[str]:
    ident = p.id.lower()
    installed = plan.extensions()
    if ident not in installed:
        raise InvalidAction(f"The extension {p.id!r} is not installed.",
                            hint="Installed: " + (", ".join(installed) or "none") + ".", code="not_installed")
    plan.extension_ops.append(ExtensionOp("uninstall", ident, ident))
    del installed[ident]
    return [f"extension:{ident}"]


# ---------------------------------------------------------------- files
def _file(ctx: Context, relative: str) -> Path:
    path = ctx.workspace.resolve(relative)
    if relative.endswith("/") or path == ctx.workspace.root:
        raise InvalidAction(f"{relative!r} names a folder, not a file.", hint="Give a file path such as 'src/a.py'.")
    return path


def _put(plan: Plan, ctx: Context, path: Path, text: str) -> list[str]:
    relative = ctx.workspace.relative(path) if path.exists() else str(path.relative_to(ctx.workspace.root))
    if relative in JSON_FILES:
        try:
            jsonc.loads(text)
        except jsonc.JsoncError as exc:
            raise InvalidAction(f"The new text of {relative} is not valid JSON with comments ({exc}); code-server "
                                "could not read it, so it was not written.", code="bad_document") from None
    plan.write(path, text)
    return [f"file:{relative}"]


@FUNCTIONS.function("create_file", act.WriteFile, "Create a new text file (refused if it exists).", acts_on="files")
def create_file(plan: Plan, ctx: Context, p: act.WriteFile) -> list[str]:
    path = _file(ctx, p.path)
    if plan.exists(path) or path.exists():
        raise InvalidAction(f"{p.path!r} already exists.", hint="Use write_file to replace its text, or "
                            "replace_text to change part of it.", code="exists")
    return _put(plan, ctx, path, p.content)


@FUNCTIONS.function("write_file", act.WriteFile, "Replace the whole text of a file (creates it when missing).",
                    destructive=True, acts_on="files")
def write_file(plan: Plan, ctx: Context, p: act.WriteFile) -> list[str]:
    path = _file(ctx, p.path)
    plan.read(path, repr(p.path))  # refuses folders and binary files
    return _put(plan, ctx, path, p.content)


@FUNCTIONS.function("replace_text", act.ReplaceText, "Replace text in a file.", acts_on="files")
def replace_text(plan: Plan, ctx: Context, p: act.ReplaceText) -> list[str]:
    path = _file(ctx, p.path)
    if not plan.exists(path):
        raise InvalidAction(f"There is no file {p.path!r}.", hint="Create it with create_file.", code="no_such_file")
    text = plan.read(path, repr(p.path))
    count = text.count(p.old)
    if count == 0:
        raise InvalidAction(f"The text to replace does not occur in {p.path!r}.",
                            hint="Copy the exact text (with its spaces and line breaks) from the editor view.",
                            code="not_found")
    if count > 1 and not p.all:
        raise InvalidAction(f"The text to replace occurs {count} times in {p.path!r}.",
                            hint="Give a longer, unique piece of text, or pass all: true.", code="ambiguous")
    return _put(plan, ctx, path, text.replace(p.old, p.new))


@FUNCTIONS.function("delete_file", act.PathOnly, "Delete a file.", destructive=True, acts_on="files")
def delete_file(plan: Plan, ctx: Context, p: act.PathOnly) -> list[str]:
    path = _file(ctx, p.path)
    if not plan.exists(path):
        raise InvalidAction(f"There is no file {p.path!r}.", code="no_such_file")
    plan.delete(path)
    return [f"file:{ctx.workspace.relative(path)}"]


# ---------------------------------------------------------------- tasks.json
@FUNCTIONS.function("add_task", act.AddTask, "Add a task to .vscode/tasks.json (replaces a task of the same label).",
                    acts_on="tasks")
def add_task(plan: Plan, ctx: Context, p: act.AddTask) -> list[str]:
    path = ctx.places.tasks_file
    text, data = _read_jsonc(plan, path, {}, state.WORKSPACE_TASKS)
    entry: dict[str, Any] = {"label": p.label, "type": p.type, "command": p.command}
    if p.args:
        entry["args"] = p.args
    if p.group:
        entry["group"] = p.group
    listed = data.get("tasks")
    if not text.strip():
        data = {"version": "2.0.0", "tasks": [entry]}
        new = jsonc.set_path(jsonc.set_path("", ["version"], "2.0.0"), ["tasks"], [entry])
    elif not isinstance(listed, list):
        data["tasks"] = [entry]
        new = jsonc.set_path(text, ["tasks"], [entry])
    else:
        new, data["tasks"] = _put_task(text, listed, entry)
    _write_checked(plan, path, new, data, state.WORKSPACE_TASKS)
    return [f"task:{p.label}"]


def _put_task(text: str, listed: list[Any], entry: dict[str, Any]) -> tuple[str, list[Any]]:
    """Replace the task with entry's label in place, or append it; returns the new text and list."""
    root = jsonc.parse_tree(text)
    array = [e for e in root.entries if e.key == "tasks"][-1].value
    unit = jsonc.indent_unit(text, root)
    for index, item in enumerate(listed):
        if isinstance(item, dict) and item.get("label") == entry["label"]:
            return jsonc.replace_value(text, array.entries[index].value, entry, unit), \
                [*listed[:index], entry, *listed[index + 1:]]
    return jsonc.append_entry(text, array, None, entry, unit), [*listed, entry]


@FUNCTIONS.function("remove_task", act.LabelOnly, "Remove a task from .vscode/tasks.json.", acts_on="tasks")
def remove_task(plan: Plan, ctx: Context, p: act.LabelOnly) -> list[str]:
    path = ctx.places.tasks_file
    text, data = _read_jsonc(plan, path, {}, state.WORKSPACE_TASKS)
    listed = data.get("tasks") if isinstance(data.get("tasks"), list) else []
    hits = [i for i, t in enumerate(listed) if isinstance(t, dict) and t.get("label") == p.label]
    if not hits:
        raise InvalidAction(f"There is no task {p.label!r} in {state.WORKSPACE_TASKS}.", code="no_such_task")
    for index in reversed(hits):
        array = [e for e in jsonc.parse_tree(text).entries if e.key == "tasks"][-1].value
        text = jsonc.remove_entry(text, array, index)
    data["tasks"] = [t for i, t in enumerate(listed) if i not in hits]
    _write_checked(plan, path, text, data, state.WORKSPACE_TASKS)
    return [f"task:{p.label}"]


# ---------------------------------------------------------------- running a task
@FUNCTIONS.function("run_task", act.RunTask, "Run a shell/process task confined to the workspace with a time limit; its "
                    "output is recorded.", acts_on="tasks", batch=False)  # a task's command may change any file
def run_task(plan: Plan, ctx: Context, p: act.RunTask) -> list[str]:
    try:
        tasks = state.tasks(ctx.places)
    except DocumentError as exc:
        raise InvalidAction(exc.message, hint=exc.hint, code=exc.code) from None
    task = taskrun.find_task(tasks, p.label)
    taskrun.command_line(task, ctx.workspace.root)  # refuses a task that cannot run here
    plan.task_runs.append(TaskRun(task, p.timeout_s))
    return [f"task:{p.label}"]
