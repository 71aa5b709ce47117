"""The observation of a running OBS: '@program' plus a page of scenes, their items, and inputs.

Filters are listed in their source's ``meta.filters``. Only the page's scenes and inputs need
their settings and filters read, so a large collection costs a window, not the whole state.
"""

from __future__ import annotations

from typing import Any

from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 60
SCENE_ACTIONS = ["rename_scene", "remove_scene", "switch_scene", "add_input", "add_to_scene", "add_filter",
                 "set_filter", "remove_filter"]
ITEM_ACTIONS = ["set_transform", "set_visibility", "move_item", "remove_from_scene"]
INPUT_ACTIONS = ["set_input_settings", "rename_input", "remove_input", "add_filter", "set_filter",
                 "remove_filter"]


def item_ids(scene: dict[str, Any]) -> list[str]:
    """'item:<scene>/<source>', with '#<id>' for a source shown more than once in the scene."""
    counts: dict[str, int] = {}
    for item in scene["items"]:
        counts[item["source"]] = counts.get(item["source"], 0) + 1
    return [f"item:{scene['name']}/{i['source']}" + (f"#{i['id']}" if counts[i["source"]] > 1 else "")
            for i in scene["items"]]


def _filters_meta(filters: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return filters or []


def _scene_element(scene: dict[str, Any], current: str) -> Element:
    filters = _filters_meta(scene.get("filters"))
    meta = {"filters": filters} if filters else {}
    return Element(id=f"scene:{scene['name']}", type="scene", label=scene["name"],
                   value={"items": len(scene["items"]), "program": scene["name"] == current}, data_type="scene",
                   actions=SCENE_ACTIONS, children=item_ids(scene), meta=meta)


def _item_element(element_id: str, item: dict[str, Any], kinds: dict[str, str]) -> Element:
    meta = {"item_id": item["id"], "kind": kinds.get(item["source"], "scene"), "size": item.get("size"),
            "crop": item["crop"], "locked": item["locked"]}
    return Element(id=element_id, type="scene_item", label=item["source"], data_type="transform",
                   value={"position": item["position"], "scale": item["scale"], "rotation": item["rotation"],
                          "visible": item["visible"]}, actions=ITEM_ACTIONS, meta=meta)


def _input_element(name: str, data: dict[str, Any], used_in: list[str]) -> Element:
    meta: dict[str, Any] = {"kind": data["kind"], "in_scenes": used_in}
    if data["filters"]:
        meta["filters"] = data["filters"]
    actions = list(INPUT_ACTIONS)
    if "muted" in data:
        meta["audio"] = {"muted": data["muted"], "volume_db": data["volume_db"]}
        actions.append("set_audio")
    return Element(id=f"input:{name}", type="input", label=name, value=data["settings"], data_type="settings",
                   actions=actions, meta=meta)


def element_keys(state: dict[str, Any]) -> list[tuple[str, str, int]]:
    """Every element in observation order: each scene then its items (bottom to top), then the inputs."""
    keys: list[tuple[str, str, int]] = []
    for scene in state["scenes"]:
        keys.append(("scene", scene["name"], -1))
        keys += [("item", scene["name"], index) for index in range(len(scene["items"]))]
    return keys + [("input", name, -1) for name in state["kinds"]]


def element_ids(state: dict[str, Any]) -> list[str]:
    scenes = {s["name"]: s for s in state["scenes"]}
    return [f"scene:{name}" if kind == "scene" else f"input:{name}" if kind == "input"
            else item_ids(scenes[name])[index] for kind, name, index in element_keys(state)]


def page_elements(state: dict[str, Any], keys: list[tuple[str, str, int]]) -> list[Element]:
    """The elements for ``keys``; ``state`` holds details (filters, settings) for at least those."""
    scenes = {s["name"]: s for s in state["scenes"]}
    used: dict[str, set[str]] = {}
    for scene in state["scenes"]:
        for item in scene["items"]:
            used.setdefault(item["source"], set()).add(scene["name"])
    elements = []
    for kind, name, index in keys:
        if kind == "scene":
            elements.append(_scene_element(scenes[name], state["current_scene"]))
        elif kind == "item":
            scene = scenes[name]
            elements.append(_item_element(item_ids(scene)[index], scene["items"][index], state["kinds"]))
        elif name in state["inputs"]:  # an input destroyed since the list was read is left out
            elements.append(_input_element(name, state["inputs"][name], sorted(used.get(name, ()))))
    return elements


def program_element(state: dict[str, Any]) -> Element:
    studio = state["preview_scene"] is not None
    return Element(id="@program", type="program", label="Program output",
                   value={"scene": state["current_scene"], "studio_mode": studio,
                          "preview_scene": state["preview_scene"], "video": state["video"],
                          "recording": state["recording"]},
                   data_type="program", actions=["switch_scene", "set_video", "start_recording", "stop_recording",
                                                 "save_screenshot", "set_studio_mode", "set_preview_scene",
                                                 "transition_to_program"])


def setup_elements(state: dict[str, Any]) -> list[Element]:
    """'@collections' and '@profiles': what OBS's Scene Collection and Profile menus list, the current one first."""
    collections, profiles = state["collections"], state["profiles"]
    return [Element(id="@collections", type="collection_list", label="Scene collections",
                    value={"current": collections["current"], "collections": sorted(collections["names"])},
                    data_type="collections", actions=["create_collection", "switch_collection", "duplicate_collection"]),
            Element(id="@profiles", type="profile_list", label="Profiles",
                    value={"current": profiles["current"], "profiles": sorted(profiles["names"])},
                    data_type="profiles", actions=["create_profile", "switch_profile"])]


def build_observation(state: dict[str, Any], *, step: int, document: str, dirty: bool, offset: int, limit: int,
                      session: dict[str, Any]) -> Observation:
    """``state``: a skeleton with details for the page's scenes and inputs (see ``live.read_details``)."""
    keys = element_keys(state)
    total = len(keys)
    page = page_elements(state, keys[offset:offset + limit])
    record = state["recording"]
    rec_text = f"recording ({record['duration_ms'] / 1000:.1f} s)" if record["active"] else "not recording"
    shown = f"; showing elements {offset + 1}-{offset + len(page)} of {total}" if total > len(page) else ""
    studio = f", studio mode previewing {state['preview_scene']!r}" if state["preview_scene"] is not None else ""
    summary = (f"OBS Studio: collection {state['collections']['current']!r}, profile "
               f"{state['profiles']['current']!r}; {len(state['scenes'])} scenes, {len(state['kinds'])} inputs; "
               f"program scene {state['current_scene']!r}{studio}; canvas {state['video']['base'][0]}x"
               f"{state['video']['base'][1]} at {state['video']['fps']:g} fps; {rec_text}{shown}.")
    return Observation(
        metadata=Metadata(app="obs", source="service", step=step),
        app_state=AppState(view="scenes", active_document=document.rsplit("/", 1)[-1], document_path=document,
                           dirty=dirty, details={"program_scene": state["current_scene"]}),
        elements=[program_element(state), *setup_elements(state), *page],
        environment={"obs": session, "units": "canvas pixels; rotation in degrees; volume in dB",
                     "scenes": [s["name"] for s in state["scenes"]]},
        navigation=Navigation(views=["scenes"], paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
