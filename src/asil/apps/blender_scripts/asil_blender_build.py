"""Build a .blend from a JSON scene spec (one-shot: ``blender -b --python THIS -- SPEC OUT``).

The spec's objects are made with the same operations the adapter's actions use, so a task's
initial scene is exactly what those actions would have produced.
"""

import json
import os
import sys

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import asil_blender_server as ops  # noqa: E402


def build(spec):
    if not (spec.get("keep_default_scene") or spec.get("factory_scene")):
        for obj in list(bpy.data.objects):
            bpy.data.objects.remove(obj, do_unlink=True)
        for mesh in list(bpy.data.meshes):
            bpy.data.meshes.remove(mesh)
        for mat in list(bpy.data.materials):
            bpy.data.materials.remove(mat)
    for item in spec.get("objects", []):
        _object(item)
    for item in spec.get("objects", []):
        if item.get("parent"):
            ops.op_set_parent({"object": item["name"], "parent": item["parent"], "keep_transform": False}, False)
    scene = spec.get("scene", {})
    if scene.get("frames"):
        ops.op_set_frame_range(scene["frames"], False)
    if scene.get("render"):
        ops.op_set_render(scene["render"], False)
    if scene.get("camera"):
        bpy.context.scene.camera = bpy.data.objects[scene["camera"]]
    elif bpy.context.scene.camera is None:
        cameras = [o for o in bpy.data.objects if o.type == "CAMERA"]
        bpy.context.scene.camera = cameras[0] if cameras else None


TEMPLATES = {}  # (kind, shape) -> mesh: later primitives of a kind copy it (bpy.ops per object is slow in big scenes)


def _add(item):
    keys = ("kind", "name", "location", "rotation", "scale", "light_type", *ops.SHAPE_KEYS)
    params = {k: item[k] for k in keys if k in item}
    kind = (item["kind"], json.dumps(ops.shape_of(params), sort_keys=True))  # same kind and shape: same mesh
    if kind in TEMPLATES:
        obj = bpy.data.objects.new(item["name"], TEMPLATES[kind].copy())
        obj.data.name = item["name"]
        bpy.context.collection.objects.link(obj)
        ops._set_transform(obj, params)
        return
    ops.op_add_object(params, False)
    if item["kind"] in ops.PRIMITIVES:
        TEMPLATES[kind] = bpy.data.objects[item["name"]].data


def _object(item):
    _add(item)
    name = item["name"]
    if item.get("material"):
        ops.op_assign_material({"object": name, **item["material"]}, False)
    for mod in item.get("modifiers", []):
        ops.op_add_modifier({"object": name, **mod}, False)
    if item.get("light"):
        ops.op_set_light({"object": name, **item["light"]}, False)
    if item.get("lens"):
        ops.op_set_camera({"object": name, "lens": item["lens"]}, False)
    if item.get("collection"):
        ops.op_move_to_collection({"object": name, "collection": item["collection"]}, False)
    for key in item.get("keyframes", []):
        ops.op_insert_keyframe({"object": name, **key}, False)


if __name__ == "__main__":
    spec_path, out = sys.argv[sys.argv.index("--") + 1:][:2]
    with open(spec_path, encoding="utf-8") as handle:
        build(json.load(handle))
    bpy.context.preferences.filepaths.save_version = 0
    bpy.ops.wm.save_as_mainfile(filepath=out, compress=False)
    sys.stdout.flush()
    os._exit(0)
