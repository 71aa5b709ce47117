"""The Blender action vocabulary: parameter models, examples, tips and the function table.

Each function is declared with the server request it makes (most are the server operation of
the same name).

Every action is data; the adapter turns it into bpy calls inside Blender. No agent text is
ever run as code, except through ``run_python`` when the adapter was opened with ``allow_code``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, Protocol

from pydantic import Field, model_validator

from asil.adapters.functions import AppFunction, FunctionTable, Vocabulary, navigate_page
from asil.adapters.params import NoParams, Params
from asil.protocol import InvalidAction
from asil.workspace import Workspace

Name = Annotated[str, Field(min_length=1, max_length=63, pattern=r"^[^\x00-\x1f]+$")]
# An object's name is its element id, and '@scene' is the scene's: object names cannot start with '@'
# (a duplicate named '@scene' gave the observation two elements with one id; found by tests/fuzz).
ObjectName = Annotated[str, Field(min_length=1, max_length=63, pattern=r"^[^@\x00-\x1f][^\x00-\x1f]*$",
                                  description="An object name, not starting with '@' (kept for '@scene').")]
ObjectRef = Annotated[str, Field(min_length=1, max_length=63, description="An object name (its element id).")]
Finite = Annotated[float, Field(ge=-1e6, le=1e6)]
Vector = Annotated[list[Finite], Field(min_length=3, max_length=3)]
Color = Annotated[list[Annotated[float, Field(ge=0, le=1)]], Field(min_length=3, max_length=4,
                                                                  description="RGB or RGBA, 0..1")]
ObjectKind = Literal["cube", "uv_sphere", "ico_sphere", "cylinder", "cone", "torus", "plane", "monkey",
                     "empty", "camera", "light"]
LightType = Literal["POINT", "SUN", "SPOT", "AREA"]
ModifierType = Literal["SUBSURF", "BEVEL", "ARRAY", "MIRROR", "SOLIDIFY", "DECIMATE", "WIREFRAME", "TRIANGULATE"]
Frame = Annotated[int, Field(ge=0, le=1_048_574)]
Size = Annotated[int, Field(ge=4, le=4096)]
SettingValue = bool | int | float | str | list[bool] | list[float]


class _Params(Params):
    """Strict parameters: unknown fields, coercion and NaN are refused."""


class _Transform(_Params):
    location: Vector | None = None
    rotation: Vector | None = Field(None, description="Euler XYZ rotation in degrees.")
    scale: Vector | None = None


Length = Annotated[float, Field(gt=0, le=1e4)]
Radius = Annotated[float, Field(ge=0, le=1e4)]
Segments = Annotated[int, Field(ge=3, le=500)]
# The shape parameters each mesh primitive takes, named as bpy.ops.mesh.primitive_<kind>_add names them.
SHAPE_PARAMS: dict[str, tuple[str, ...]] = {
    "cube": ("size",), "plane": ("size",), "monkey": ("size",),
    "uv_sphere": ("radius", "segments", "ring_count"), "ico_sphere": ("radius", "subdivisions"),
    "cylinder": ("radius", "depth", "vertices"), "cone": ("radius1", "radius2", "depth", "vertices"),
    "torus": ("major_radius", "minor_radius", "major_segments", "minor_segments"),
}
SHAPE_NAMES = tuple(dict.fromkeys(name for names in SHAPE_PARAMS.values() for name in names))


class AddObject(_Transform):
    kind: ObjectKind
    name: ObjectName | None = Field(None, description="Name of the new object; Blender picks one when omitted.")
    light_type: LightType | None = Field(None, description="For kind 'light' (POINT when omitted).")
    # Shape parameters: Blender's defaults when omitted (a 2 m cube, radius-1 spheres, 2 m deep cylinders ...).
    size: Length | None = Field(None, description="cube, plane, monkey: edge length in metres (default 2).")
    radius: Length | None = Field(None, description="uv_sphere, ico_sphere, cylinder: radius (default 1).")
    depth: Length | None = Field(None, description="cylinder, cone: height along local Z (default 2).")
    segments: Segments | None = Field(None, description="uv_sphere: segments around (default 32).")
    ring_count: Segments | None = Field(None, description="uv_sphere: rings from pole to pole (default 16).")
    subdivisions: Annotated[int, Field(ge=1, le=8)] | None = Field(None, description="ico_sphere (default 2).")
    vertices: Annotated[int, Field(ge=3, le=1000)] | None = Field(
        None, description="cylinder, cone: vertices of the base circle (default 32).")
    radius1: Radius | None = Field(None, description="cone: base radius (default 1).")
    radius2: Radius | None = Field(None, description="cone: tip radius (default 0).")
    major_radius: Length | None = Field(None, description="torus: ring radius (default 1).")
    minor_radius: Length | None = Field(None, description="torus: tube radius (default 0.25).")
    major_segments: Segments | None = Field(None, description="torus: segments around the ring (default 48).")
    minor_segments: Segments | None = Field(None, description="torus: segments around the tube (default 12).")

    @model_validator(mode="after")
    def _shape_fits_kind(self) -> AddObject:
        taken = SHAPE_PARAMS.get(self.kind, ())
        wrong = [name for name in SHAPE_NAMES if getattr(self, name) is not None and name not in taken]
        if wrong:
            takes = f"takes only {', '.join(taken)}" if taken else "takes no shape parameters"
            raise ValueError(f"kind {self.kind!r} does not take {', '.join(wrong)}; it {takes}")
        if self.light_type is not None and self.kind != "light":
            raise ValueError(f"light_type is for kind 'light', not {self.kind!r}")
        return self

    def shape(self) -> dict[str, Any]:
        """The given shape parameters, as the bpy primitive operator takes them."""
        return {name: getattr(self, name) for name in SHAPE_PARAMS.get(self.kind, ()) if getattr(self, name) is not None}


class ObjectOnly(_Params):
    object: ObjectRef


class DuplicateObject(_Transform):
    object: ObjectRef
    name: ObjectName | None = None
    linked: bool = Field(False, description="Share the mesh data instead of copying it.")


class RenameObject(_Params):
    object: ObjectRef
    name: ObjectName


class SetTransform(_Transform):
    object: ObjectRef


class SetParent(_Params):
    object: ObjectRef
    parent: ObjectRef | None = Field(description="The new parent, or null to clear the parent.")
    keep_transform: bool = Field(True, description="Keep the object where it is in the world.")


class _MaterialValues(_Params):
    base_color: Color | None = None
    metallic: Annotated[float, Field(ge=0, le=1)] | None = None
    roughness: Annotated[float, Field(ge=0, le=1)] | None = None


class AssignMaterial(_MaterialValues):
    object: ObjectRef
    material: Name = Field(description="A material name; it is created (Principled BSDF) when missing.")
    replace: bool = Field(True, description="Replace the first material slot instead of adding a slot.")


class EditMaterial(_MaterialValues):
    material: Name


class AddModifier(_Params):
    object: ObjectRef
    type: ModifierType
    name: Name | None = None
    settings: dict[str, SettingValue] = Field(default_factory=dict,
                                              description="e.g. levels (SUBSURF), width/segments (BEVEL), count (ARRAY)")


class EditModifier(_Params):
    object: ObjectRef
    modifier: Name
    settings: Annotated[dict[str, SettingValue], Field(min_length=1)]


class RemoveModifier(_Params):
    object: ObjectRef
    modifier: Name


class SetLight(_Params):
    object: ObjectRef
    light_type: LightType | None = None
    energy: Annotated[float, Field(ge=0, le=1e7)] | None = Field(None, description="Watts (sun: W/m²).")
    color: Annotated[list[Annotated[float, Field(ge=0, le=1)]], Field(min_length=3, max_length=3)] | None = None


class SetCamera(_Params):
    object: ObjectRef
    lens: Annotated[float, Field(ge=1, le=5000)] | None = Field(None, description="Focal length in mm.")
    active: bool = Field(False, description="Make it the scene's active camera.")


class InsertKeyframe(_Params):
    object: ObjectRef
    property: Literal["location", "rotation", "scale"]
    frame: Frame
    value: Vector | None = Field(None, description="Set this value first (rotation in degrees).")


class SetFrameRange(_Params):
    start: Frame | None = None
    end: Frame | None = None
    fps: Annotated[int, Field(ge=1, le=240)] | None = None
    current: Frame | None = None


class SetRender(_Params):
    engine: Literal["CYCLES", "BLENDER_EEVEE", "BLENDER_WORKBENCH"] | None = None
    resolution_x: Size | None = None
    resolution_y: Size | None = None
    resolution_percentage: Annotated[int, Field(ge=1, le=100)] | None = None
    samples: Annotated[int, Field(ge=1, le=4096)] | None = None
    file_format: Literal["PNG", "JPEG", "OPEN_EXR", "TIFF", "BMP"] | None = None


class MoveToCollection(_Params):
    object: ObjectRef
    collection: Name = Field(description="A collection name; it is created under the scene when missing.")


class RenderFrame(_Params):
    path: Annotated[str, Field(min_length=1, max_length=255, pattern=r"(?i)\.png$")] = Field(
        description="Workspace-relative .png path to write.")
    width: Annotated[int, Field(ge=4, le=1024)] = 160
    height: Annotated[int, Field(ge=4, le=1024)] = 120
    frame: Frame | None = None


class RunPython(_Params):
    code: Annotated[str, Field(min_length=1, max_length=100_000)]
    timeout_s: Annotated[float, Field(gt=0, le=300)] = 30.0


class SetValue(_Params):
    value: Vector


# ---------------------------------------------------------------- functions: each one's server request
Request = tuple[str, dict[str, Any]]  # a server operation and its JSON params


class Scene(Protocol):
    """What building a request needs of the adapter that has the scene open."""

    allow_code: bool
    workspace: Workspace


ToRequest = Callable[[Scene, str, dict[str, Any]], Request]


def same_op(scene: Scene, name: str, params: dict[str, Any]) -> Request:
    """Most functions are the server operation of the same name, with the same params."""
    return name, params


def code_request(scene: Scene, name: str, params: dict[str, Any]) -> Request:
    if not scene.allow_code:
        raise InvalidAction("run_python is not allowed here: this Blender adapter was opened without "
                            "allow_code, so no agent code runs.",
                            hint="Use the semantic functions (set_transform, assign_material, ...) instead.",
                            code="code_not_allowed")
    return name, params


def render_request(scene: Scene, name: str, params: dict[str, Any]) -> Request:
    # Cycles on the CPU: fast headless here (Eevee/Workbench need GL)
    return "render", {**params, "path": str(scene.workspace.resolve(params["path"])), "engine": "CYCLES",
                      "max_samples": 8}


def _fn(name: str, params: type[Params], description: str, acts_on: str, *, destructive: bool = False,
        handler: ToRequest = same_op, **options: Any) -> AppFunction[ToRequest]:
    return AppFunction(name, params, description, destructive=destructive, acts_on=acts_on, handler=handler,
                       **options)


FUNCTIONS = FunctionTable[ToRequest]("Blender", [
    _fn("add_object", AddObject, "Add a mesh primitive (with Blender's shape parameters), empty, camera or light.",
        "scene"),
    _fn("delete_object", ObjectOnly, "Delete an object.", "object", destructive=True),
    _fn("duplicate_object", DuplicateObject, "Duplicate an object (mesh copied unless linked).", "object"),
    _fn("rename_object", RenameObject, "Rename an object; its element id becomes the new name.", "object"),
    _fn("set_transform", SetTransform, "Set location, rotation (degrees) and/or scale of an object.", "object"),
    _fn("set_parent", SetParent, "Parent an object to another, or clear its parent.", "object"),
    _fn("assign_material", AssignMaterial, "Give an object a material (created when missing) and set its values.",
        "object"),
    _fn("edit_material", EditMaterial, "Change base color, metallic or roughness of a material.", "material"),
    _fn("add_modifier", AddModifier, "Add a modifier with settings to a mesh object.", "object"),
    _fn("edit_modifier", EditModifier, "Change settings of an object's modifier.", "modifier"),
    _fn("remove_modifier", RemoveModifier, "Remove a modifier from an object.", "modifier", destructive=True),
    _fn("set_light", SetLight, "Change a light's type, energy (W) or color.", "light"),
    _fn("set_camera", SetCamera, "Change a camera's focal length or make it the active camera.", "camera"),
    _fn("insert_keyframe", InsertKeyframe, "Insert a keyframe for location/rotation/scale at a frame.", "object"),
    _fn("set_frame_range", SetFrameRange, "Set the scene's start/end frame, fps or current frame.", "scene"),
    _fn("set_render", SetRender, "Set the render engine, resolution, samples or file format.", "scene"),
    _fn("move_to_collection", MoveToCollection, "Move an object into a collection (created when missing).",
        "object"),
    _fn("render_frame", RenderFrame, "Render the active camera's view to a small PNG (Cycles on CPU).", "file",
        handler=render_request),
    _fn("run_python", RunPython, "Run bpy code (only when this adapter allows code).", "scene", destructive=True,
        handler=code_request),
    _fn("save", NoParams, "Write the .blend file now (it is also saved when the episode ends).", "file",
        batch=False),
])

EXAMPLES = [
    {"action_type": "invoke_function", "target": "set_transform",
     "params": {"object": "Cube", "location": [1.0, 2.0, 0.5], "rotation": [0, 0, 45], "scale": [2, 2, 2]}},
    {"action_type": "set_value", "target": "Cube.location", "params": {"value": [0.0, 0.0, 1.0]}},
    {"action_type": "invoke_function", "target": "add_object",
     "params": {"kind": "uv_sphere", "name": "Ball", "location": [3, 0, 1]}},
    {"action_type": "invoke_function", "target": "add_object",
     "params": {"kind": "cylinder", "name": "Pillar", "radius": 0.25, "depth": 3, "vertices": 12,
                "location": [2, 0, 1.5]}},
    {"action_type": "invoke_function", "target": "assign_material",
     "params": {"object": "Ball", "material": "Red", "base_color": [0.8, 0.05, 0.05], "roughness": 0.3}},
    {"action_type": "invoke_function", "target": "add_modifier",
     "params": {"object": "Cube", "type": "BEVEL", "name": "Bevel", "settings": {"width": 0.1, "segments": 3}}},
    {"action_type": "invoke_function", "target": "insert_keyframe",
     "params": {"object": "Cube", "property": "location", "frame": 1, "value": [0, 0, 0]}},
    {"action_type": "invoke_function", "target": "set_frame_range", "params": {"start": 1, "end": 120}},
    {"action_type": "invoke_function", "target": "set_render",
     "params": {"engine": "CYCLES", "resolution_x": 640, "resolution_y": 360, "samples": 16}},
    {"action_type": "invoke_function", "target": "set_light", "params": {"object": "Light", "energy": 500}},
    {"action_type": "invoke_function", "target": "rename_object", "params": {"object": "Ball", "name": "Planet"}},
    {"action_type": "navigate", "params": {"offset": 0, "limit": 50}},
    {"action_type": "batch", "params": {"actions": [
        {"action_type": "invoke_function", "target": "duplicate_object",
         "params": {"object": "Cube", "name": "Cube Copy", "location": [0, 3, 0]}},
        {"action_type": "invoke_function", "target": "move_to_collection",
         "params": {"object": "Cube Copy", "collection": "Copies"}}]}},
]

TIPS = [
    "Objects are elements; an object's id is its name. rename_object changes the id (the result's 'changed' "
    "lists the old and the new name). The element '@scene' holds frame range, fps, camera and render settings.",
    "add_object takes the shape parameters of Blender's primitive operators: cube/plane/monkey size; uv_sphere "
    "radius, segments, ring_count; ico_sphere radius, subdivisions; cylinder radius, depth, vertices; cone "
    "radius1, radius2, depth, vertices; torus major_radius, minor_radius, major_segments, minor_segments. Each "
    "object's meta shows its dimensions (bounding box, metres) and mesh vertex/face counts.",
    "Rotations are Euler XYZ in degrees. Locations are in metres. set_value on 'Object.location' (or "
    ".rotation, .scale) sets one transform from params.value [x, y, z].",
    "Materials are Principled BSDF: base_color is RGB(A) 0..1, metallic and roughness 0..1. Each object's "
    "meta lists its materials; environment.materials lists every material's values.",
    "Modifier settings: SUBSURF levels/render_levels, BEVEL width/segments, ARRAY count/"
    "relative_offset_displace, SOLIDIFY thickness, MIRROR use_axis [x, y, z], DECIMATE ratio.",
    "A batch is atomic: if one action fails, the scene is as before the batch.",
    "A keyframed property follows its animation when the frame changes (as in Blender): to change an "
    "animated object's transform for good, insert a keyframe with the new value.",
    "Large scenes are shown a page of objects at a time: navigate with params.offset/limit or an object name.",
]


VOCABULARY = Vocabulary(
    app="blender",
    target_format="set_value: 'ObjectName.location|rotation|scale'; invoke_function: a function name "
    "(the object goes in params.object); navigate: an object name to show, or none",
    set_value_params=SetValue,
    navigate_params=navigate_page(200),
    max_batch=100,
    examples=EXAMPLES,
    tips=TIPS,
)
