"""The observation of a Blender scene: '@scene' plus a page of objects, built from the server's data."""

from __future__ import annotations

from typing import Any

from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 30
MAX_MATERIALS = 30  # environment.materials lists at most this many (each object's meta names its own)
OBJECT_ACTIONS = ["set_transform", "rename_object", "duplicate_object", "delete_object", "set_parent",
                  "insert_keyframe", "move_to_collection"]
KIND_ACTIONS = {"MESH": ["assign_material", "add_modifier", "edit_modifier", "remove_modifier"],
                "LIGHT": ["set_light"], "CAMERA": ["set_camera"]}
# Per-object fields that go into meta (the rest are in value or children).
META_FIELDS = ("dimensions", "collections", "materials", "modifiers", "keyframes", "light", "camera", "mesh")


def object_element(obj: dict[str, Any], children: list[str]) -> Element:
    meta = {key: obj[key] for key in META_FIELDS if obj.get(key)}
    if obj["parent"]:
        meta["parent"] = obj["parent"]
    # The actions every object takes are listed once in environment.object_actions, not per element.
    return Element(id=obj["name"], type=obj["type"].lower(),
                   value={"location": obj["location"], "rotation": obj["rotation"], "scale": obj["scale"]},
                   data_type="transform", actions=KIND_ACTIONS.get(obj["type"], []),
                   children=children, meta=meta)


def scene_element(settings: dict[str, Any]) -> Element:
    value = {key: settings[key] for key in ("frame_start", "frame_end", "frame_current", "fps", "camera")}
    return Element(id="@scene", type="scene", label=settings["name"], value=value, data_type="scene",
                   actions=["set_frame_range", "set_render", "render_frame"],
                   meta={"render": settings["render"],
                         "collections": {name: len(members) for name, members in settings["collections"].items()}})


def build_observation(scene: dict[str, Any], *, step: int, name: str, document: str | None, dirty: bool,
                      offset: int, limit: int, session: dict[str, Any]) -> Observation:
    objects = scene["objects"]
    kids: dict[str, list[str]] = {}
    for obj in objects:
        if obj["parent"]:
            kids.setdefault(obj["parent"], []).append(obj["name"])
    elements = [scene_element(scene["settings"])] + [object_element(o, kids.get(o["name"], [])) for o in objects]
    total = scene["total"]
    counts: dict[str, int] = {}
    for obj in objects:
        counts[obj["type"].lower()] = counts.get(obj["type"].lower(), 0) + 1
    shown = f"objects {offset + 1}-{offset + len(objects)} of {total}" if total > len(objects) else f"{total} objects"
    settings = scene["settings"]
    summary = (f"Blender scene {settings['name']!r} in {name}: {shown} "
               f"({', '.join(f'{n} {k}' for k, n in sorted(counts.items())) or 'none shown'}); "
               f"frames {settings['frame_start']}-{settings['frame_end']}, "
               f"render {settings['render']['engine']} {settings['render']['resolution_x']}x"
               f"{settings['render']['resolution_y']}.")
    return Observation(
        metadata=Metadata(app="blender", source="script", step=step),
        app_state=AppState(view="scene", active_document=name, document_path=document, dirty=dirty,
                           details={"camera": settings["camera"]}),
        elements=elements,
        environment={"materials": dict(list(scene["materials"].items())[:MAX_MATERIALS]),
                     "units": "metres; rotations in degrees", "object_actions": OBJECT_ACTIONS, "blender": session},
        navigation=Navigation(views=["scene"], paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
