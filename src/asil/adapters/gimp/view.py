"""The observation of a GIMP image: '@image', '@selection' and a page of layers.

Layers come in stack order with each group followed by the layers inside it; a layer inside a
group carries its group (``meta.parent``), its path from the top (``meta.path``, 'Group/Layer') and
its position among its siblings.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.gimp.xcf import LAYER_MODES
from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 25
MODES = {0: "RGB", 1: "GRAY", 2: "INDEXED"}
STAT_KEYS = ("mean", "std", "median", "min", "max")
LAYER_ACTIONS = ["set_layer", "rename_layer", "move_layer", "delete_layer", "rotate_layer", "brightness_contrast",
                 "hue_saturation", "levels", "desaturate", "invert", "blur", "sharpen", "fill"]
IMAGE_ACTIONS = ["scale_image", "crop_image", "rotate_image", "flip_image", "resize_canvas", "add_layer",
                 "add_text_layer", "add_group", "place_image", "export_image"]
SELECTION_ACTIONS = ["select_rectangle", "select_ellipse", "select_all", "select_none"]


def compact_stats(stats: dict[str, Any] | None) -> dict[str, Any] | None:
    """``{"channels": "RGBA", "mean": [...], "min": [...], ...}`` from per-channel statistics."""
    if not stats:
        return None
    present = {name: values for name, values in stats.items() if values}
    if not present:
        return {"channels": "", "note": "fully transparent"}
    out: dict[str, Any] = {"channels": "".join(name[0].upper() for name in present)}
    for key in STAT_KEYS:
        out[key] = [round(values[key], 1) for values in present.values()]
    return out


def layer_path(layer_id: int, state: dict[str, Any]) -> list[str]:
    """The names from the top-level group down to the layer."""
    index = {layer: i for i, layer in enumerate(state["ids"])}
    path: list[str] = []
    while layer_id in index:
        path.insert(0, state["names"][index[layer_id]])
        layer_id = state["parents"][index[layer_id]]
    return path


def layer_element(layer: dict[str, Any], stats: dict[str, Any] | None, state: dict[str, Any]) -> Element:
    kind = "group" if layer["group"] else "text_layer" if layer["text"] is not None else "layer"
    meta: dict[str, Any] = {"position": layer["index"]}
    if layer["group"]:
        meta["children"] = state["parents"].count(layer["id"])
    path = layer_path(layer["id"], state)
    if len(path) > 1:
        meta["parent"], meta["path"], meta["depth"] = path[-2], "/".join(path), len(path) - 1
    if layer["text"] is not None:
        meta["text"] = layer["text"][:200]
        meta["font"], meta["font_size"], meta["text_color"] = layer["font"], layer["font_size"], layer["text_color"]
    if layer["mode"] != 28:  # LAYER-MODE-NORMAL, the mode of every new layer: shown only when it differs
        meta["blend_mode"] = LAYER_MODES.get(layer["mode"], str(layer["mode"]))
    summary = compact_stats(stats)
    if summary is not None:
        meta["stats"] = summary
    value = {key: layer[key] for key in ("width", "height", "offset_x", "offset_y", "opacity", "visible")}
    return Element(id=layer["name"], type=kind, value=value, data_type="layer", meta=meta)


def image_element(state: dict[str, Any]) -> Element:
    return Element(id="@image", type="image", value={"width": state["width"], "height": state["height"],
                                                     "mode": MODES.get(state["mode"], str(state["mode"]))},
                   data_type="image", actions=IMAGE_ACTIONS,
                   meta={"layers": state["total"], "active_layer": state["active"], "precision": state["precision"]})


def selection_element(state: dict[str, Any]) -> Element:
    return Element(id="@selection", type="selection", value=state["selection"], data_type="bounds",
                   label="[x1, y1, x2, y2] or null when nothing is selected", actions=SELECTION_ACTIONS)


def build_observation(state: dict[str, Any], stats: dict[int, Any], *, step: int, name: str, document: str | None,
                      dirty: bool, offset: int, limit: int, session: dict[str, Any]) -> Observation:
    layers = state["layers"]
    elements = [image_element(state), selection_element(state)]
    elements += [layer_element(layer, stats.get(layer["id"]), state) for layer in layers]
    total = state["total"]
    shown = f"layers {offset + 1}-{offset + len(layers)} of {total}" if total > len(layers) else f"{total} layers"
    selection = "no selection" if state["selection"] is None else f"selection {state['selection']}"
    summary = (f"GIMP image {name}: {state['width']}x{state['height']} {MODES.get(state['mode'], '?')}, {shown} "
               f"(top first: {', '.join(repr(n) for n in state['names'][:8])}{' ...' if total > 8 else ''}), "
               f"{selection}.")
    return Observation(
        metadata=Metadata(app="gimp", source="script", step=step),
        app_state=AppState(view="image", active_document=name, document_path=document, dirty=dirty,
                           details={"active_layer": state["active"]}),
        elements=elements,
        environment={"units": "pixels; colors 0..255; position 0 is the top layer", "layer_actions": LAYER_ACTIONS,
                     "gimp": session},
        navigation=Navigation(views=["image"], paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
