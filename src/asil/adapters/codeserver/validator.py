"""The independent raw validator for code-server tasks: a second reader of the persisted files.

It shares no code with the adapter's readers: comments are stripped here by its own scanner and
the rest parsed with ``json``; extensions are found by listing the extension folders and their
package.json files, kept only when VS Code's registry (extensions.json) lists them and its
``.obsolete`` file does not. Anything unreadable fails the checkpoint (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asil.adapters.codeserver.checkpoints  # noqa: F401  (registers the types and their default comparators)
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

TRAILING_COMMA = re.compile(r",(\s*[}\]])")


class RawUnreadable(Exception):
    pass


def strip_comments(text: str) -> str:
    """``text`` without // and /* */ comments (strings left intact)."""
    out, i, in_string = [], 0, False
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\":
                out.append(text[i + 1:i + 2])
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise RawUnreadable("unclosed comment")
            i = end + 2
            continue
        else:
            out.append(char)
        i += 1
    return "".join(out)


def load_jsonc(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    text = strip_comments(path.read_text(encoding="utf-8"))
    if not text.strip():
        return default
    previous = None
    while previous != text:  # a trailing comma before a bracket (outside strings, as VS Code's files have them)
        previous, text = text, TRAILING_COMMA.sub(r"\1", text)
    return json.loads(text)


def _profile(workspace: Workspace) -> Path:
    return workspace.root / ".asil" / "codeserver"


def _settings(workspace: Workspace, scope: str) -> dict[str, Any]:
    path = _profile(workspace) / "user-data" / "User" / "settings.json" if scope == "user" \
        else workspace.root / ".vscode" / "settings.json"
    data = load_jsonc(path, {})
    if not isinstance(data, dict):
        raise RawUnreadable("settings are not an object")
    return data


def _obsolete(folder: Path) -> dict[str, Any]:
    """VS Code's list of removed-but-not-yet-deleted extension folders; like VS Code, an unreadable one is empty."""
    try:
        data = json.loads((folder / ".obsolete").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _installed(workspace: Workspace) -> dict[str, str]:
    folder = _profile(workspace) / "extensions"
    registry = json.loads((folder / "extensions.json").read_text()) if (folder / "extensions.json").exists() else []
    obsolete = _obsolete(folder)
    listed = {str(e["relativeLocation"]): str(e["identifier"]["id"]).lower() for e in registry
              if isinstance(e, dict) and "relativeLocation" in e and "id" in e.get("identifier", {})}
    found = {}
    for manifest in sorted(folder.glob("*/package.json")):
        if manifest.parent.name.startswith("asil.editor-bridge-"):
            continue  # ASIL's own bridge into the VS Code window is not a user's extension
        name = manifest.parent.name
        if name in listed and not obsolete.get(name):
            data = json.loads(manifest.read_text(encoding="utf-8"))
            if f"{data['publisher']}.{data['name']}".lower() == listed[name]:
                found[listed[name]] = str(data["version"])
    return found


def _tasks(workspace: Workspace) -> list[dict[str, Any]]:
    data = load_jsonc(workspace.root / ".vscode" / "tasks.json", {})
    return [t for t in data.get("tasks", []) if isinstance(t, dict)]


def _run(workspace: Workspace, label: str) -> dict[str, Any]:
    for path in sorted((_profile(workspace) / "task-runs").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("label") == label:
            return dict(record)
    raise RawUnreadable("never run")


def _actual(cp: Checkpoint, workspace: Workspace) -> Any:
    target = str(cp.target)
    if cp.type == "codeserver_setting":
        scope, _, key = target.partition(":")
        data = _settings(workspace, scope)
        match = re.match(r"^\[([^\]]+)\]\.(.+)$", key)
        if match:
            section = data.get(f"[{match[1]}]")
            return section.get(match[2]) if isinstance(section, dict) else None
        return data.get(key)
    if cp.type == "codeserver_keybinding":
        bindings = load_jsonc(_profile(workspace) / "user-data" / "User" / "keybindings.json", [])
        chord = " ".join(target.lower().split())
        return [str(b["command"]) for b in bindings if " ".join(str(b.get("key", "")).lower().split()) == chord]
    if cp.type == "codeserver_extension":
        return _installed(workspace).get(target.lower())
    if cp.type == "codeserver_task":
        commands = [str(t.get("command")) for t in _tasks(workspace) if t.get("label") == target]
        return commands[-1] if commands else None
    if cp.type == "codeserver_task_output":
        return str(_run(workspace, target)["stdout"])
    if cp.type == "codeserver_task_exit_code":
        return int(_run(workspace, target)["exit_code"])
    if cp.type in EDITOR_TYPES:
        return EDITOR_TYPES[cp.type](json.loads((_profile(workspace) / "editors.json").read_text()), target)
    if cp.type == "codeserver_file_sha256":
        path = workspace.root / target
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    raise RawUnreadable(f"unknown checkpoint type {cp.type}")


def _primary(editors: dict[str, Any], path: str) -> dict[str, Any]:
    shown = [v["selections"][0] for v in editors["visible"] if v["path"] == path and v["selections"]]
    if not shown:
        raise RawUnreadable("not on screen")
    return dict(shown[0])


EDITOR_TYPES: dict[str, Callable[[dict[str, Any], str], Any]] = {
    "codeserver_open_editors": lambda e, _: sorted({t["path"] for t in e["editors"]}),
    "codeserver_active_editor": lambda e, _: e["active"],
    "codeserver_cursor_line": lambda e, path: _primary(e, path)["active"][0] + 1,
    "codeserver_selected_text": lambda e, path: _primary(e, path)["text"],
}


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one code-server checkpoint from the raw files; False when in doubt."""
    try:
        actual = _actual(cp, workspace)
    except (RawUnreadable, OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)
