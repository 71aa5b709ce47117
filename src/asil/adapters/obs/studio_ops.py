"""Scene collections, profiles and studio mode: what each function checks and the requests it sends.

OBS 29 runs these requests on its window's thread: collection and profile switches are done when
the request returns, but the preview scene and a studio transition change a moment later, so those
wait until OBS reports the change. OBS answers ``SetCurrentSceneCollection`` with success even when
it does not switch (a collection file its menu has not listed yet), so every switch is verified.
obs-websocket 5.1 has no request that duplicates a collection; :func:`duplicate_collection` does
what OBS's own Duplicate does with the requests it has (see there).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from asil.adapters.obs import actions as act
from asil.adapters.obs.operations import Context, Names, some_names
from asil.apps.obs import ObsSession
from asil.protocol import ActionFailed, InvalidAction
from asil.workspace import Workspace, atomic_write

SETTLE_S = 5.0
COLLECTION_HINT = "Collections: {}."


def _await(what: str, done: Callable[[], bool], timeout_s: float = SETTLE_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise ActionFailed(f"OBS did not {what} within {timeout_s:g} s.",
                               hint="Look at '@program', '@collections' and '@profiles' and try again.")
        time.sleep(0.02)


def _no_recording(names: Names, what: str) -> None:
    # OBS greys out its collection and profile menus while an output runs.
    if names.recording:
        raise InvalidAction(f"{what} cannot change while OBS is recording.", hint="Call stop_recording first.",
                            code="busy")


# ------------------------------------------------------------------ scene collections
def _free_collection(names: Names, name: str) -> None:
    if name in names.collections:
        raise InvalidAction(f"There is already a scene collection {name!r}.",
                            hint=f"Choose another name; collections: {some_names(names.collections)}.", code="name_taken")


def check_create_collection(names: Names, p: act.NewCollection, ws: Workspace) -> None:
    _no_recording(names, "Scene collections")
    _free_collection(names, p.name)


def create_collection(ctx: Context, p: act.NewCollection) -> list[str]:
    ctx.obs.request("CreateSceneCollection", {"sceneCollectionName": p.name})
    switch_to(ctx.obs, p.name)
    return ["@collections", "@program"]


def check_switch_collection(names: Names, p: act.CollectionParams, ws: Workspace) -> None:
    _no_recording(names, "Scene collections")
    if p.collection not in names.collections:
        raise InvalidAction(f"There is no scene collection {p.collection!r}.",
                            hint=COLLECTION_HINT.format(some_names(names.collections)), code="unknown_collection")


def switch_to(obs: ObsSession, name: str) -> None:
    """Make ``name`` the open collection and check that OBS really opened it."""
    obs.request("SetCurrentSceneCollection", {"sceneCollectionName": name})
    _await(f"open the scene collection {name!r}",
           lambda: obs.request("GetSceneCollectionList")["currentSceneCollectionName"] == name)


def switch_collection(ctx: Context, p: act.CollectionParams) -> list[str]:
    switch_to(ctx.obs, p.collection)
    return ["@collections", "@program"]


def check_duplicate_collection(names: Names, p: act.NewCollection, ws: Workspace) -> None:
    _no_recording(names, "Scene collections")
    _free_collection(names, p.name)


def duplicate_collection(ctx: Context, p: act.NewCollection) -> list[str]:
    """Copy the open collection under a new name and open the copy, as OBS's Duplicate does.

    OBS lists only collections its menu knows, and its menu learns of new files only when OBS itself
    makes one, so: save the open collection, let OBS create the new (empty) one, go back (OBS saves
    the empty one and lists it), write the saved copy over its file, then open it.
    """
    obs = ctx.obs
    original = obs.track_collection()
    copy = json.loads(obs.flush())
    copy["name"] = p.name
    obs.request("CreateSceneCollection", {"sceneCollectionName": p.name})
    switch_to(obs, original)
    target = obs.collection_files()[p.name]
    atomic_write(target, json.dumps(copy, indent=4).encode("utf-8"))
    switch_to(obs, p.name)
    return ["@collections", "@program"]


# ------------------------------------------------------------------ profiles
def check_create_profile(names: Names, p: act.NewProfile, ws: Workspace) -> None:
    _no_recording(names, "Profiles")
    if p.name in names.profiles:
        raise InvalidAction(f"There is already a profile {p.name!r}.",
                            hint=f"Choose another name; profiles: {some_names(names.profiles)}.", code="name_taken")


def create_profile(ctx: Context, p: act.NewProfile) -> list[str]:
    ctx.obs.request("CreateProfile", {"profileName": p.name})
    _await(f"switch to the new profile {p.name!r}",
           lambda: ctx.obs.request("GetProfileList")["currentProfileName"] == p.name)
    return ["@profiles", "@program"]


def check_switch_profile(names: Names, p: act.ProfileParams, ws: Workspace) -> None:
    _no_recording(names, "Profiles")
    if p.profile not in names.profiles:
        raise InvalidAction(f"There is no profile {p.profile!r}.", hint=f"Profiles: {some_names(names.profiles)}.",
                            code="unknown_profile")


def switch_profile(ctx: Context, p: act.ProfileParams) -> list[str]:
    ctx.obs.request("SetCurrentProfile", {"profileName": p.profile})
    _await(f"switch to the profile {p.profile!r}",
           lambda: ctx.obs.request("GetProfileList")["currentProfileName"] == p.profile)
    return ["@profiles", "@program"]


# ------------------------------------------------------------------ studio mode
def check_set_studio_mode(names: Names, p: act.StudioMode, ws: Workspace) -> None:
    if p.enabled and not names.studio:
        names.preview = names.program  # OBS first previews the program scene
    elif not p.enabled:
        names.preview = None


def set_studio_mode(ctx: Context, p: act.StudioMode) -> list[str]:
    send(ctx.obs, "SetStudioModeEnabled", {"studioModeEnabled": p.enabled})
    return ["@program"]


def _studio_on(names: Names) -> None:
    if not names.studio:
        raise InvalidAction("Studio mode is off, so there is no preview scene.",
                            hint="Call set_studio_mode with enabled true first.", code="studio_mode_off")


def check_set_preview_scene(names: Names, p: act.SceneParams, ws: Workspace) -> None:
    _studio_on(names)
    names.preview = names.scene(p.scene)


def set_preview_scene(ctx: Context, p: act.SceneParams) -> list[str]:
    send(ctx.obs, "SetCurrentPreviewScene", {"sceneName": p.scene})
    return ["@program"]


def check_transition(names: Names, p: Any, ws: Workspace) -> None:
    _studio_on(names)


def transition_to_program(ctx: Context, p: Any) -> list[str]:
    send(ctx.obs, "TriggerStudioModeTransition", {})
    return ["@program"]


def send(obs: ObsSession, request: str, data: dict[str, Any]) -> Any:
    """Send a studio-mode request and wait until OBS shows its effect (its window applies them later)."""
    def on_air() -> tuple[str, str | None]:
        """(program scene, preview scene or None when studio mode is off)."""
        listed = obs.request("GetSceneList")
        return listed["currentProgramSceneName"], listed["currentPreviewSceneName"]

    program, preview = on_air()
    answer = obs.request(request, data)
    if request == "SetStudioModeEnabled":
        _await("switch studio mode", lambda: (on_air()[1] is not None) == data["studioModeEnabled"])
    elif request == "SetCurrentPreviewScene":
        _await(f"preview {data['sceneName']!r}", lambda: on_air()[1] == data["sceneName"])
    elif request == "TriggerStudioModeTransition" and preview is not None:
        # The program becomes the old preview at once; when the fade ends, the preview becomes the old
        # program (OBS's default swap mode, which the private config keeps).
        _await("finish the transition", lambda: on_air() == (preview, program))
    return answer


STUDIO_REQUESTS = ("SetStudioModeEnabled", "SetCurrentPreviewScene", "TriggerStudioModeTransition")
# Requests after which the adapter reads collections, profiles and studio mode back from OBS.
SETUP_REQUESTS = STUDIO_REQUESTS + ("SetCurrentSceneCollection", "CreateSceneCollection", "SetCurrentProfile",
                                    "CreateProfile")
