"""OBS scene-collection files: checking, moving in and out of OBS, and reading them as plain state.

The workspace holds a collection in OBS's own JSON format, except that files inside the workspace
are named by workspace-relative paths (so a workspace can move). OBS gets a copy with absolute
paths; :func:`export_collection` turns OBS's file back into the portable form.

The plain state (:func:`collection_state`) is what checkpoints read: scenes with items, inputs
with settings, audio and filters. Colors are ``#RRGGBB``/``#RRGGBBAA`` strings, paths relative.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from asil.apps.obs import FLUSH_MARK
from asil.protocol import DocumentError

FILE_KEYS = ("file", "local_file", "text_file")
COLOR_KEYS = ("color", "color1", "color2", "key_color", "color_add", "color_multiply")
SCENE_KINDS = ("scene", "group")
DOC_HINT = "Give a scene collection JSON written by OBS Studio (an object with 'sources' and 'scene_order')."


# ------------------------------------------------------------------ values
def obs_color(text: str) -> int:
    """'#RRGGBB' or '#RRGGBBAA' as OBS's 0xAABBGGRR integer."""
    digits = text[1:]
    red, green, blue = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
    alpha = int(digits[6:8], 16) if len(digits) == 8 else 255
    return (alpha << 24) | (blue << 16) | (green << 8) | red


def hex_color(value: int) -> str:
    """OBS's 0xAABBGGRR integer as '#RRGGBB' (opaque) or '#RRGGBBAA'."""
    value &= 0xFFFFFFFF
    red, green, blue, alpha = value & 255, (value >> 8) & 255, (value >> 16) & 255, value >> 24
    text = f"#{red:02X}{green:02X}{blue:02X}"
    return text if alpha == 255 else f"{text}{alpha:02X}"


def volume_db(multiplier: float) -> float:
    return round(20 * math.log10(multiplier), 2) if multiplier > 0 else -100.0


def plain_settings(settings: dict[str, Any], root: Path) -> dict[str, Any]:
    """Settings as agents and checkpoints see them: hex colors, workspace-relative paths."""
    shown: dict[str, Any] = {}
    for key, value in settings.items():
        if key in COLOR_KEYS and isinstance(value, int) and not isinstance(value, bool):
            value = hex_color(value)
        elif key in FILE_KEYS and isinstance(value, str):
            value = relative_path(value, root)
        shown[key] = value
    return shown


def relative_path(value: str, root: Path) -> str:
    prefix = str(root) + "/"
    return value[len(prefix):] if value.startswith(prefix) else value


def _map_files(data: dict[str, Any], change: Any) -> dict[str, Any]:
    """A copy of a collection with ``change`` applied to every source's file settings."""
    copy: dict[str, Any] = json.loads(json.dumps(data))
    for source in copy.get("sources", []):
        settings = source.get("settings")
        if isinstance(settings, dict):
            for key in FILE_KEYS:
                if isinstance(settings.get(key), str) and settings[key]:
                    settings[key] = change(settings[key])
    return copy


# ------------------------------------------------------------------ files
def load_collection(path: Path, document: str) -> dict[str, Any]:
    """The collection at ``path``; DocumentError (one sentence) when it is not one."""
    if not path.is_file():
        raise DocumentError(f"The scene collection {document!r} does not exist.", hint=DOC_HINT)
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{document!r} is not valid JSON ({exc}).", hint=DOC_HINT) from None
    return check_collection(data, document)


def check_collection(data: Any, document: str) -> dict[str, Any]:
    """``data`` when it is a scene collection OBS can load; DocumentError (one sentence) otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("sources"), list):
        raise DocumentError(f"{document!r} is not an OBS scene collection (no 'sources' list).", hint=DOC_HINT)
    for index, source in enumerate(data["sources"]):
        if not isinstance(source, dict) or not isinstance(source.get("name"), str) or not isinstance(
                source.get("id", source.get("versioned_id")), str):
            raise DocumentError(f"Source {index + 1} of {document!r} has no name or kind.", hint=DOC_HINT)
    if not any(s.get("id") == "scene" for s in data["sources"]):
        raise DocumentError(f"{document!r} holds no scene; OBS needs at least one.", hint=DOC_HINT)
    return data


def install_collection(data: dict[str, Any], target: Path, root: Path) -> None:
    """Write the collection for OBS: workspace-relative file paths become absolute."""
    def absolute(value: str) -> str:
        return value if value.startswith("/") else str(root / value)

    target.write_text(json.dumps(_map_files(data, absolute), indent=4), encoding="utf-8")


def export_collection(obs_file: Path, root: Path) -> bytes:
    """OBS's saved collection in the workspace's portable form (paths under ``root`` made relative,
    the marker of forced saves dropped)."""
    data = json.loads(obs_file.read_text(encoding="utf-8"))
    for source in data.get("sources", []):
        for item in (source.get("settings") or {}).get("items", []):
            if isinstance(item.get("private_settings"), dict):
                item["private_settings"].pop(FLUSH_MARK, None)
    return (json.dumps(_map_files(data, lambda v: relative_path(v, root)), indent=4) + "\n").encode("utf-8")


# ------------------------------------------------------------------ plain state
def _item(raw: dict[str, Any]) -> dict[str, Any]:
    pos, scale = raw.get("pos", {}), raw.get("scale", {})
    return {"id": raw.get("id"), "source": raw.get("name"), "visible": bool(raw.get("visible", True)),
            "locked": bool(raw.get("locked", False)),
            "position": [pos.get("x", 0.0), pos.get("y", 0.0)], "scale": [scale.get("x", 1.0), scale.get("y", 1.0)],
            "rotation": raw.get("rot", 0.0),
            "crop": {side: raw.get(f"crop_{side}", 0) for side in ("left", "top", "right", "bottom")}}


def _filters(source: dict[str, Any], root: Path) -> list[dict[str, Any]]:
    return [{"name": f.get("name"), "kind": f.get("versioned_id", f.get("id")), "enabled": f.get("enabled", True),
             "settings": plain_settings(f.get("settings", {}), root)} for f in source.get("filters", [])]


def collection_state(data: dict[str, Any], root: Path) -> dict[str, Any]:
    """Scenes (in OBS's order) with items, inputs with settings/audio/filters, the program scene."""
    sources = {s["name"]: s for s in data.get("sources", [])}
    order = [entry.get("name") for entry in data.get("scene_order", [])]
    order += [n for n, s in sources.items() if s.get("id") == "scene" and n not in order]
    scenes = [{"name": name, "items": [_item(i) for i in sources[name].get("settings", {}).get("items", [])],
               "filters": _filters(sources[name], root)}
              for name in order if name in sources]
    inputs = {name: {"kind": s.get("versioned_id", s.get("id")),
                     "settings": plain_settings(s.get("settings", {}), root),
                     "muted": bool(s.get("muted", False)), "volume_db": volume_db(float(s.get("volume", 1.0))),
                     "filters": _filters(s, root)}
              for name, s in sources.items() if s.get("id") not in SCENE_KINDS}
    return {"current_scene": data.get("current_program_scene", data.get("current_scene")),
            "scenes": scenes, "inputs": inputs}
