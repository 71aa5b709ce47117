"""Reading a code-server session's state from the files VS Code keeps it in.

User settings and keybindings live in the profile's ``User`` folder, workspace settings and tasks in
the workspace's ``.vscode`` folder, installed extensions in the extensions dir's ``extensions.json``
(VS Code's own registry; an uninstalled one is also listed in ``.obsolete`` until it is deleted),
and task runs in the profile's ``task-runs`` folder. Checkpoints and the adapter both read here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import jsonc
from asil.adapters.codeserver.bridge import BRIDGE_ID
from asil.apps.codeserver import Profile
from asil.protocol import DocumentError

WORKSPACE_SETTINGS = ".vscode/settings.json"
WORKSPACE_TASKS = ".vscode/tasks.json"
SCOPES = ("user", "workspace")


@dataclass(frozen=True)
class Places:
    """Where each part of the state lives, for one workspace and its profile."""

    root: Path
    profile: Profile

    def settings_file(self, scope: str) -> Path:
        return self.profile.settings if scope == "user" else self.root / WORKSPACE_SETTINGS

    @property
    def tasks_file(self) -> Path:
        return self.root / WORKSPACE_TASKS

    def task_run_file(self, label: str) -> Path:
        return self.profile.task_runs / f"{task_slug(label)}.json"


def profile_of(root: Path) -> Profile:
    """The code-server profile kept in a workspace's private folder."""
    return Profile(root / ".asil" / "codeserver")


def task_slug(label: str) -> str:
    """A file name for a task label (readable, and distinct for distinct labels)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", label)[:60]
    return f"{safe}-{sum(label.encode()) % 997:03d}"


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{path.name} cannot be read ({exc}).") from None


def read_jsonc(path: Path, default: Any, what: str) -> Any:
    """The data of a JSON-with-comments file; ``default`` when it is missing or empty."""
    text = read_text(path)
    if not text.strip():
        return default
    try:
        data = jsonc.loads(text)
    except jsonc.JsoncError as exc:
        raise DocumentError(f"{what} is not valid JSON with comments ({exc}).",
                            hint="Fix or rewrite the file; nothing was changed.") from None
    if type(data) is not type(default):
        raise DocumentError(f"{what} must hold a JSON {type(default).__name__}, not {type(data).__name__}.")
    return data


def settings(places: Places, scope: str) -> dict[str, Any]:
    data: dict[str, Any] = read_jsonc(places.settings_file(scope), {}, f"The {scope} settings.json")
    return data


def keybindings(places: Places) -> list[dict[str, Any]]:
    data: list[Any] = read_jsonc(places.profile.keybindings, [], "keybindings.json")
    return [entry for entry in data if isinstance(entry, dict)]


def tasks(places: Places) -> list[dict[str, Any]]:
    data: dict[str, Any] = read_jsonc(places.tasks_file, {}, WORKSPACE_TASKS)
    found = data.get("tasks", [])
    return [t for t in found if isinstance(t, dict)] if isinstance(found, list) else []


def task_run(places: Places, label: str) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(places.task_run_file(label).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("label") == label else None


def extensions(profile: Profile) -> dict[str, dict[str, Any]]:
    """The user's installed extensions by lower-case id: version, folder, display name (VS Code's extensions.json).

    ASIL's own editor bridge is machinery, not the user's: it is left out.
    """
    found = _registered(profile)
    found.pop(BRIDGE_ID, None)
    return found


def bridge_version(profile: Profile) -> str | None:
    """The installed version of ASIL's editor bridge extension, None when it is not installed."""
    info = _registered(profile).get(BRIDGE_ID)
    return None if info is None else str(info["version"])


def _registered(profile: Profile) -> dict[str, dict[str, Any]]:
    try:
        registry = json.loads((profile.extensions / "extensions.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise DocumentError(f"The extensions registry cannot be read ({exc}).") from None
    obsolete = _obsolete(profile)
    found: dict[str, dict[str, Any]] = {}
    for entry in registry if isinstance(registry, list) else []:
        ident = str(entry.get("identifier", {}).get("id", "")).lower()
        folder = profile.extensions / str(entry.get("relativeLocation") or "")
        if not ident or folder.name in obsolete or not (folder / "package.json").is_file():
            continue
        manifest = _manifest(folder)
        found[ident] = {"version": str(entry.get("version", manifest.get("version", ""))), "folder": folder.name,
                        "display_name": manifest.get("displayName") or manifest.get("name", ident),
                        "settings": sorted(_declared_settings(manifest))}
    return dict(sorted(found.items()))


def _obsolete(profile: Profile) -> set[str]:
    try:
        data = json.loads((profile.extensions / ".obsolete").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {name for name, gone in data.items() if gone} if isinstance(data, dict) else set()


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _declared_settings(manifest: dict[str, Any]) -> set[str]:
    sections = manifest.get("contributes", {}).get("configuration", [])
    names: set[str] = set()
    for section in sections if isinstance(sections, list) else [sections]:
        if isinstance(section, dict):
            names.update(section.get("properties", {}))
    return names


def extension_manifests(profile: Profile) -> list[Path]:
    return [profile.extensions / info["folder"] / "package.json" for info in extensions(profile).values()]
