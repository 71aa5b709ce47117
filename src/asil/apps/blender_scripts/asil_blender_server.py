"""ASIL's command loop inside Blender (bpy + stdlib only; shipped as package data).

Started as ``blender -b --factory-startup FILE --python THIS -- SOCKET``. It connects to the
adapter's Unix socket and serves one JSON request per line on Blender's main thread:
``{"op": name, "params": {...}, "dry": bool}`` → ``{"ok": true, "result": ...}`` or
``{"ok": false, "kind": "invalid"|"failed", "message": ..., "hint": ...}``. With ``dry`` an
action is only checked (names exist, values fit) and nothing changes.
"""

import json
import math
import os
import socket
import sys
import traceback

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asil_blender_scene import MODIFIER_SETTINGS, principled_bsdf, scene_data  # noqa: E402

PRIMITIVES = {
    "cube": "primitive_cube_add", "uv_sphere": "primitive_uv_sphere_add", "ico_sphere": "primitive_ico_sphere_add",
    "cylinder": "primitive_cylinder_add", "cone": "primitive_cone_add", "torus": "primitive_torus_add",
    "plane": "primitive_plane_add", "monkey": "primitive_monkey_add",
}
TRANSFORMS = ("location", "rotation", "scale")
# The operators' own shape parameters (the adapter checks which kind takes which before a request comes).
SHAPE_KEYS = ("size", "radius", "depth", "segments", "ring_count", "subdivisions", "vertices", "radius1", "radius2",
              "major_radius", "minor_radius", "major_segments", "minor_segments")


class Invalid(Exception):
    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


def _obj(name):
    obj = bpy.data.objects.get(name)
    if obj is None:
        names = sorted(o.name for o in bpy.data.objects)
        shown = ", ".join(names[:10]) + (" …" if len(names) > 10 else "")
        raise Invalid(f"There is no object named {name!r}.", f"Objects: {shown or 'none'}.")
    return obj


def _free_name(name, collection):
    if collection.get(name) is not None:
        raise Invalid(f"The name {name!r} is already taken.", "Pick a name no other object uses.")


# ------------------------------------------------------------------ changing the scene


def _check_transform(params):
    for key in TRANSFORMS:
        value = params.get(key)
        if value is not None and (len(value) != 3 or not all(isinstance(v, (int, float)) for v in value)):
            raise Invalid(f"{key} must be a list of three numbers.", "For example [1.0, 0.0, 2.5].")


def _set_transform(obj, params):
    if params.get("location") is not None:
        obj.location = params["location"]
    if params.get("rotation") is not None:
        obj.rotation_euler = [math.radians(a) for a in params["rotation"]]
    if params.get("scale") is not None:
        obj.scale = params["scale"]


def op_add_object(params, dry):
    kind, name = params["kind"], params.get("name")
    if name:
        _free_name(name, bpy.data.objects)
    _check_transform(params)
    if dry:
        return []
    if kind in PRIMITIVES:
        getattr(bpy.ops.mesh, PRIMITIVES[kind])(**shape_of(params))
        obj = bpy.context.active_object
    elif kind == "empty":
        obj = bpy.data.objects.new(name or "Empty", None)
    elif kind == "camera":
        obj = bpy.data.objects.new(name or "Camera", bpy.data.cameras.new(name or "Camera"))
    else:  # light
        light_type = params.get("light_type") or "POINT"
        obj = bpy.data.objects.new(name or "Light", bpy.data.lights.new(name or "Light", light_type))
    if obj.name not in bpy.context.scene.collection.all_objects:
        bpy.context.collection.objects.link(obj)
    if name:
        obj.name = name
        if obj.data is not None and kind in PRIMITIVES:
            obj.data.name = name
    _set_transform(obj, params)
    return [obj.name]


def shape_of(params):
    return {key: params[key] for key in SHAPE_KEYS if params.get(key) is not None}


def op_delete_object(params, dry):
    obj = _obj(params["object"])
    if dry:
        return []
    name = obj.name
    bpy.data.objects.remove(obj, do_unlink=True)
    return [name]


