"""Blender's setup-file builder: a .blend file built by a one-shot Blender from a scene spec, once, then copied."""

from __future__ import annotations

import shutil
from pathlib import Path

from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import cache_dir


def build_blend_file(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: a scene spec object (objects, materials, modifiers, ...).

    With ``"factory_scene": true`` the spec's objects are added to Blender's factory start-up scene
    (Cube with its Material, Light, Camera; Eevee at 1920x1080, frames 1-250), as a person who opens
    Blender finds it, instead of to an empty scene.
    """
    from asil.adapters.blender.scene import cached_blend

    if not isinstance(item.content, dict):
        raise SetupError(f"Task {task.id}: blend file {item.path!r} needs content: a scene spec object.")
    if not isinstance(item.content.get("factory_scene", False), bool):
        raise SetupError(f"Task {task.id}: factory_scene of {item.path!r} must be true or false.")
    shutil.copyfile(cached_blend(item.content, cache_dir()), target)
