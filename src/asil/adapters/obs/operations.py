"""What each OBS function checks and does: (check, apply) pairs, for scenes and inputs.

``check`` runs against :class:`Names`, a small model of OBS's scenes, inputs, items and filters
that a batch's checks update as they go, so a whole batch is checked before anything changes.
``apply`` sends the obs-websocket requests and returns the ids of changed elements.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.obs import actions as act
from asil.adapters.obs.collection import COLOR_KEYS, FILE_KEYS, obs_color
from asil.adapters.obs.live import input_kinds, scene_names
from asil.apps.obs import ObsSession
from asil.protocol import InvalidAction
from asil.workspace import Workspace

SHOWN_NAMES = 12


def some_names(names: list[str] | Any) -> str:
    names = list(names)
    more = f" (and {len(names) - SHOWN_NAMES} more)" if len(names) > SHOWN_NAMES else ""
    return ", ".join(repr(n) for n in names[:SHOWN_NAMES]) + more if names else "none"


class Names:
    """The names OBS holds now, read lazily; checks change it as a batch would."""

    def __init__(self, obs: ObsSession):
        self.obs = obs
        self._listed = obs.request("GetSceneList")
        scenes = self._listed["scenes"]
        self.scenes = [s["sceneName"] for s in sorted(scenes, key=lambda s: -int(s["sceneIndex"]))]
        self._inputs: dict[str, str] | None = None
        self._items: dict[str, list[tuple[int | None, str]]] = {}
        self._filters: dict[str, list[str]] = {}
        self._recording: bool | None = None
        self.program = str(self._listed["currentProgramSceneName"])
        preview = self._listed.get("currentPreviewSceneName")  # None unless studio mode is on
        self.preview: str | None = str(preview) if preview else None
        self._collections: list[str] | None = None
        self._profiles: list[str] | None = None

    @property
    def studio(self) -> bool:
        """Studio mode is on (OBS then reports a preview scene)."""
        return self.preview is not None

    @property
    def collections(self) -> list[str]:
        if self._collections is None:
            self._collections = list(self.obs.request("GetSceneCollectionList")["sceneCollections"])
        return self._collections

    @property
    def profiles(self) -> list[str]:
        if self._profiles is None:
            self._profiles = list(self.obs.request("GetProfileList")["profiles"])
        return self._profiles

    @property
    def inputs(self) -> dict[str, str]:
        """Input name -> kind, read on first use (GetInputList is the slowest read with many inputs,
        and moving or hiding an item needs only scenes)."""
        if self._inputs is None:
            found = self.obs.request("GetInputList")["inputs"]
            self._inputs = {i["inputName"]: i["inputKind"] for i in found}
        return self._inputs

    def items(self, scene: str) -> list[tuple[int | None, str]]:
        if scene not in self._items:
            found = self.obs.request("GetSceneItemList", {"sceneName": scene})["sceneItems"]
            self._items[scene] = [(i["sceneItemId"], i["sourceName"])
                                  for i in sorted(found, key=lambda i: int(i["sceneItemIndex"]))]
        return self._items[scene]

    def filters(self, source: str) -> list[str]:
        if source not in self._filters:
            found = self.obs.request("GetSourceFilterList", {"sourceName": source})["filters"]
            self._filters[source] = [f["filterName"] for f in found]
        return self._filters[source]

    @property
    def recording(self) -> bool:
        if self._recording is None:
            self._recording = bool(self.obs.request("GetRecordStatus")["outputActive"])
        return self._recording

    @recording.setter
    def recording(self, value: bool) -> None:
        self._recording = value

    # ---- checks that raise one clear sentence
    def scene(self, name: str) -> str:
        if name not in self.scenes:
            raise InvalidAction(f"There is no scene {name!r}.", hint=f"Scenes: {some_names(self.scenes)}.",
                                code="unknown_scene")
        return name

    def input(self, name: str) -> str:
        if name not in self.inputs:
            raise InvalidAction(f"There is no input {name!r}.", hint=f"Inputs: {some_names(self.inputs)}.",
                                code="unknown_input")
        return name

    def source(self, name: str) -> str:
        if name not in self.inputs and name not in self.scenes:
            raise InvalidAction(f"There is no source (input or scene) {name!r}.",
                                hint=f"Inputs: {some_names(self.inputs)}; scenes: {some_names(self.scenes)}.",
                                code="unknown_source")
        return name

    def free(self, name: str) -> str:
        if name in self.inputs or name in self.scenes:
            raise InvalidAction(f"The name {name!r} is already used by a scene or input.",
                                hint="Choose a name no scene or input has.", code="name_taken")
        return name

    def item(self, scene: str, source: str, item_id: int | None) -> tuple[int | None, str]:
        items = self.items(self.scene(scene))
        hits = [i for i in items if i[1] == source and (item_id is None or i[0] == item_id)]
        if not hits:
            raise InvalidAction(f"Scene {scene!r} has no item showing {source!r}"
                                + (f" with id {item_id}." if item_id else "."),
                                hint=f"Items of {scene!r}: {some_names(dict.fromkeys(s for _, s in items))}.",
                                code="unknown_item")
        if len(hits) > 1:
            raise InvalidAction(f"{source!r} is in scene {scene!r} {len(hits)} times; say which with item_id.",
                                hint=f"Item ids: {', '.join(str(i) for i, _ in hits)}.", code="ambiguous_item")
        return hits[0]

    def filter(self, source: str, name: str) -> str:
        if name not in self.filters(self.source(source)):
            raise InvalidAction(f"Source {source!r} has no filter {name!r}.",
                                hint=f"Its filters: {some_names(self.filters(source))}.", code="unknown_filter")
        return name

    def rename_source(self, old: str, new: str) -> None:
        for scene in list(self._items):
            self._items[scene] = [(i, new if s == old else s) for i, s in self._items[scene]]
        if old in self._filters:
            self._filters[new] = self._filters.pop(old)

    def drop_source(self, name: str) -> None:
        for scene in list(self._items):
            self._items[scene] = [(i, s) for i, s in self._items[scene] if s != name]
        self._filters.pop(name, None)

    def shown(self) -> set[str]:
        return {s for scene in self.scenes for _, s in self.items(scene)}

    def drop_orphans(self, before: set[str]) -> None:
        """OBS destroys an input when the last scene item showing it goes: forget such inputs too."""
        for gone in before - self.shown():
            if gone in self.inputs:
                del self.inputs[gone]
                self._filters.pop(gone, None)


@dataclass
class Context:
    """What an apply step needs: the running OBS and the workspace."""

    obs: ObsSession
    workspace: Workspace

    @property
    def root(self) -> Path:
        return self.workspace.root

    def item_id(self, scene: str, source: str, item_id: int | None) -> int:
        """The live scene-item id of (scene, source), or the given one."""
        if item_id is not None:
            return item_id
        return int(self.obs.request("GetSceneItemId", {"sceneName": scene, "sourceName": source})["sceneItemId"])

    def source_ref(self, name: str) -> str:
        """The element id of a source: its scene's or its input's."""
        return f"scene:{name}" if name in scene_names(self.obs) else f"input:{name}"

    def shown(self, but_scene: str | None = None) -> dict[str, int]:
        """How many scene items show each source (leaving out scene ``but_scene``)."""
        counts: dict[str, int] = {}
        for scene in scene_names(self.obs):
            if scene != but_scene:
                for item in self.obs.request("GetSceneItemList", {"sceneName": scene})["sceneItems"]:
                    counts[item["sourceName"]] = counts.get(item["sourceName"], 0) + 1
        return counts

    def await_removal(self, inputs: set[str], timeout_s: float = 5.0) -> None:
        """OBS destroys orphaned inputs a moment later; wait so the next read does not see them."""
        deadline = time.monotonic() + timeout_s
        while inputs & set(input_kinds(self.obs)) and time.monotonic() < deadline:
            time.sleep(0.01)


# Settings that would make OBS read beyond the workspace: (the only allowed value, why).
REFUSED_SETTINGS: dict[str, tuple[Any, str]] = {
    "input": (None, "network media (an 'input' URL) is not allowed"),
    "is_local_file": (True, "media must be a local workspace file"),
}


Check = Callable[[Names, Any, Workspace], None]
Apply = Callable[[Context, Any], list[str]]


@dataclass(frozen=True)
class Operation:
    """The handler of an OBS function: ``check`` it against (and update) the names model, ``apply`` it
    to the running OBS (returning the ids of changed elements)."""

    check: Check
    apply: Apply


def item_ref(scene: str, source: str) -> str:
    return f"item:{scene}/{source}"


# ------------------------------------------------------------------ settings from agents
def obs_settings(settings: dict[str, Any], workspace: Workspace, *, check_files: bool = True) -> dict[str, Any]:
    """Agent settings as OBS wants them: hex colors to integers, workspace paths to absolute paths."""
    converted: dict[str, Any] = {}
    for key, value in settings.items():
        if key in REFUSED_SETTINGS and value != REFUSED_SETTINGS[key][0]:
            raise InvalidAction(f"Setting {key!r} cannot be {value!r} here: {REFUSED_SETTINGS[key][1]}.",
                                hint="Media and text files come from the workspace.", code="bad_params")
        if key in COLOR_KEYS and isinstance(value, str):
            if not act.HEX_RE.fullmatch(value):
                raise InvalidAction(f"Setting {key!r} must be a color like '#FF8800', not {value!r}.",
                                    hint="Colors are '#RRGGBB' or '#RRGGBBAA'.", code="bad_params")
            value = obs_color(value)
        elif key in FILE_KEYS and isinstance(value, str):
            path = workspace.resolve(value)
            if check_files and not path.is_file():
                raise InvalidAction(f"The file {value!r} does not exist in the workspace.",
                                    hint="Give the workspace-relative path of an existing file.", code="no_file")
            value = str(path)
        converted[key] = value
    return converted


def _placement_check(names: Names, p: Any) -> None:
    if p.scale is not None and any(abs(v) < 0.001 for v in p.scale):
        raise InvalidAction("A scale of 0 makes an item vanish; OBS needs a nonzero scale.",
                            hint="Use e.g. [0.5, 0.5]; hide an item with set_visibility instead.", code="bad_params")


def _place(ctx: Context, scene: str, item_id: int, p: Any) -> None:
    transform: dict[str, float] = {}
    if p.position is not None:
        transform.update(positionX=p.position[0], positionY=p.position[1])
    if p.scale is not None:
        transform.update(scaleX=p.scale[0], scaleY=p.scale[1])
    if transform:
        ctx.obs.request("SetSceneItemTransform",
                        {"sceneName": scene, "sceneItemId": item_id, "sceneItemTransform": transform})


# ------------------------------------------------------------------ scenes
def check_create_scene(names: Names, p: act.CreateScene, ws: Workspace) -> None:
    names.scenes.append(names.free(p.name))
    names._items[p.name] = []


def create_scene(ctx: Context, p: act.CreateScene) -> list[str]:
    ctx.obs.request("CreateScene", {"sceneName": p.name})
    return [f"scene:{p.name}"]


def check_rename_scene(names: Names, p: act.RenameScene, ws: Workspace) -> None:
    names.scene(p.scene)
    names.free(p.name)
    names.scenes[names.scenes.index(p.scene)] = p.name
    names._items[p.name] = names.items(p.scene)
    names.rename_source(p.scene, p.name)


def rename_scene(ctx: Context, p: act.RenameScene) -> list[str]:
    ctx.obs.request("SetSceneName", {"sceneName": p.scene, "newSceneName": p.name})
    return [f"scene:{p.scene}", f"scene:{p.name}"]


def check_remove_scene(names: Names, p: act.SceneParams, ws: Workspace) -> None:
    names.scene(p.scene)
    if len(names.scenes) == 1:
        raise InvalidAction(f"{p.scene!r} is the only scene; OBS always keeps one.",
                            hint="Create another scene first.", code="last_scene")
    before = names.shown()
    names.scenes.remove(p.scene)
    names.drop_source(p.scene)
    names.drop_orphans(before)


def remove_scene(ctx: Context, p: act.SceneParams) -> list[str]:
    elsewhere = ctx.shown(but_scene=p.scene)
    mine = {i["sourceName"] for i in ctx.obs.request("GetSceneItemList", {"sceneName": p.scene})["sceneItems"]}
    ctx.obs.request("RemoveScene", {"sceneName": p.scene})
    orphans = {name for name in mine if name not in elsewhere}
    ctx.await_removal(orphans)
    return [f"scene:{p.scene}", *(f"input:{name}" for name in sorted(orphans))]


def check_switch_scene(names: Names, p: act.SceneParams, ws: Workspace) -> None:
    names.scene(p.scene)


def switch_scene(ctx: Context, p: act.SceneParams) -> list[str]:
    ctx.obs.request("SetCurrentProgramScene", {"sceneName": p.scene})
    return ["@program"]


# ------------------------------------------------------------------ inputs
def _new_input_settings(p: act.AddInput, ws: Workspace, check_files: bool = True) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    if p.kind == "color":
        settings.update({k: v for k, v in (("color", p.color), ("width", p.width), ("height", p.height))
                         if v is not None})
    elif p.kind == "text":
        settings["text"] = p.text
        if p.font_size is not None:
            settings["font"] = {"face": "Sans Serif", "style": "Regular", "size": p.font_size, "flags": 0}
        if p.color is not None:
            settings["color1"] = settings["color2"] = p.color
    elif p.kind == "image":
        settings["file"] = p.file
    else:
        settings.update(local_file=p.file, is_local_file=True)
        if p.loop is not None:
            settings["looping"] = p.loop
    return obs_settings({**settings, **p.settings}, ws, check_files=check_files)


def check_add_input(names: Names, p: act.AddInput, ws: Workspace) -> None:
    names.scene(p.scene)
    names.free(p.name)
    _placement_check(names, p)
    _new_input_settings(p, ws)
    names.inputs[p.name] = act.INPUT_KINDS[p.kind]
    names.items(p.scene).append((None, p.name))


def add_input(ctx: Context, p: act.AddInput) -> list[str]:
    made = ctx.obs.request("CreateInput", {
        "sceneName": p.scene, "inputName": p.name, "inputKind": act.INPUT_KINDS[p.kind],
        "inputSettings": _new_input_settings(p, ctx.workspace), "sceneItemEnabled": p.visible})
    _place(ctx, p.scene, int(made["sceneItemId"]), p)
    return [f"input:{p.name}", item_ref(p.scene, p.name), f"scene:{p.scene}"]


def check_add_to_scene(names: Names, p: act.AddToScene, ws: Workspace) -> None:
    names.scene(p.scene)
    names.source(p.input)
    if p.input == p.scene:
        raise InvalidAction(f"A scene cannot show itself ({p.scene!r}).", hint="Pick another source.",
                            code="bad_params")
    _placement_check(names, p)
    names.items(p.scene).append((None, p.input))


def add_to_scene(ctx: Context, p: act.AddToScene) -> list[str]:
    made = ctx.obs.request("CreateSceneItem",
                           {"sceneName": p.scene, "sourceName": p.input, "sceneItemEnabled": p.visible})
    _place(ctx, p.scene, int(made["sceneItemId"]), p)
    return [item_ref(p.scene, p.input), f"scene:{p.scene}"]


def check_set_input_settings(names: Names, p: act.SetInputSettings, ws: Workspace) -> None:
    names.input(p.input)
    obs_settings(p.settings, ws)


def set_input_settings(ctx: Context, p: act.SetInputSettings) -> list[str]:
    ctx.obs.request("SetInputSettings", {"inputName": p.input, "inputSettings": obs_settings(p.settings, ctx.workspace),
                                         "overlay": True})
    return [f"input:{p.input}"]


def check_rename_input(names: Names, p: act.RenameInput, ws: Workspace) -> None:
    names.input(p.input)
    names.free(p.name)
    names.inputs[p.name] = names.inputs.pop(p.input)
    names.rename_source(p.input, p.name)


def rename_input(ctx: Context, p: act.RenameInput) -> list[str]:
    ctx.obs.request("SetInputName", {"inputName": p.input, "newInputName": p.name})
    return [f"input:{p.input}", f"input:{p.name}"]


def check_remove_input(names: Names, p: act.InputParams, ws: Workspace) -> None:
    names.input(p.input)
    del names.inputs[p.input]
    names.drop_source(p.input)


def remove_input(ctx: Context, p: act.InputParams) -> list[str]:
    ctx.obs.request("RemoveInput", {"inputName": p.input})
    return [f"input:{p.input}"]