def op_duplicate_object(params, dry):
    obj = _obj(params["object"])
    if params.get("name"):
        _free_name(params["name"], bpy.data.objects)
    _check_transform(params)
    if dry:
        return []
    copy = obj.copy()
    if obj.data is not None and not params.get("linked"):
        copy.data = obj.data.copy()
    for collection in obj.users_collection:
        collection.objects.link(copy)
    if params.get("name"):
        copy.name = params["name"]
    _set_transform(copy, params)
    return [copy.name]


def op_rename_object(params, dry):
    obj = _obj(params["object"])
    if params["name"] != obj.name:
        _free_name(params["name"], bpy.data.objects)
    if dry:
        return []
    old = obj.name
    obj.name = params["name"]
    return [old, obj.name]


def op_set_transform(params, dry):
    obj = _obj(params["object"])
    _check_transform(params)
    if dry:
        return []
    _set_transform(obj, params)
    return [obj.name]


def op_set_parent(params, dry):
    obj = _obj(params["object"])
    parent = _obj(params["parent"]) if params.get("parent") else None
    walker = parent
    while walker is not None:
        if walker == obj:
            raise Invalid(f"{params['parent']!r} cannot be the parent of {obj.name!r}: that makes a loop.",
                          "Choose a parent that is not the object or one of its children.")
        walker = walker.parent
    if dry:
        return []
    world = obj.matrix_world.copy()
    obj.parent = parent
    if params.get("keep_transform", True):
        obj.matrix_world = world
    return [obj.name]


def _edit_material(mat, params):
    bsdf = principled_bsdf(mat)
    if bsdf is None:
        mat.use_nodes = True
        bsdf = principled_bsdf(mat)
    color = params.get("base_color")
    if color is not None:
        rgba = list(color) + [1.0] * (4 - len(color))
        bsdf.inputs["Base Color"].default_value = rgba
        mat.diffuse_color = rgba
    if params.get("metallic") is not None:
        bsdf.inputs["Metallic"].default_value = params["metallic"]
        mat.metallic = params["metallic"]
    if params.get("roughness") is not None:
        bsdf.inputs["Roughness"].default_value = params["roughness"]
        mat.roughness = params["roughness"]


def op_assign_material(params, dry):
    obj = _obj(params["object"])
    if obj.type not in ("MESH", "CURVE", "SURFACE", "META", "FONT"):
        raise Invalid(f"{obj.name!r} is a {obj.type.lower()} object, which cannot carry materials.",
                      "Assign materials to mesh objects.")
    if dry:
        return []
    mat = bpy.data.materials.get(params["material"])
    if mat is None:
        mat = bpy.data.materials.new(params["material"])
        mat.use_nodes = True
    _edit_material(mat, params)
    if params.get("replace", True) and obj.material_slots:
        obj.material_slots[0].material = mat
    else:
        obj.data.materials.append(mat)
    return [obj.name]


def op_edit_material(params, dry):
    mat = bpy.data.materials.get(params["material"])
    if mat is None:
        names = ", ".join(sorted(m.name for m in bpy.data.materials)) or "none"
        raise Invalid(f"There is no material named {params['material']!r}.", f"Materials: {names}.")
    if dry:
        return []
    _edit_material(mat, params)
    return [o.name for o in bpy.data.objects if any(s.material == mat for s in o.material_slots)]


def _apply_settings(mod, settings, dry):
    allowed = MODIFIER_SETTINGS.get(mod.type, ())
    for key, value in settings.items():
        if key not in allowed:
            raise Invalid(f"A {mod.type} modifier has no setting {key!r} here.",
                          f"Settings of {mod.type}: {', '.join(allowed)}.")
        if dry:
            continue
        try:
            setattr(mod, key, value)
        except (TypeError, ValueError, AttributeError) as exc:
            raise Invalid(f"The value {value!r} does not fit setting {key!r} of a {mod.type} modifier: {exc}.") from None


def _modifier_of(obj, name):
    mod = obj.modifiers.get(name)
    if mod is None:
        names = ", ".join(m.name for m in obj.modifiers) or "none"
        raise Invalid(f"{obj.name!r} has no modifier named {name!r}.", f"Its modifiers: {names}.")
    return mod


