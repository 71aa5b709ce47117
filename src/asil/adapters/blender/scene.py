"""Building .blend files from JSON scene specs with a one-shot Blender (task set-up and samples)."""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.apps.blender import one_shot, server_script
from asil.protocol import AsilError
from asil.workspace import commit_file


class SceneBuildError(AsilError):
    code = "bad_setup"


def build_blend(target: Path, spec: dict[str, Any], *, default_scene: bool = False) -> None:
    """Write ``target`` (atomically) holding the scene that ``spec`` describes.

    ``spec``: ``{"objects": [{"name", "kind", "location", "rotation", "scale", "material": {...},
    "modifiers": [...], "light": {...}, "lens", "collection", "parent", "keyframes": [...]}],
    "scene": {"frames": {...}, "render": {...}, "camera": name}, "factory_scene": bool}``; objects take
    add_object's shape parameters (``radius``, ``depth``, ``size`` ...). ``default_scene`` (or the spec's
    ``factory_scene``) keeps Blender's factory cube, light and camera.
    """
    builder = server_script().with_name("asil_blender_build.py")
    with tempfile.TemporaryDirectory(prefix="asil-blend-build-") as scratch:
        spec_path = Path(scratch) / "spec.json"
        spec_path.write_text(json.dumps({**spec, "keep_default_scene": default_scene}), encoding="utf-8")
        out = Path(scratch) / "scene.blend"
        done = one_shot(["--python", str(builder), "--", str(spec_path), str(out)])
        if not out.is_file():
            tail = "; ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
            raise SceneBuildError(f"Blender could not build the scene: {tail}")
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = target.with_name(f".{target.name}.asil-build")
        shutil.copyfile(out, staged)
        commit_file(staged, target)


def cached_blend(spec: dict[str, Any], cache: Path) -> Path:
    """The .blend for ``spec``, built once per content hash under ``cache``."""
    hasher = hashlib.sha256(json.dumps(spec, sort_keys=True).encode())
    for script in sorted(server_script().parent.glob("*.py")):  # a changed builder builds afresh
        hasher.update(script.read_bytes())
    digest = hasher.hexdigest()[:24]
    cached = cache / "blend" / f"{digest}.blend"
    if not cached.is_file():
        build_blend(cached, spec)
    return cached
