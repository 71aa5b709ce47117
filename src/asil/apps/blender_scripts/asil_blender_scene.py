"""Reading a Blender scene as plain data (bpy + stdlib), for the ASIL server script inside Blender.

Rounded for agents: 4 decimals, rotations in degrees. The raw validator has its own dump.
"""

import math

import bpy

MODIFIER_SETTINGS = {
    "SUBSURF": ("levels", "render_levels", "quality"),
    "BEVEL": ("width", "segments", "limit_method", "affect"),
    "ARRAY": ("count", "relative_offset_displace", "use_relative_offset", "use_constant_offset",
              "constant_offset_displace"),
    "MIRROR": ("use_axis", "use_clip", "use_bisect_axis"),
    "SOLIDIFY": ("thickness", "offset", "use_even_offset"),
    "DECIMATE": ("ratio", "decimate_type"),
    "WIREFRAME": ("thickness", "use_replace"),
    "TRIANGULATE": ("quad_method", "min_vertices"),
}


def _r(value, digits=4):
    value = round(float(value), digits)
    return 0.0 if value == 0 else value


def _vec(values, digits=4):
    return [_r(v, digits) for v in values]


def _material(mat):
    info = {"name": mat.name, "use_nodes": bool(mat.use_nodes)}
    bsdf = principled_bsdf(mat)
    if bsdf is not None:
        info["base_color"] = _vec(bsdf.inputs["Base Color"].default_value, 4)
        info["metallic"] = _r(bsdf.inputs["Metallic"].default_value)
        info["roughness"] = _r(bsdf.inputs["Roughness"].default_value)
    else:
        info["base_color"] = _vec(mat.diffuse_color, 4)
        info["metallic"] = _r(mat.metallic)
        info["roughness"] = _r(mat.roughness)
    return info


def principled_bsdf(mat):
    if not mat.use_nodes or mat.node_tree is None:
        return None
    for node in mat.node_tree.nodes:
        if node.type == "BSDF_PRINCIPLED":
            return node
    return None


def _setting(value):
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return _r(value)
    if hasattr(value, "__len__"):
        return [_setting(v) for v in value]
    return str(value)


def _modifier(mod):
    info = {"name": mod.name, "type": mod.type, "show_viewport": bool(mod.show_viewport)}
    for key in MODIFIER_SETTINGS.get(mod.type, ()):
        if hasattr(mod, key):
            info[key] = _setting(getattr(mod, key))
    return info


def _keyframes(obj):
    anim = obj.animation_data
    if anim is None or anim.action is None:
        return {}
    keys = {}
    for curve in anim.action.fcurves:
        prop = {"rotation_euler": "rotation"}.get(curve.data_path, curve.data_path)
        frames = keys.setdefault(prop, set())
        frames.update(int(round(p.co[0])) for p in curve.keyframe_points)
    return {prop: sorted(frames) for prop, frames in sorted(keys.items())}


def _object(obj):
    info = {
        "name": obj.name, "type": obj.type,
        "location": _vec(obj.location),
        "rotation": [_r(math.degrees(a), 3) for a in obj.rotation_euler],
        "scale": _vec(obj.scale),
        "dimensions": _vec(obj.dimensions),
        "parent": obj.parent.name if obj.parent else None,
        "collections": [c.name for c in obj.users_collection],
        "materials": [s.material.name for s in obj.material_slots if s.material],
        "modifiers": [_modifier(m) for m in obj.modifiers],
        "keyframes": _keyframes(obj),
        "hidden": bool(obj.hide_render),
    }
    if obj.type == "LIGHT":
        light = obj.data
        info["light"] = {"type": light.type, "energy": _r(light.energy), "color": _vec(light.color)}
    elif obj.type == "CAMERA":
        info["camera"] = {"lens": _r(obj.data.lens), "type": obj.data.type}
    elif obj.type == "MESH":
        info["mesh"] = {"vertices": len(obj.data.vertices), "polygons": len(obj.data.polygons)}
    return info


def _scene_settings():
    scene = bpy.context.scene
    render = scene.render
    samples = scene.cycles.samples if render.engine == "CYCLES" else (
        scene.eevee.taa_render_samples if render.engine == "BLENDER_EEVEE" else None)
    return {
        "name": scene.name,
        "frame_start": scene.frame_start, "frame_end": scene.frame_end, "frame_current": scene.frame_current,
        "fps": render.fps,
        "camera": scene.camera.name if scene.camera else None,
        "render": {"engine": render.engine, "resolution_x": render.resolution_x,
                   "resolution_y": render.resolution_y, "resolution_percentage": render.resolution_percentage,
                   "samples": samples, "file_format": render.image_settings.file_format},
        "collections": {c.name: sorted(o.name for o in c.objects) for c in bpy.data.collections},
    }


def scene_data(params):
    """The whole scene as plain data (checkpoints), or a window of objects (observation)."""
    objects = sorted(bpy.data.objects, key=lambda o: o.name)
    total = len(objects)
    offset = params.get("offset", 0)
    limit = params.get("limit", total)
    return {
        "settings": _scene_settings(),
        "objects": [_object(o) for o in objects[offset:offset + limit]],
        "object_names": [o.name for o in objects],
        "materials": {m.name: _material(m) for m in bpy.data.materials},
        "total": total,
    }