def op_add_modifier(params, dry):
    obj = _obj(params["object"])
    if obj.type != "MESH":
        raise Invalid(f"{obj.name!r} is a {obj.type.lower()} object; modifiers here go on meshes.")
    kind = params["type"]
    name = params.get("name") or kind.title()
    if obj.modifiers.get(name) is not None:
        raise Invalid(f"{obj.name!r} already has a modifier named {name!r}.", "Give the new modifier another name.")
    if dry:
        bad = [k for k in params.get("settings", {}) if k not in MODIFIER_SETTINGS[kind]]
        if bad:
            raise Invalid(f"A {kind} modifier has no setting {bad[0]!r} here.",
                          f"Settings of {kind}: {', '.join(MODIFIER_SETTINGS[kind])}.")
        return []
    mod = obj.modifiers.new(name, kind)
    _apply_settings(mod, params.get("settings", {}), False)
    return [obj.name]


def op_edit_modifier(params, dry):
    obj = _obj(params["object"])
    mod = _modifier_of(obj, params["modifier"])
    _apply_settings(mod, params["settings"], dry)
    return [] if dry else [obj.name]


def op_remove_modifier(params, dry):
    obj = _obj(params["object"])
    mod = _modifier_of(obj, params["modifier"])
    if dry:
        return []
    obj.modifiers.remove(mod)
    return [obj.name]


def _obj_of_type(name, kind):
    """The object called ``name``, which must be of Blender type ``kind`` (LIGHT, CAMERA...)."""
    obj = _obj(name)
    if obj.type != kind:
        noun = kind.lower()
        raise Invalid(f"{obj.name!r} is not a {noun}.", f"Name a {noun} object (type {kind}).")
    return obj


def op_set_light(params, dry):
    obj = _obj_of_type(params["object"], "LIGHT")
    if dry:
        return []
    if params.get("light_type"):
        obj.data.type = params["light_type"]
    if params.get("energy") is not None:
        obj.data.energy = params["energy"]
    if params.get("color") is not None:
        obj.data.color = params["color"]
    return [obj.name]


def op_set_camera(params, dry):
    obj = _obj_of_type(params["object"], "CAMERA")
    if dry:
        return []
    if params.get("lens") is not None:
        obj.data.lens = params["lens"]
    if params.get("active"):
        bpy.context.scene.camera = obj
    return [obj.name]


def op_insert_keyframe(params, dry):
    obj = _obj(params["object"])
    prop = params["property"]
    if params.get("value") is not None:
        _check_transform({prop: params["value"]})
    if dry:
        return []
    if params.get("value") is not None:
        _set_transform(obj, {prop: params["value"]})
    path = {"rotation": "rotation_euler"}.get(prop, prop)
    obj.keyframe_insert(data_path=path, frame=params["frame"])
    return [obj.name]


def op_set_frame_range(params, dry):
    scene = bpy.context.scene
    start = params.get("start", scene.frame_start)
    end = params.get("end", scene.frame_end)
    if end < start:
        raise Invalid(f"The frame range would end ({end}) before it starts ({start}).", "Give end >= start.")
    if dry:
        return []
    scene.frame_start, scene.frame_end = start, end
    if params.get("fps") is not None:
        scene.render.fps = params["fps"]
    if params.get("current") is not None:
        scene.frame_current = params["current"]
    return ["@scene"]


def op_set_render(params, dry):
    if dry:
        return []
    scene = bpy.context.scene
    render = scene.render
    if params.get("engine"):
        render.engine = params["engine"]
    for key in ("resolution_x", "resolution_y", "resolution_percentage"):
        if params.get(key) is not None:
            setattr(render, key, params[key])
    if params.get("samples") is not None:
        if render.engine == "CYCLES":
            scene.cycles.samples = params["samples"]
        else:
            scene.eevee.taa_render_samples = params["samples"]
    if params.get("file_format"):
        render.image_settings.file_format = params["file_format"]
    return ["@scene"]


def op_move_to_collection(params, dry):
    obj = _obj(params["object"])
    if dry:
        return []
    target = bpy.data.collections.get(params["collection"])
    if target is None:
        target = bpy.data.collections.new(params["collection"])
        bpy.context.scene.collection.children.link(target)
    for collection in list(obj.users_collection):
        collection.objects.unlink(obj)
    target.objects.link(obj)
    return [obj.name]


