"""The observation of a running OBS: '@program' plus a page of scenes, items, inputs and filters."""

from __future__ import annotations

from typing import Any

from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 60
SCENE_ACTIONS = ["rename_scene", "remove_scene", "switch_scene", "add_input", "add_to_scene", "add_filter"]
ITEM_ACTIONS = ["set_transform", "set_visibility", "move_item", "remove_from_scene"]
INPUT_ACTIONS = ["set_input_settings", "rename_input", "remove_input", "add_filter"]
FILTER_ACTIONS = ["set_filter", "remove_filter"]


def item_ids(scene: dict[str, Any]) -> list[str]:
    """'item:<scene>/<source>', with '#<id>' for a source shown more than once in the scene."""
    counts: dict[str, int] = {}
    for item in scene["items"]:
        counts[item["source"]] = counts.get(item["source"], 0) + 1
    return [f"item:{scene['name']}/{i['source']}" + (f"#{i['id']}" if counts[i["source"]] > 1 else "")
            for i in scene["items"]]


def _filter_elements(source: str, filters: list[dict[str, Any]]) -> list[Element]:
    return [Element(id=f"filter:{source}/{f['name']}", type="filter", label=f["name"], value=f["settings"],
                    data_type="settings", actions=FILTER_ACTIONS, meta={"kind": f["kind"], "enabled": f["enabled"]})
            for f in filters]


def _scene_elements(scene: dict[str, Any], current: str, kinds: dict[str, str]) -> list[Element]:
    ids = item_ids(scene)
    elements = [Element(id=f"scene:{scene['name']}", type="scene", label=scene["name"],
                        value={"items": len(ids), "program": scene["name"] == current}, data_type="scene",
                        actions=SCENE_ACTIONS, children=ids + [f"filter:{scene['name']}/{f['name']}"
                                                                for f in scene["filters"]])]
    for element_id, item in zip(ids, scene["items"], strict=True):
        meta = {"item_id": item["id"], "kind": kinds.get(item["source"], "scene"), "size": item.get("size"),
                "crop": item["crop"], "locked": item["locked"]}
        elements.append(Element(id=element_id, type="scene_item", label=item["source"], data_type="transform",
                                value={"position": item["position"], "scale": item["scale"],
                                       "rotation": item["rotation"], "visible": item["visible"]},
                                actions=ITEM_ACTIONS, meta=meta))
    return elements + _filter_elements(scene["name"], scene["filters"])


def _input_elements(name: str, data: dict[str, Any], used_in: list[str]) -> list[Element]:
    meta: dict[str, Any] = {"kind": data["kind"], "in_scenes": used_in}
    actions = list(INPUT_ACTIONS)
    if "muted" in data:
        meta["audio"] = {"muted": data["muted"], "volume_db": data["volume_db"]}
        actions.append("set_audio")
    element = Element(id=f"input:{name}", type="input", label=name, value=data["settings"], data_type="settings",
                      actions=actions, children=[f"filter:{name}/{f['name']}" for f in data["filters"]], meta=meta)
    return [element, *_filter_elements(name, data["filters"])]


def all_elements(state: dict[str, Any]) -> list[Element]:
    kinds = {name: data["kind"] for name, data in state["inputs"].items()}
    used: dict[str, list[str]] = {}
    elements: list[Element] = []
    for scene in state["scenes"]:
        elements += _scene_elements(scene, state["current_scene"], kinds)
        for item in scene["items"]:
            used.setdefault(item["source"], []).append(scene["name"])
    for name, data in state["inputs"].items():
        elements += _input_elements(name, data, sorted(set(used.get(name, []))))
    return elements


def program_element(state: dict[str, Any]) -> Element:
    return Element(id="@program", type="program", label="Program output",
                   value={"scene": state["current_scene"], "video": state["video"], "recording": state["recording"]},
                   data_type="program", actions=["switch_scene", "set_video", "start_recording", "stop_recording",
                                                 "save_screenshot"])


def build_observation(state: dict[str, Any], *, step: int, document: str, dirty: bool, offset: int, limit: int,
                      session: dict[str, Any]) -> Observation:
    elements = all_elements(state)
    total = len(elements)
    page = elements[offset:offset + limit]
    record = state["recording"]
    rec_text = f"recording ({record['duration_ms'] / 1000:.1f} s)" if record["active"] else "not recording"
    shown = f"; showing elements {offset + 1}-{offset + len(page)} of {total}" if total > len(page) else ""
    summary = (f"OBS Studio: {len(state['scenes'])} scenes, {len(state['inputs'])} inputs; program scene "
               f"{state['current_scene']!r}; canvas {state['video']['base'][0]}x{state['video']['base'][1]} at "
               f"{state['video']['fps']:g} fps; {rec_text}{shown}.")
    return Observation(
        metadata=Metadata(app="obs", source="service", step=step),
        app_state=AppState(view="scenes", active_document=document.rsplit("/", 1)[-1], document_path=document,
                           dirty=dirty, details={"program_scene": state["current_scene"]}),
        elements=[program_element(state), *page],
        environment={"obs": session, "units": "canvas pixels; rotation in degrees; volume in dB",
                     "scenes": [s["name"] for s in state["scenes"]]},
        navigation=Navigation(views=["scenes"], paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
