"""The observation of a code-server session: the server, settings, keybindings, extensions, tasks, and
either a page of the workspace's files (view 'files') or a window of one file's lines (view 'editor')."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import state
from asil.adapters.codeserver.editor_view import editor_elements, editors_summary, window_environment
from asil.protocol import AppState, AsilError, Element, Metadata, Navigation, Observation, Paging
from asil.workspace import PRIVATE_DIR, Workspace

DEFAULT_FILE_LIMIT = 50
DEFAULT_LINE_LIMIT = 80
MAX_SETTINGS = 100  # per scope; a longer list is cut and the observation says so
MAX_ITEMS = 50  # keybindings, extensions, tasks
OUTPUT_TAIL = 400
# What each kind of element takes, said once here instead of on every element (observations stay small).
ELEMENT_ACTIONS = {"setting": ["set_setting", "remove_setting", "set_value"], "keybinding": ["remove_keybinding"],
                   "extension": ["uninstall_extension"], "task": ["run_task", "add_task", "remove_task"],
                   "file": ["write_file", "replace_text", "delete_file", "open_editor", "rename_path", "move_path",
                            "navigate"],
                   "editor": ["focus_editor", "close_editor", "set_selection"]}
LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".json": "json", ".md": "markdown",
             ".html": "html", ".css": "css", ".sh": "shellscript", ".yaml": "yaml", ".yml": "yaml", ".txt": "plaintext",
             ".c": "c", ".go": "go", ".rs": "rust", ".java": "java", ".toml": "toml"}


@dataclass
class Window:
    view: str  # files | editor
    offset: int
    limit: int
    file: str | None = None  # the open file in view 'editor'


def list_files(root: Path) -> list[str]:
    """Workspace-relative paths of every file an agent may see, sorted (ASIL's private folder left out)."""
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d != PRIVATE_DIR]
        dirs.sort()
        rel = os.path.relpath(folder, root)
        found.extend(name if rel == "." else f"{rel}/{name}" for name in files)
    return sorted(found)


def _guarded(read: Any, errors: list[str]) -> Any:
    try:
        return read()
    except AsilError as exc:
        errors.append(exc.message)
        return None


def setting_elements(scope: str, data: dict[str, Any]) -> list[Element]:
    elements = []
    for key, value in list(data.items())[:MAX_SETTINGS]:
        language = key[1:-1] if key.startswith("[") and key.endswith("]") and isinstance(value, dict) else None
        pairs = value.items() if language else [(key, value)]
        for inner, inner_value in pairs:
            ident = f"setting:{scope}:" + (f"[{language}]." if language else "") + inner
            elements.append(Element(id=ident, type="setting", value=inner_value))
    return elements


def keybinding_elements(bindings: list[dict[str, Any]]) -> list[Element]:
    seen: dict[str, int] = {}
    elements = []
    for entry in bindings[:MAX_ITEMS]:
        ident = f"keybinding:{entry.get('key')}:{entry.get('command')}"
        seen[ident] = seen.get(ident, 0) + 1
        ident += f"#{seen[ident]}" if seen[ident] > 1 else ""
        meta = {k: entry[k] for k in ("when", "args") if k in entry}
        elements.append(Element(id=ident, type="keybinding", value=entry.get("command"), meta=meta))
    return elements


def extension_elements(found: dict[str, dict[str, Any]]) -> list[Element]:
    return [Element(id=f"extension:{ident}", type="extension", label=info["display_name"], value=info["version"],
                    meta={"settings": info["settings"][:20]} if info["settings"] else {})
            for ident, info in list(found.items())[:MAX_ITEMS]]


def task_elements(places: state.Places, tasks: list[dict[str, Any]]) -> list[Element]:
    elements = []
    for task in tasks[:MAX_ITEMS]:
        label = str(task.get("label"))
        run = state.task_run(places, label)
        meta: dict[str, Any] = {"type": task.get("type")}
        if run is not None:
            meta["last_run"] = {"exit_code": run["exit_code"], "timed_out": run["timed_out"],
                                "stdout_tail": run["stdout"][-OUTPUT_TAIL:], "stderr_tail": run["stderr"][-OUTPUT_TAIL:]}
        elements.append(Element(id=f"task:{label}", type="task", value=task.get("command"), meta=meta))
    return elements