def op_render(params, dry):
    """Render a still to ``path`` with the given size and engine; the scene's settings are put back."""
    scene = bpy.context.scene
    if scene.camera is None and not params.get("temp_camera"):
        raise Invalid("The scene has no active camera to render from.", "Add a camera and make it active first.")
    if dry:
        return []
    render = scene.render
    saved = (render.engine, render.resolution_x, render.resolution_y, render.resolution_percentage,
             render.filepath, render.image_settings.file_format, scene.frame_current, scene.cycles.samples,
             scene.cycles.device, scene.cycles.use_denoising, scene.camera)
    temp = None
    try:
        if scene.camera is None:
            temp = bpy.data.objects.new("asil-temp-camera", bpy.data.cameras.new("asil-temp-camera"))
            scene.collection.objects.link(temp)
            temp.location, temp.rotation_euler = (7.4, -6.9, 5.0), (math.radians(63), 0, math.radians(47))
            scene.camera = temp
        render.engine = params.get("engine") or render.engine
        render.resolution_x, render.resolution_y = params["width"], params["height"]
        render.resolution_percentage = 100
        render.image_settings.file_format = "PNG"
        render.filepath = params["path"]
        if params.get("frame") is not None:
            scene.frame_set(params["frame"])
        if render.engine == "CYCLES":  # fast and deterministic on a CPU-only machine
            scene.cycles.device, scene.cycles.use_denoising = "CPU", False
            scene.cycles.samples = min(scene.cycles.samples, params.get("max_samples", 8))
        bpy.ops.render.render(write_still=True)
    finally:
        (render.engine, render.resolution_x, render.resolution_y, render.resolution_percentage, render.filepath,
         render.image_settings.file_format, frame, scene.cycles.samples, scene.cycles.device,
         scene.cycles.use_denoising, scene.camera) = saved
        scene.frame_set(frame)
        if temp is not None:
            bpy.data.objects.remove(temp, do_unlink=True)
    return []


def op_run_python(params, dry):
    if dry:
        return []
    scope = {"bpy": bpy, "__name__": "__asil__"}
    exec(compile(params["code"], "<run_python>", "exec"), scope)
    return ["@scene"]


def op_save_copy(params, dry):
    bpy.context.preferences.filepaths.save_version = 0  # no .blend1 backups next to the user's file
    bpy.ops.wm.save_as_mainfile(filepath=params["path"], copy=True, compress=False)
    return []


def op_open(params, dry):
    bpy.ops.wm.open_mainfile(filepath=params["path"], load_ui=False)
    return []


def op_scene(params, dry):
    """The whole scene as plain data (checkpoints), or a window of objects (observation)."""
    return scene_data(params)


def op_find(params, dry):
    return _obj(params["object"]).name


def op_ping(params, dry):
    return {"version": bpy.app.version_string, "file": bpy.data.filepath}


OPS = {name[3:]: fn for name, fn in list(globals().items()) if name.startswith("op_")}


def handle(request):
    op = OPS.get(request.get("op"))
    if op is None:
        return {"ok": False, "kind": "invalid", "message": f"Unknown operation {request.get('op')!r}."}
    params = request.get("params") or {}
    try:
        return {"ok": True, "result": op(params, bool(request.get("dry")))}
    except Invalid as exc:
        return {"ok": False, "kind": "invalid", "message": str(exc), "hint": exc.hint}
    except Exception as exc:  # noqa: BLE001  (reported to the adapter, which decides)
        tail = traceback.format_exc().strip().splitlines()[-1]
        return {"ok": False, "kind": "failed", "message": f"{type(exc).__name__}: {exc}", "hint": tail}


def serve(path):
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    reader = conn.makefile("r", encoding="utf-8")
    bpy.context.preferences.filepaths.save_version = 0
    for line in reader:
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        reply = handle(request)
        conn.sendall((json.dumps(reply) + "\n").encode("utf-8"))
    conn.close()


if __name__ == "__main__":
    serve(sys.argv[sys.argv.index("--") + 1])
    sys.stdout.flush()
    os._exit(0)
