"""Reading the running OBS over obs-websocket into plain state (the same shape as a collection file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asil.adapters.obs.collection import plain_settings
from asil.apps.obs import ObsRefused, ObsSession

RESOURCE_NOT_FOUND = 600  # obs-websocket's status for a name that names nothing


# Input kinds that carry audio (set_audio and the audio fields apply to them only).
AUDIO_KINDS = {"ffmpeg_source", "vlc_source", "pulse_input_capture", "pulse_output_capture",
               "alsa_input_capture", "jack_output_capture"}


def scene_names(obs: ObsSession, listed: dict[str, Any] | None = None) -> list[str]:
    """Scene names in OBS's list order (top of the Scenes dock first), from ``listed`` (GetSceneList) if given."""
    scenes = (listed or obs.request("GetSceneList"))["scenes"]
    return [s["sceneName"] for s in sorted(scenes, key=lambda s: -int(s["sceneIndex"]))]


def input_kinds(obs: ObsSession) -> dict[str, str]:
    return {i["inputName"]: i["inputKind"] for i in obs.request("GetInputList")["inputs"]}


def _item(raw: dict[str, Any]) -> dict[str, Any]:
    t = raw["sceneItemTransform"]
    return {"id": raw["sceneItemId"], "source": raw["sourceName"], "visible": raw["sceneItemEnabled"],
            "locked": raw["sceneItemLocked"], "position": [t["positionX"], t["positionY"]],
            "scale": [t["scaleX"], t["scaleY"]], "rotation": t["rotation"],
            "crop": {"left": t["cropLeft"], "top": t["cropTop"], "right": t["cropRight"], "bottom": t["cropBottom"]},
            "size": [round(t["width"], 2), round(t["height"], 2)]}


def _recording(status: dict[str, Any]) -> dict[str, Any]:
    return {"active": status["outputActive"], "paused": status["outputPaused"],
            "duration_ms": status["outputDuration"], "bytes": status["outputBytes"]}


def _video(v: dict[str, Any]) -> dict[str, Any]:
    return {"base": [v["baseWidth"], v["baseHeight"]], "output": [v["outputWidth"], v["outputHeight"]],
            "fps": round(v["fpsNumerator"] / v["fpsDenominator"], 3)}


def _checked(result: Any) -> Any:
    if isinstance(result, ObsRefused):
        raise result
    return result


def read_skeleton(obs: ObsSession) -> dict[str, Any]:
    """Scenes with their items, input kinds, program and preview, video, recording, collections and profiles:
    no settings or filters yet.

    One batch of requests: each request alone costs a round trip through OBS's event loop.
    """
    listed = obs.request("GetSceneList")
    names = scene_names(obs, listed)
    fixed: list[tuple[str, dict[str, Any]]] = [("GetInputList", {}), ("GetVideoSettings", {}),
                                               ("GetRecordStatus", {}), ("GetSceneCollectionList", {}),
                                               ("GetProfileList", {})]
    results = obs.request_batch(fixed + [("GetSceneItemList", {"sceneName": n}) for n in names])
    inputs, v, status, collections, profiles = (_checked(r) for r in results[:len(fixed)])
    scenes = []
    for name, found in zip(names, results[len(fixed):], strict=True):
        if not isinstance(found, ObsRefused):  # a scene removed meanwhile is left out
            scenes.append({"name": name, "items": [_item(i) for i in sorted(
                found["sceneItems"], key=lambda i: int(i["sceneItemIndex"]))]})
    return {"current_scene": listed["currentProgramSceneName"], "preview_scene": listed["currentPreviewSceneName"],
            "collections": {"current": collections["currentSceneCollectionName"],
                            "names": collections["sceneCollections"]},
            "profiles": {"current": profiles["currentProfileName"], "names": profiles["profiles"]},
            "scenes": scenes,
            "kinds": dict(sorted((i["inputName"], i["inputKind"]) for i in inputs["inputs"])),
            "video": _video(v), "recording": _recording(status)}


def read_details(obs: ObsSession, skeleton: dict[str, Any], scenes: set[str], inputs: set[str],
                 root: Path) -> dict[str, Any]:
    """The skeleton plus scene filters and input settings/filters/audio for the named scenes and inputs."""
    wanted_inputs = [(n, k) for n, k in skeleton["kinds"].items() if n in inputs]
    requests: list[tuple[str, dict[str, Any]]] = [("GetSourceFilterList", {"sourceName": s["name"]})
                                                  for s in skeleton["scenes"] if s["name"] in scenes]
    for name, kind in wanted_inputs:
        requests += [("GetInputSettings", {"inputName": name}), ("GetSourceFilterList", {"sourceName": name})]
        if kind in AUDIO_KINDS:
            requests += [("GetInputMute", {"inputName": name}), ("GetInputVolume", {"inputName": name})]
    results = iter(obs.request_batch(requests))
    state = dict(skeleton)
    state["scenes"] = [{**s, "filters": _filters(next(results), root) if s["name"] in scenes else None}
                       for s in skeleton["scenes"]]
    details = {}
    for name, kind in wanted_inputs:
        settings, found = next(results), next(results)
        audio = (next(results), next(results)) if kind in AUDIO_KINDS else None
        if isinstance(settings, ObsRefused):  # an input whose last scene item just went is being destroyed
            if settings.status != RESOURCE_NOT_FOUND:
                raise settings
            continue
        data: dict[str, Any] = {"kind": kind, "settings": plain_settings(settings["inputSettings"], root),
                                "filters": _filters(found, root)}
        if audio is not None:
            mute, volume = (_checked(r) for r in audio)
            data["muted"] = mute["inputMuted"]
            data["volume_db"] = round(max(float(volume["inputVolumeDb"]), -100.0), 2)
        details[name] = data
    state["inputs"] = details
    return state


def _filters(result: Any, root: Path) -> list[dict[str, Any]]:
    found = _checked(result)["filters"]
    return [{"name": f["filterName"], "kind": f["filterKind"], "enabled": f["filterEnabled"],
             "settings": plain_settings(f["filterSettings"], root)} for f in found]


def read_state(obs: ObsSession, root: Path) -> dict[str, Any]:
    """Everything: scenes with items and filters, inputs with settings, program, video, recording."""
    skeleton = read_skeleton(obs)
    return read_details(obs, skeleton, {s["name"] for s in skeleton["scenes"]}, set(skeleton["kinds"]), root)