def file_page(workspace: Workspace, files: list[str], window: Window) -> list[Element]:
    elements = []
    for rel in files[window.offset:window.offset + window.limit]:
        try:
            size: int | None = (workspace.root / rel).stat().st_size
        except OSError:
            size = None
        elements.append(Element(id=f"file:{rel}", type="file", value=size))
    return elements


def editor_element(workspace: Workspace, window: Window) -> tuple[Element, int]:
    rel = str(window.file)
    try:
        text = (workspace.root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Element(id=f"file:{rel}", type="file", label=rel, value=None, editable=False,
                       meta={"error": f"cannot show this file ({type(exc).__name__})"}), 0
    lines = text.splitlines()
    shown = lines[window.offset:window.offset + window.limit]
    return Element(id=f"file:{rel}", type="file", value="\n".join(shown), data_type="text",
                   meta={"first_line": window.offset + 1, "lines": len(lines), "chars": len(text),
                         "language": LANGUAGES.get(Path(rel).suffix.lower(), "plaintext")}), len(lines)


def build_observation(workspace: Workspace, places: state.Places, window: Window, *, step: int,
                      server: dict[str, Any], editors: dict[str, Any] | None = None) -> Observation:
    errors: list[str] = []
    user = _guarded(lambda: state.settings(places, "user"), errors) or {}
    folder = _guarded(lambda: state.settings(places, "workspace"), errors) or {}
    bindings = _guarded(lambda: state.keybindings(places), errors) or []
    installed = _guarded(lambda: state.extensions(places.profile), errors) or {}
    tasks = _guarded(lambda: state.tasks(places), errors) or []
    files = list_files(workspace.root)
    server_element = Element(id="@server", type="server", label="code-server", value=server["state"],
                             editable=False, meta=server)
    editors = editors or {"window": "closed"}
    open_editors = editor_elements(editors)
    elements = [server_element, *open_editors, *setting_elements("user", user), *setting_elements("workspace", folder),
                *keybinding_elements(bindings), *extension_elements(installed), *task_elements(places, tasks)]
    if window.view == "editor" and window.file is not None:
        element, total = editor_element(workspace, window)
        elements.append(element)
    else:
        elements += file_page(workspace, files, window)
        total = len(files)
    summary = (f"code-server {server['state']}; {len(user)} user and {len(folder)} workspace settings, "
               f"{len(bindings)} keybindings, {len(installed)} extensions, {len(tasks)} tasks, {len(files)} files; "
               + (f"editing {window.file} (lines {window.offset + 1}-{min(total, window.offset + window.limit)} "
                  f"of {total})." if window.view == "editor" else
                  f"files {min(total, window.offset + 1)}-{min(total, window.offset + window.limit)} shown."))
    summary += " " + editors_summary(editors, open_editors)
    if errors:
        summary += " Problems: " + " ".join(errors)
    return Observation(
        metadata=Metadata(app="codeserver", source="service", step=step),
        app_state=AppState(view=window.view, active_document=window.file, document_path=window.file,
                           details={"workspace_settings": state.WORKSPACE_SETTINGS, "tasks": state.WORKSPACE_TASKS,
                                    "active_editor": editors.get("active"), "window": editors["window"]}),
        elements=elements,
        environment={"server": server, "problems": errors, "element_actions": ELEMENT_ACTIONS,
                     "window": window_environment(editors),
                     "counts": {"user_settings": len(user), "workspace_settings": len(folder),
                                "keybindings": len(bindings), "extensions": len(installed), "tasks": len(tasks),
                                "files": len(files)},
                     "limits": {"settings_per_scope": MAX_SETTINGS, "keybindings_extensions_tasks": MAX_ITEMS}},
        navigation=Navigation(views=["files", "editor"],
                              paging=Paging(offset=window.offset, limit=window.limit, total=total)),
        summary=summary,
    )
