"""The independent raw validator for OBS tasks: the saved collection JSON read directly.

It shares no reading code with the adapter's checkpoints: it walks OBS's own file format here
(sources, scene ``settings.items``, ``filters``, the 0xAABBGGRR colors, the volume multiplier)
and probes recordings with its own ffprobe call. Video settings come from the ``<stem>.video.json``
file beside the collection (OBS's GetVideoSettings fields), or OBS's start-up defaults when there is
none; collections, profiles and studio mode from the ``<stem>.config.json`` file beside it. Anything
unreadable is a failed checkpoint.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

from asil.apps.obs import DEFAULT_VIDEO
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

COLOR_FIELDS = {"color", "color1", "color2", "key_color", "color_add", "color_multiply"}
PATH_FIELDS = {"file", "local_file", "text_file"}


class RawObsError(Exception):
    """The saved state cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one OBS checkpoint read straight from the workspace files; False when in doubt."""
    try:
        actual = _read(cp, Path(workspace.root))
    except (RawObsError, KeyError, ValueError, TypeError, IndexError, OSError, subprocess.SubprocessError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _value(key: str, value: Any, root: Path) -> Any:
    if key in COLOR_FIELDS and isinstance(value, int) and not isinstance(value, bool):
        r, g, b, a = value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, (value >> 24) & 0xFF
        return f"#{r:02X}{g:02X}{b:02X}" + ("" if a == 0xFF else f"{a:02X}")
    if key in PATH_FIELDS and isinstance(value, str) and value.startswith(f"{root}/"):
        return value[len(str(root)) + 1:]
    return value


def _walk(node: Any, keys: list[str], root: Path) -> Any:
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            raise RawObsError(f"no {key!r}")
        node = node[key]
    return _value(keys[-1], node, root) if keys else node


def _probe_seconds(path: Path) -> float:
    out = subprocess.run(["ffprobe", "-v", "quiet", "-print_format", "json", "-show_format", str(path)],
                         capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL).stdout
    return float(json.loads(out)["format"]["duration"])


def _png_size(path: Path) -> list[int]:
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise RawObsError("not a PNG")
    return [int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")]


def _video(root: Path, collection: str, field: str) -> Any:
    """One video field read from the JSON beside ``collection`` ('a/scenes.json' -> 'a/scenes.video.json')."""
    stem = collection[:-len(".json")] if collection.endswith(".json") else collection
    path = root / (stem + ".video.json")
    raw = json.loads(path.read_text(encoding="utf-8")) if path.exists() else DEFAULT_VIDEO
    if not isinstance(raw, dict) or any(type(v) is not int or v < 1 for v in raw.values()):
        raise RawObsError("video settings must be positive integers")
    pairs = {"base": [raw["baseWidth"], raw["baseHeight"]], "output": [raw["outputWidth"], raw["outputHeight"]]}
    if field == "fps":
        return raw["fpsNumerator"] / raw["fpsDenominator"]
    return pairs[field]


def _config(root: Path, collection: str) -> dict[str, Any]:
    """The file beside ``collection`` that holds the other collections, profiles and studio mode ({} if none)."""
    stem = collection[:-len(".json")] if collection.endswith(".json") else collection
    path = root / (stem + ".config.json")
    raw = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if not isinstance(raw, dict):
        raise RawObsError("the config file must hold an object")
    return raw


SETUP_TYPES = {"obs_collection", "obs_collection_names", "obs_collection_scenes", "obs_profile",
               "obs_profile_names", "obs_profile_video", "obs_studio_mode", "obs_preview_scene"}


def _setup(cp: Checkpoint, root: Path, doc: dict[str, Any], target: str) -> Any:
    """Collections, profiles and studio mode, read from the open collection and its config file."""
    collection = cp.document or "scenes.json"
    config = _config(root, collection)
    collections = {doc["name"]: doc, **config.get("collections", {})}
    profile = config.get("profile", "Untitled")
    studio = config.get("studio_mode", False) is True
    if cp.type == "obs_collection":
        return doc["name"]
    if cp.type == "obs_collection_names":
        return list(collections)
    if cp.type == "obs_collection_scenes":
        return [s["name"] for s in collections[target]["sources"] if s.get("id") == "scene"]
    if cp.type == "obs_profile":
        return profile
    if cp.type == "obs_profile_names":
        return [profile, *config.get("profiles", {})]
    if cp.type == "obs_profile_video":
        name, _, field = target.partition(".")
        if name == profile:
            return _video(root, collection, field)
        raw = config["profiles"][name]
        pairs = {"base": [raw["baseWidth"], raw["baseHeight"]], "output": [raw["outputWidth"], raw["outputHeight"]],
                 "fps": raw["fpsNumerator"] / raw["fpsDenominator"]}
        return pairs[field]
    if cp.type == "obs_studio_mode":
        return studio
    return doc.get("current_scene") if studio else None


def _item_fields(item: dict[str, Any]) -> dict[str, Any]:
    return {"position": [item["pos"]["x"], item["pos"]["y"]], "scale": [item["scale"]["x"], item["scale"]["y"]],
            "rotation": item.get("rot", 0.0), "visible": item.get("visible", True), "id": item.get("id"),
            "crop": {k: item.get(f"crop_{k}", 0) for k in ("left", "top", "right", "bottom")}}


def _input_fields(source: dict[str, Any]) -> dict[str, Any]:
    volume = float(source.get("volume", 1.0))
    return {"kind": source.get("versioned_id") or source["id"], "settings": source.get("settings", {}),
            "muted": source.get("muted", False), "volume_db": -100.0 if volume <= 0 else 20 * math.log10(volume)}


def _read(cp: Checkpoint, root: Path) -> Any:
    target = str(cp.target or "")
    if cp.type == "obs_media_duration":
        return _probe_seconds(root / target)
    if cp.type == "obs_image_size":
        return _png_size(root / target)
    if cp.type == "obs_video":
        return _video(root, cp.document or "scenes.json", target)
    doc = json.loads((root / (cp.document or "scenes.json")).read_text(encoding="utf-8"))
    if cp.type in SETUP_TYPES:
        return _setup(cp, root, doc, target)
    by_name = {s["name"]: s for s in doc["sources"]}
    scenes = {n: s for n, s in by_name.items() if s.get("id") == "scene"}
    inputs = {n: s for n, s in by_name.items() if s.get("id") not in ("scene", "group")}
    owner, _, field = target.partition(".")
    keys = field.split(".") if field else []
    if cp.type == "obs_scene_exists":
        return target in scenes
    if cp.type == "obs_scene_names":
        return list(scenes)
    if cp.type == "obs_program_scene":
        return doc.get("current_program_scene", doc.get("current_scene"))
    if cp.type == "obs_input_exists":
        return target in inputs
    if cp.type == "obs_scene_sources":
        return [item["name"] for item in scenes[target]["settings"].get("items", [])]
    if cp.type == "obs_input_value":
        return _walk(_input_fields(inputs[owner]), keys, root)
    if cp.type == "obs_item_value":
        scene, _, source = owner.partition("/")
        (item,) = [i for i in scenes[scene]["settings"]["items"] if i["name"] == source]
        return _walk(_item_fields(item), keys, root)
    if cp.type in ("obs_filter_value", "obs_filter_names"):
        source, _, name = owner.partition("/")
        filters = by_name[source].get("filters", [])
        if cp.type == "obs_filter_names":
            return [f["name"] for f in filters]
        (found,) = [f for f in filters if f["name"] == name]
        fields = {"kind": found.get("versioned_id") or found["id"], "enabled": found.get("enabled", True),
                  "settings": found.get("settings", {})}
        return _walk(fields, keys or ["kind"], root)
    raise RawObsError(f"unknown checkpoint type {cp.type!r}")
