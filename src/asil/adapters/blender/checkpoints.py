"""Checkpoint types that read a .blend through the Blender adapter (its warm Blender).

Targets name what to read: an object (``"Cube"``), an object field (``"Cube.location"``,
``"Cube.light.energy"``), a material field (``"Red.metallic"``), a modifier setting
(``"Cube/Bevel.width"``), a keyframed property (``"Cube.location"``) or a scene setting
(``"frame_end"``, ``"render.resolution_x"``), or a query that objects are matched by
(``"type=MESH; dimensions~2,2,3"``) without naming them.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.blender.query import QueryError, matching_names
from asil.evaluate.checkpoints import (
    Checkpoint,
    CheckpointUnreadable,
    EvalContext,
    checkpoint_type,
    dig,
    entry,
    png_size,
    require,
)


def _scene(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    from asil.adapters.blender.adapter import BlenderAdapter

    adapter = ctx.adapter("blender", require(cp.document, "document (.blend path)"))
    assert isinstance(adapter, BlenderAdapter)
    data: dict[str, Any] = adapter.scene_data()
    return data


def _objects(ctx: EvalContext, cp: Checkpoint) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in _scene(ctx, cp)["objects"]}


def _object(ctx: EvalContext, cp: Checkpoint, name: str) -> dict[str, Any]:
    return entry(_objects(ctx, cp), name, "object")


def _split(cp: Checkpoint, sep: str = ".") -> tuple[str, list[str]]:
    head, _, rest = require(cp.target, "target").partition(sep)
    return head, rest.split(".") if rest else []


@checkpoint_type("blender_object_exists")
def object_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when an object named ``target`` exists."""
    return require(cp.target, "object name") in _objects(ctx, cp)


@checkpoint_type("blender_object_value", default_compare="approx")
def object_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """An object field: ``Cube.location`` (rotation in degrees), ``Lamp.light.energy``, ``Cube.parent`` ..."""
    name, path = _split(cp)
    obj = _object(ctx, cp, name)
    return dig(obj, path, f"object {name!r}")


@checkpoint_type("blender_material_value", default_compare="approx")
def material_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A material field: ``Red.base_color`` (RGBA), ``Red.metallic``, ``Red.roughness``."""
    name, path = _split(cp)
    return dig(_scene(ctx, cp)["materials"], [name, *path], "the scene's materials")


@checkpoint_type("blender_modifier_value", default_compare="approx")
def modifier_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A modifier field, ``Object/Modifier.setting`` (``Cube/Bevel.width``, ``Cube/Array.type``)."""
    name, _, rest = require(cp.target, "target").partition("/")
    modifier, _, field = rest.partition(".")
    obj = _object(ctx, cp, name)
    found = {m["name"]: m for m in obj["modifiers"]}
    if modifier not in found:
        raise CheckpointUnreadable(f"object {name!r} has no modifier {modifier!r}")
    return dig(found[modifier], [field or "type"], f"modifier {modifier!r}")


@checkpoint_type("blender_modifier_types")
def modifier_types(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The types of object ``target``'s modifiers, in stack order."""
    obj = _object(ctx, cp, require(cp.target, "object name"))
    return [m["type"] for m in obj["modifiers"]]


@checkpoint_type("blender_keyframes")
def keyframes(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """The frames keyed on ``Object.property`` (location, rotation, scale); [] when none."""
    name, path = _split(cp)
    obj = _object(ctx, cp, name)
    frames: list[int] = obj["keyframes"].get(".".join(path), [])
    return frames


@checkpoint_type("blender_scene_value", default_compare="exact")
def scene_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A scene setting: ``frame_start``, ``frame_end``, ``fps``, ``camera``, ``render.engine`` ..."""
    return dig(_scene(ctx, cp)["settings"], require(cp.target, "setting").split("."), "the scene")


@checkpoint_type("blender_object_count")
def object_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many objects of type ``target`` (MESH, LIGHT, CAMERA, EMPTY) there are; all when omitted."""
    return sum(1 for o in _objects(ctx, cp).values() if cp.target is None or o["type"] == cp.target)


@checkpoint_type("blender_matching_objects", default_compare="exact")
def matching_objects(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many objects satisfy the query ``target`` (``"type=MESH; dimensions~2,2,3; materials=Steel"``,
    ``"name^=Crate"``; see :mod:`asil.adapters.blender.query`); ``~`` uses the checkpoint's tolerance."""
    try:
        return len(matching_names(_objects(ctx, cp), require(cp.target, "object query"), cp.tolerance))
    except QueryError as exc:
        raise CheckpointUnreadable(f"bad object query {cp.target!r}: {exc}") from None


@checkpoint_type("blender_image_size")
def image_size(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """[width, height] of the PNG at workspace path ``target``."""
    path = ctx.workspace.resolve(require(cp.target, "image path"))
    return png_size(path, path.name)
