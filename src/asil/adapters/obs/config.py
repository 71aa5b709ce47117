"""What OBS keeps besides the open collection, as part of the document: ``<stem>.config.json``.

OBS keeps every scene collection as a file in its config folder, every profile (with its video
settings) as a folder, and studio mode in global.ini. The workspace keeps the open collection
(``scenes.json``) and the current profile's video (``scenes.video.json``) as before; this file beside
them holds the rest: the current profile's name, the other profiles' video settings (OBS's
``GetVideoSettings`` fields), the other collections (OBS's own JSON, workspace-relative paths) and
whether studio mode is on. No file means one profile (OBS's first, 'Untitled'), no other collection
and studio mode off. The preview scene is in the collection itself (OBS writes it as ``current_scene``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.adapters.obs.collection import check_collection
from asil.adapters.obs.video import video_problem
from asil.apps.obs import DEFAULT_PROFILE
from asil.protocol import DocumentError

CONFIG_KEYS = ("profile", "profiles", "collections", "studio_mode")
CONFIG_HINT = ("Give a JSON object with profile (a name), profiles ({name: video settings}), collections "
               "({name: an OBS scene collection}) and studio_mode (true or false).")


def config_document(document: str) -> str:
    """The workspace-relative config file of a collection document ('show/scenes.json' -> 'show/scenes.config.json')."""
    folder, _, name = document.rpartition("/")
    stem = name[:-5] if name.endswith(".json") else name
    return f"{folder}/{stem}.config.json" if folder else f"{stem}.config.json"


def default_config() -> dict[str, Any]:
    return {"profile": DEFAULT_PROFILE, "profiles": {}, "collections": {}, "studio_mode": False}


def _problem(data: Any, document: str) -> str | None:
    if not isinstance(data, dict) or set(data) - set(CONFIG_KEYS):
        return f"it must be an object with only {', '.join(CONFIG_KEYS)}"
    if not isinstance(data.get("profile", DEFAULT_PROFILE), str) or not data.get("profile", DEFAULT_PROFILE):
        return "profile must be a name"
    if not isinstance(data.get("studio_mode", False), bool):
        return "studio_mode must be true or false"
    for key in ("profiles", "collections"):
        if not isinstance(data.get(key, {}), dict):
            return f"{key} must be an object keyed by name"
    for name, video in data.get("profiles", {}).items():
        problem = video_problem(video)
        if problem is not None:
            return f"the video settings of profile {name!r}: {problem}"
    if data.get("profile", DEFAULT_PROFILE) in data.get("profiles", {}):
        return "the current profile must not be listed again in profiles"
    for name, collection in data.get("collections", {}).items():
        try:
            check_collection(collection, f"{document}: collection {name}")
        except DocumentError as exc:
            return exc.message.rstrip(".")
        if collection.get("name") != name:
            return f"collection {name!r} must carry its own name ('name': {name!r})"
    return None


def load_config(path: Path, document: str) -> dict[str, Any]:
    """The config in the file at ``path`` (defaults filled in); the defaults when there is none."""
    if not path.exists():
        return default_config()
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DocumentError(f"The OBS config file {document!r} is not readable JSON ({exc}).",
                            hint=CONFIG_HINT) from None
    problem = _problem(data, document)
    if problem is not None:
        raise DocumentError(f"The OBS config file {document!r} is not valid: {problem}.", hint=CONFIG_HINT)
    return {**default_config(), **data}


def config_bytes(config: dict[str, Any]) -> bytes:
    return (json.dumps({key: config[key] for key in CONFIG_KEYS}, indent=4) + "\n").encode("utf-8")


def studio_state(collection: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """Plain state for checkpoints: collections (name -> scene names), profiles, studio mode and preview."""
    def scene_list(data: dict[str, Any]) -> list[str]:
        order = [entry.get("name") for entry in data.get("scene_order", [])]
        return order + [s["name"] for s in data.get("sources", []) if s.get("id") == "scene" and s["name"] not in order]

    current = str(collection.get("name") or "")
    studio = bool(config["studio_mode"])
    return {"collection": current,
            "collections": {current: scene_list(collection),
                            **{name: scene_list(data) for name, data in config["collections"].items()}},
            "profile": config["profile"], "profiles": [config["profile"], *config["profiles"]],
            "studio_mode": studio, "preview_scene": collection.get("current_scene") if studio else None}
