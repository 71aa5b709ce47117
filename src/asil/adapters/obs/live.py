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


def scene_names(obs: ObsSession) -> list[str]:
    """Scene names in OBS's list order (top of the Scenes dock first)."""
    scenes = obs.request("GetSceneList")["scenes"]
    return [s["sceneName"] for s in sorted(scenes, key=lambda s: -int(s["sceneIndex"]))]


def input_kinds(obs: ObsSession) -> dict[str, str]:
    return {i["inputName"]: i["inputKind"] for i in obs.request("GetInputList")["inputs"]}


def scene_items(obs: ObsSession, scene: str) -> list[dict[str, Any]]:
    """A scene's items bottom to top, each with its transform in plain form."""
    items = obs.request("GetSceneItemList", {"sceneName": scene})["sceneItems"]
    return [_item(i) for i in sorted(items, key=lambda i: int(i["sceneItemIndex"]))]


def _item(raw: dict[str, Any]) -> dict[str, Any]:
    t = raw["sceneItemTransform"]
    return {"id": raw["sceneItemId"], "source": raw["sourceName"], "visible": raw["sceneItemEnabled"],
            "locked": raw["sceneItemLocked"], "position": [t["positionX"], t["positionY"]],
            "scale": [t["scaleX"], t["scaleY"]], "rotation": t["rotation"],
            "crop": {"left": t["cropLeft"], "top": t["cropTop"], "right": t["cropRight"], "bottom": t["cropBottom"]},
            "size": [round(t["width"], 2), round(t["height"], 2)]}


def filters(obs: ObsSession, source: str, root: Path) -> list[dict[str, Any]]:
    found = obs.request("GetSourceFilterList", {"sourceName": source})["filters"]
    return [{"name": f["filterName"], "kind": f["filterKind"], "enabled": f["filterEnabled"],
             "settings": plain_settings(f["filterSettings"], root)} for f in found]


def read_input(obs: ObsSession, name: str, kind: str, root: Path) -> dict[str, Any]:
    settings = obs.request("GetInputSettings", {"inputName": name})["inputSettings"]
    data: dict[str, Any] = {"kind": kind, "settings": plain_settings(settings, root),
                            "filters": filters(obs, name, root)}
    if kind in AUDIO_KINDS:
        data["muted"] = obs.request("GetInputMute", {"inputName": name})["inputMuted"]
        volume = obs.request("GetInputVolume", {"inputName": name})
        data["volume_db"] = round(max(float(volume["inputVolumeDb"]), -100.0), 2)
    return data


def recording(obs: ObsSession) -> dict[str, Any]:
    status = obs.request("GetRecordStatus")
    return {"active": status["outputActive"], "paused": status["outputPaused"],
            "duration_ms": status["outputDuration"], "bytes": status["outputBytes"]}


def video(obs: ObsSession) -> dict[str, Any]:
    v = obs.request("GetVideoSettings")
    return {"base": [v["baseWidth"], v["baseHeight"]], "output": [v["outputWidth"], v["outputHeight"]],
            "fps": round(v["fpsNumerator"] / v["fpsDenominator"], 3)}


def read_skeleton(obs: ObsSession) -> dict[str, Any]:
    """Scenes with their items, input kinds, program, video and recording: no settings or filters yet."""
    return {"current_scene": obs.request("GetCurrentProgramScene")["currentProgramSceneName"],
            "scenes": [{"name": name, "items": scene_items(obs, name)} for name in scene_names(obs)],
            "kinds": dict(sorted(input_kinds(obs).items())), "video": video(obs), "recording": recording(obs)}


def read_details(obs: ObsSession, skeleton: dict[str, Any], scenes: set[str], inputs: set[str],
                 root: Path) -> dict[str, Any]:
    """The skeleton plus scene filters and input settings/filters/audio for the named scenes and inputs."""
    state = dict(skeleton)
    state["scenes"] = [{**s, "filters": filters(obs, s["name"], root) if s["name"] in scenes else None}
                       for s in skeleton["scenes"]]
    details = {}
    for name, kind in skeleton["kinds"].items():
        if name in inputs:
            try:
                details[name] = read_input(obs, name, kind, root)
            except ObsRefused as exc:  # an input whose last scene item just went is being destroyed
                if exc.status != RESOURCE_NOT_FOUND:
                    raise
    state["inputs"] = details
    return state


def read_state(obs: ObsSession, root: Path) -> dict[str, Any]:
    """Everything: scenes with items and filters, inputs with settings, program, video, recording."""
    skeleton = read_skeleton(obs)
    return read_details(obs, skeleton, {s["name"] for s in skeleton["scenes"]}, set(skeleton["kinds"]), root)
