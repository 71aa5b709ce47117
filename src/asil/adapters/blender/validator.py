"""The independent raw validator for Blender tasks: a second read path beside the adapter.

A *separate* one-shot ``blender -b FILE --python-expr DUMP`` prints the saved scene as JSON
(its own small dump, sharing no code with the adapter's server script); the verdicts are taken
from that dump here. PNG sizes are read from the file header. Anything unreadable is a failed
checkpoint (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
from pathlib import Path
from typing import Any

from asil.adapters.blender.query import matching_names
from asil.apps.blender import one_shot
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

MARKER = "<<ASIL-RAW-SCENE>>"
DUMP = """
import bpy, json, math
def principled(m):
    if m.node_tree is None:
        return None
    hits = [n for n in m.node_tree.nodes if n.bl_idname == 'ShaderNodeBsdfPrincipled']
    return hits[0] if hits else None
mats = {}
for m in bpy.data.materials:
    p = principled(m) if m.use_nodes else None
    if p is None:
        mats[m.name] = {'base_color': list(m.diffuse_color), 'metallic': m.metallic, 'roughness': m.roughness}
    else:
        mats[m.name] = {'base_color': list(p.inputs['Base Color'].default_value),
                        'metallic': p.inputs['Metallic'].default_value,
                        'roughness': p.inputs['Roughness'].default_value}
FIELDS = ('levels', 'render_levels', 'width', 'segments', 'count', 'thickness', 'ratio', 'use_axis',
          'relative_offset_displace')
def plain(v):
    return v if isinstance(v, (int, float, str, bool)) else list(v)
objs = {}
for o in bpy.data.objects:
    keys = {}
    if o.animation_data and o.animation_data.action:
        for fc in o.animation_data.action.fcurves:
            keys.setdefault(fc.data_path, set()).update(round(k.co.x) for k in fc.keyframe_points)
    d = {'type': o.type, 'location': list(o.location), 'rotation': [math.degrees(a) for a in o.rotation_euler],
         'scale': list(o.scale), 'dimensions': list(o.dimensions), 'parent': o.parent.name if o.parent else None,
         'collections': [c.name for c in o.users_collection],
         'mesh': {'vertices': len(o.data.vertices), 'polygons': len(o.data.polygons)} if o.type == 'MESH' else None,
         'materials': [s.material.name for s in o.material_slots if s.material is not None],
         'keys': {k: sorted(v) for k, v in keys.items()},
         'modifiers': [{'name': m.name, 'type': m.type, **{a: plain(getattr(m, a)) for a in FIELDS if hasattr(m, a)}}
                       for m in o.modifiers]}
    if o.type == 'LIGHT':
        d['light'] = {'type': o.data.type, 'energy': o.data.energy, 'color': list(o.data.color)}
    if o.type == 'CAMERA':
        d['camera'] = {'lens': o.data.lens, 'type': o.data.type}
    objs[o.name] = d
sc = bpy.context.scene
r = sc.render
settings = {'frame_start': sc.frame_start, 'frame_end': sc.frame_end, 'frame_current': sc.frame_current,
            'fps': r.fps, 'camera': sc.camera.name if sc.camera else None,
            'render': {'engine': r.engine, 'resolution_x': r.resolution_x, 'resolution_y': r.resolution_y,
                       'resolution_percentage': r.resolution_percentage,
                       'samples': sc.cycles.samples if r.engine == 'CYCLES' else sc.eevee.taa_render_samples,
                       'file_format': r.image_settings.file_format}}
print(MARKER + json.dumps({'materials': mats, 'objects': objs, 'settings': settings, 'file': bpy.data.filepath}))
""".replace("MARKER", repr(MARKER))
_DUMPS: dict[str, dict[str, Any]] = {}
PROPERTY_PATHS = {"location": "location", "rotation": "rotation_euler", "scale": "scale"}


class RawBlendError(Exception):
    """The file cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the saved .blend; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawBlendError, KeyError, ValueError, TypeError, IndexError, OSError, subprocess.SubprocessError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def dump_scene(path: Path) -> dict[str, Any]:
    """The scene of the .blend at ``path`` as read by a fresh Blender (cached by file content)."""
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if key not in _DUMPS:
        done = one_shot([str(path), "--python-expr", DUMP])
        lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
        if not lines:
            raise RawBlendError("the scene dump did not print")
        data: dict[str, Any] = json.loads(lines[0][len(MARKER):])
        if not data["file"]:
            raise RawBlendError("Blender did not load the file")
        _DUMPS[key] = data
    return _DUMPS[key]


def _walk(data: Any, keys: list[str]) -> Any:
    for key in keys:
        data = data[key]
    return data


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    if cp.type == "blender_image_size":
        head = Path(workspace.root, str(cp.target)).read_bytes()[:24]
        if head[:8] != b"\x89PNG\r\n\x1a\n":
            raise RawBlendError("not a PNG")
        return list(struct.unpack(">II", head[16:24]))
    scene = dump_scene(Path(workspace.root, str(cp.document)))
    objects, target = scene["objects"], str(cp.target)
    if cp.type == "blender_object_exists":
        return target in objects
    if cp.type == "blender_matching_objects":
        return len(matching_names(objects, target, cp.tolerance))
    if cp.type == "blender_object_count":
        return sum(1 for o in objects.values() if cp.target is None or o["type"] == cp.target)
    if cp.type == "blender_scene_value":
        return _walk(scene["settings"], target.split("."))
    if cp.type == "blender_material_value":
        return _walk(scene["materials"], target.split(".", 1)[:1] + target.split(".")[1:])
    if cp.type == "blender_modifier_types":
        return [m["type"] for m in objects[target]["modifiers"]]
    if cp.type == "blender_modifier_value":
        name, _, rest = target.partition("/")
        modifier, _, field = rest.partition(".")
        (found,) = [m for m in objects[name]["modifiers"] if m["name"] == modifier]
        return found[field or "type"]
    name, _, field = target.partition(".")
    if cp.type == "blender_keyframes":
        return objects[name]["keys"].get(PROPERTY_PATHS[field], [])
    if cp.type == "blender_object_value":
        return _walk(objects[name], field.split("."))
    raise RawBlendError(f"unknown checkpoint type {cp.type!r}")
