"""Scene items (transform, visibility, order, removal), filters and audio: checks and requests."""

from __future__ import annotations

from typing import Any

from asil.adapters.obs import actions as act
from asil.adapters.obs.live import AUDIO_KINDS
from asil.adapters.obs.operations import Context, Names, _placement_check, item_ref, obs_settings
from asil.protocol import InvalidAction
from asil.workspace import Workspace


# ------------------------------------------------------------------ scene items
def check_remove_from_scene(names: Names, p: act.ItemParams, ws: Workspace) -> None:
    hit = names.item(p.scene, p.source, p.item_id)
    before = names.shown()
    names.items(p.scene).remove(hit)
    names.drop_orphans(before)


def remove_from_scene(ctx: Context, p: act.ItemParams) -> list[str]:
    item_id = ctx.item_id(p.scene, p.source, p.item_id)
    last = ctx.shown().get(p.source, 0) == 1
    ctx.obs.request("RemoveSceneItem", {"sceneName": p.scene, "sceneItemId": item_id})
    if last:
        ctx.await_removal({p.source})
    return [item_ref(p.scene, p.source), f"scene:{p.scene}", *([f"input:{p.source}"] if last else [])]


def check_set_transform(names: Names, p: act.SetTransform, ws: Workspace) -> None:
    names.item(p.scene, p.source, p.item_id)
    _placement_check(names, p)


def set_transform(ctx: Context, p: act.SetTransform) -> list[str]:
    transform: dict[str, Any] = {}
    if p.position is not None:
        transform.update(positionX=p.position[0], positionY=p.position[1])
    if p.scale is not None:
        transform.update(scaleX=p.scale[0], scaleY=p.scale[1])
    if p.rotation is not None:
        transform["rotation"] = p.rotation % 360
    if p.crop is not None:
        transform.update(cropLeft=p.crop.left, cropTop=p.crop.top, cropRight=p.crop.right, cropBottom=p.crop.bottom)
    ctx.obs.request("SetSceneItemTransform", {"sceneName": p.scene, "sceneItemTransform": transform,
                                              "sceneItemId": ctx.item_id(p.scene, p.source, p.item_id)})
    return [item_ref(p.scene, p.source)]


def check_set_visibility(names: Names, p: act.SetVisibility, ws: Workspace) -> None:
    names.item(p.scene, p.source, p.item_id)


def set_visibility(ctx: Context, p: act.SetVisibility) -> list[str]:
    ctx.obs.request("SetSceneItemEnabled", {"sceneName": p.scene, "sceneItemEnabled": p.visible,
                                            "sceneItemId": ctx.item_id(p.scene, p.source, p.item_id)})
    return [item_ref(p.scene, p.source)]


def check_move_item(names: Names, p: act.MoveItem, ws: Workspace) -> None:
    hit = names.item(p.scene, p.source, p.item_id)
    items = names.items(p.scene)
    if p.index >= len(items):
        raise InvalidAction(f"Scene {p.scene!r} has {len(items)} items, so index {p.index} does not exist.",
                            hint=f"Use 0 (bottom) .. {len(items) - 1} (top).", code="bad_params")
    items.remove(hit)
    items.insert(p.index, hit)


def move_item(ctx: Context, p: act.MoveItem) -> list[str]:
    ctx.obs.request("SetSceneItemIndex", {"sceneName": p.scene, "sceneItemIndex": p.index,
                                          "sceneItemId": ctx.item_id(p.scene, p.source, p.item_id)})
    return [f"scene:{p.scene}"]


# ------------------------------------------------------------------ filters
def check_add_filter(names: Names, p: act.AddFilter, ws: Workspace) -> None:
    names.source(p.source)
    if p.kind in act.AUDIO_FILTERS and names.inputs.get(p.source) not in AUDIO_KINDS:
        raise InvalidAction(f"{p.kind} is an audio filter and {p.source!r} has no audio.",
                            hint="Add audio filters to media inputs; video filters to any source.", code="bad_params")
    if p.name in names.filters(p.source):
        raise InvalidAction(f"Source {p.source!r} already has a filter named {p.name!r}.",
                            hint="Choose another filter name, or change it with set_filter.", code="name_taken")
    obs_settings(p.settings, ws)
    names.filters(p.source).append(p.name)


def add_filter(ctx: Context, p: act.AddFilter) -> list[str]:
    ctx.obs.request("CreateSourceFilter", {"sourceName": p.source, "filterName": p.name,
                                           "filterKind": act.FILTER_KINDS[p.kind],
                                           "filterSettings": obs_settings(p.settings, ctx.workspace)})
    return [ctx.source_ref(p.source)]


def check_set_filter(names: Names, p: act.SetFilter, ws: Workspace) -> None:
    names.filter(p.source, p.filter)
    obs_settings(p.settings or {}, ws)


def set_filter(ctx: Context, p: act.SetFilter) -> list[str]:
    if p.settings is not None:
        ctx.obs.request("SetSourceFilterSettings", {"sourceName": p.source, "filterName": p.filter, "overlay": True,
                                                    "filterSettings": obs_settings(p.settings, ctx.workspace)})
    if p.enabled is not None:
        ctx.obs.request("SetSourceFilterEnabled", {"sourceName": p.source, "filterName": p.filter,
                                                   "filterEnabled": p.enabled})
    return [ctx.source_ref(p.source)]


def check_remove_filter(names: Names, p: act.FilterParams, ws: Workspace) -> None:
    names.filters(p.source).remove(names.filter(p.source, p.filter))


def remove_filter(ctx: Context, p: act.FilterParams) -> list[str]:
    ctx.obs.request("RemoveSourceFilter", {"sourceName": p.source, "filterName": p.filter})
    return [ctx.source_ref(p.source)]


# ------------------------------------------------------------------ audio
def check_set_audio(names: Names, p: act.SetAudio, ws: Workspace) -> None:
    kind = names.inputs.get(names.input(p.input))
    if kind not in AUDIO_KINDS:
        raise InvalidAction(f"Input {p.input!r} ({kind}) has no audio to mute or change.",
                            hint="set_audio works on inputs with audio, such as media inputs.", code="no_audio")


def set_audio(ctx: Context, p: act.SetAudio) -> list[str]:
    if p.muted is not None:
        ctx.obs.request("SetInputMute", {"inputName": p.input, "inputMuted": p.muted})
    if p.volume_db is not None:
        ctx.obs.request("SetInputVolume", {"inputName": p.input, "inputVolumeDb": p.volume_db})
    return [f"input:{p.input}"]
