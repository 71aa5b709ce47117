"""Task set-up for OBS: scene collections in OBS's own JSON format from small specs, and media files.

A spec names scenes (with items), inputs (with settings, filters and audio) and the program
scene; :func:`build_collection` writes the JSON OBS 29 itself writes (the fields it needs to load
it). Colors are ``#RRGGBB`` in specs and OBS's integers in the file; media paths stay
workspace-relative (the adapter makes them absolute for OBS). ``obs_video`` writes the video
settings file that sits beside a collection, ``obs_config`` the other collections, profiles and studio mode.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from asil.adapters.obs.actions import FILTER_KINDS, INPUT_KINDS
from asil.adapters.obs.collection import COLOR_KEYS, obs_color
from asil.adapters.obs.config import config_bytes, default_config, load_config
from asil.adapters.obs.video import load_video, video_bytes
from asil.apps.obs import DEFAULT_PROFILE
from asil.protocol import DocumentError
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import atomic_write, cache_dir

OBS_VERSION = 486539266  # 29.0.2, the version that writes these files


def _unversioned(kind: str) -> str:
    return re.sub(r"_v\d+$", "", kind)


def _settings(values: dict[str, Any]) -> dict[str, Any]:
    return {k: obs_color(v) if k in COLOR_KEYS and isinstance(v, str) else v for k, v in values.items()}


def _source(name: str, kind: str, settings: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "id": _unversioned(kind), "versioned_id": kind, "settings": settings, "enabled": True,
            "muted": False, "volume": 1.0, "balance": 0.5, "mixers": 255 if kind == "ffmpeg_source" else 0,
            "flags": 0, "sync": 0, "monitoring_type": 0, "private_settings": {}, "prev_ver": OBS_VERSION,
            "hotkeys": {}, "filters": [], **extra}


def _item(index: int, spec: dict[str, Any]) -> dict[str, Any]:
    x, y = spec.get("position", [0, 0])
    sx, sy = spec.get("scale", [1, 1])
    return {"name": spec["source"], "id": index, "visible": spec.get("visible", True), "locked": False,
            "pos": {"x": float(x), "y": float(y)}, "scale": {"x": float(sx), "y": float(sy)},
            "rot": float(spec.get("rotation", 0)), "align": 5, "bounds_type": 0, "bounds_align": 0,
            "bounds": {"x": 0.0, "y": 0.0}, "crop_left": 0, "crop_top": 0, "crop_right": 0, "crop_bottom": 0,
            "scale_filter": "disable", "blend_method": "default", "blend_type": "normal",
            "private_settings": {}, "group_item_backup": False}


def _filter(spec: dict[str, Any]) -> dict[str, Any]:
    kind = FILTER_KINDS.get(spec["kind"], spec["kind"])
    return _source(spec["name"], kind, _settings(spec.get("settings", {})), enabled=spec.get("enabled", True))


def collection_dict(spec: dict[str, Any]) -> dict[str, Any]:
    """The OBS collection for ``spec`` (see the module docstring)."""
    sources = []
    for data in spec.get("inputs", []):
        kind = INPUT_KINDS.get(data["kind"], data["kind"])
        source = _source(data["name"], kind, _settings(data.get("settings", {})),
                         filters=[_filter(f) for f in data.get("filters", [])],
                         muted=data.get("muted", False), volume=volume_from_db(data.get("volume_db", 0.0)))
        sources.append(source)
    for scene in spec["scenes"]:
        items = [_item(i, item) for i, item in enumerate(scene.get("items", []), start=1)]
        sources.append(_source(scene["name"], "scene", {"items": items, "id_counter": len(items),
                                                         "custom_size": False},
                               filters=[_filter(f) for f in scene.get("filters", [])]))
    current = spec.get("current_scene", spec["scenes"][0]["name"])
    return {"name": spec.get("name", "ASIL"), "current_scene": current, "current_program_scene": current,
            "scene_order": [{"name": s["name"]} for s in spec["scenes"]], "sources": sources, "groups": [],
            "transitions": [], "current_transition": "Fade", "transition_duration": 300,
            "quick_transitions": [], "saved_projectors": [], "modules": {}, "preview_locked": False,
            "scaling_enabled": False, "scaling_level": 0, "scaling_off_x": 0.0, "scaling_off_y": 0.0}


def build_collection(spec: dict[str, Any]) -> bytes:
    return (json.dumps(collection_dict(spec), indent=4) + "\n").encode("utf-8")


def volume_from_db(db: float) -> float:
    return 0.0 if db <= -100 else math.pow(10, db / 20)


def build_collection_file(item: SetupFile, task: Task, target: Path) -> None:
    if not isinstance(item.content, dict) or not item.content.get("scenes"):
        raise SetupError(f"Task {task.id}: obs_collection {item.path!r} needs content with 'scenes'.")
    atomic_write(target, build_collection(item.content))


MEDIA_KINDS = {
    # kind: (ffmpeg input args, output args); a short clip with sound, or a still image.
    "video": (["-f", "lavfi", "-i", "testsrc=size=320x180:rate=15", "-f", "lavfi", "-i", "sine=frequency=440"],
              ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]),
    "image": (["-f", "lavfi", "-i", "color=c={color}:size=160x90"], ["-frames:v", "1"]),
}


def build_media_file(item: SetupFile, task: Task, target: Path) -> None:
    """A small clip (``{"kind": "video", "seconds": 2}``) or PNG (``{"kind": "image", "color": "red"}``) by ffmpeg."""
    spec = item.content if isinstance(item.content, dict) else {}
    try:
        make_media(target, spec)
    except ValueError as exc:
        raise SetupError(f"Task {task.id}: obs_media {item.path!r}: {exc}") from None


def make_media(target: Path, spec: dict[str, Any]) -> None:
    """Write the media file ``spec`` describes to ``target`` (built once per spec, then copied)."""
    kind = spec.get("kind", "video")
    if kind not in MEDIA_KINDS or shutil.which("ffmpeg") is None:
        raise ValueError("needs kind video|image and ffmpeg installed")
    digest = hashlib.sha256(json.dumps([spec, target.suffix], sort_keys=True).encode()).hexdigest()[:20]
    cached = cache_dir() / "obs-media" / f"{digest}{target.suffix}"
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        inputs, outputs = MEDIA_KINDS[kind]
        inputs = [a.format(color=spec.get("color", "red")) for a in inputs]
        seconds = ["-t", str(spec.get("seconds", 2))] if kind == "video" else []
        staged = cached.with_name(f".{cached.stem}.part{target.suffix}")
        done = subprocess.run(["ffmpeg", "-v", "error", "-y", *inputs, *outputs, *seconds, str(staged)],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        if done.returncode != 0 or not staged.is_file():
            raise ValueError(f"ffmpeg failed: {done.stderr.strip()[-200:]}")
        staged.replace(cached)
    atomic_write(target, cached.read_bytes())


def _video_fields(spec: Any) -> dict[str, int]:
    (base_w, base_h), (out_w, out_h) = spec["base"], spec["output"]
    return {"baseWidth": base_w, "baseHeight": base_h, "outputWidth": out_w, "outputHeight": out_h,
            "fpsNumerator": spec["fps"], "fpsDenominator": 1}


def build_video_file(item: SetupFile, task: Task, target: Path) -> None:
    """Video settings beside a collection, from ``{"base": [w, h], "output": [w, h], "fps": n}``."""
    spec = item.content if isinstance(item.content, dict) else {}
    try:
        video = _video_fields(spec)
    except (KeyError, TypeError, ValueError):
        raise SetupError(f"Task {task.id}: obs_video {item.path!r} needs content with base [w, h], output [w, h] "
                         "and fps.") from None
    atomic_write(target, video_bytes(video))
    try:
        load_video(target, item.path)
    except DocumentError as exc:
        target.unlink()
        raise SetupError(f"Task {task.id}: {exc.message}") from None


def build_config_file(item: SetupFile, task: Task, target: Path) -> None:
    """The other collections, profiles and studio mode beside a collection (``<stem>.config.json``), from
    ``{"profile": name, "profiles": {name: {"base": [w, h], "output": [w, h], "fps": n}}, "collections":
    {name: a collection spec}, "studio_mode": bool}`` (every key optional)."""
    spec = item.content if isinstance(item.content, dict) else {}
    try:
        config = {**default_config(), "profile": spec.get("profile", DEFAULT_PROFILE),
                  "studio_mode": spec.get("studio_mode", False),
                  "profiles": {name: _video_fields(v) for name, v in spec.get("profiles", {}).items()},
                  "collections": {name: collection_dict({**c, "name": name})
                                  for name, c in spec.get("collections", {}).items()}}
    except (KeyError, TypeError, ValueError, AttributeError):
        raise SetupError(f"Task {task.id}: obs_config {item.path!r} needs profiles with base, output and fps and "
                         "collections with scenes.") from None
    atomic_write(target, config_bytes(config))
    try:
        load_config(target, item.path)
    except DocumentError as exc:
        target.unlink()
        raise SetupError(f"Task {task.id}: {exc.message}") from None
