"""The obs-websocket 5 requests that ``api_call`` may send, with their data as obs-websocket names it.

Reads of the scene collection and writes that stay inside it (program scene, scene and input names,
mute and volume, item visibility, lock and order, filter switches, removing scenes, inputs and filters),
and the scene collections, profiles and studio mode the adapter keeps with the document (listing,
creating and switching them; the preview scene and the studio transition). Requests that reach
outside what the workspace keeps (file paths in input settings, recording, profile parameters,
removing profiles or collections, hotkeys, quitting OBS) are not on the list.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from asil.adapters.api import ApiAllowlist, ApiRequest
from asil.adapters.obs.actions import Name, Ref
from asil.adapters.params import NoParams, Params

ItemId = Annotated[int, Field(ge=0)]


class Scene(Params):
    sceneName: Ref


class Input(Params):
    inputName: Ref


class Source(Params):
    sourceName: Ref


class RenameScene(Params):
    sceneName: Ref
    newSceneName: Name


class NewScene(Params):
    sceneName: Name


class RenameInput(Params):
    inputName: Ref
    newInputName: Name


class InputMute(Params):
    inputName: Ref
    inputMuted: bool


class InputVolume(Params):
    inputName: Ref
    inputVolumeDb: Annotated[float, Field(ge=-100, le=26)] | None = None
    inputVolumeMul: Annotated[float, Field(ge=0, le=20)] | None = None


class ItemEnabled(Params):
    sceneName: Ref
    sceneItemId: ItemId
    sceneItemEnabled: bool


class ItemLocked(Params):
    sceneName: Ref
    sceneItemId: ItemId
    sceneItemLocked: bool


class ItemIndex(Params):
    sceneName: Ref
    sceneItemId: ItemId
    sceneItemIndex: Annotated[int, Field(ge=0)]


class FilterEnabled(Params):
    sourceName: Ref
    filterName: Ref
    filterEnabled: bool


class Filter(Params):
    sourceName: Ref
    filterName: Ref


class Collection(Params):
    sceneCollectionName: Ref


class NewCollection(Params):
    sceneCollectionName: Name


class Profile(Params):
    profileName: Ref


class NewProfile(Params):
    profileName: Name


class StudioMode(Params):
    studioModeEnabled: bool


OBS_API: ApiAllowlist[None] = ApiAllowlist("OBS", "obs-websocket requests")
OBS_API.extend([
    ApiRequest("GetVersion", "OBS's and obs-websocket's versions.", NoParams, reads=True),
    ApiRequest("GetSceneList", "The scenes, the program scene and the preview scene.", NoParams, reads=True),
    ApiRequest("GetCurrentProgramScene", "The scene on program.", NoParams, reads=True),
    ApiRequest("GetSceneItemList", "The items of a scene with ids, sources and enabled/locked states.", Scene,
               reads=True),
    ApiRequest("GetInputList", "The inputs with their kinds.", NoParams, reads=True),
    ApiRequest("GetInputSettings", "An input's own settings.", Input, reads=True),
    ApiRequest("GetInputMute", "Whether an input is muted.", Input, reads=True),
    ApiRequest("GetInputVolume", "An input's volume (multiplier and dB).", Input, reads=True),
    ApiRequest("GetSourceFilterList", "A source's filters.", Source, reads=True),
    ApiRequest("GetVideoSettings", "Base and output resolution and frame rate.", NoParams, reads=True),
    ApiRequest("GetRecordStatus", "Whether OBS is recording.", NoParams, reads=True),
    ApiRequest("SetCurrentProgramScene", "Put a scene on program.", Scene),
    ApiRequest("CreateScene", "Create an empty scene.", NewScene),
    ApiRequest("SetSceneName", "Rename a scene.", RenameScene),
    ApiRequest("RemoveScene", "Remove a scene (its items go; the inputs stay).", Scene, destructive=True),
    ApiRequest("SetInputName", "Rename an input.", RenameInput),
    ApiRequest("SetInputMute", "Mute or unmute an input.", InputMute),
    ApiRequest("SetInputVolume", "Set an input's volume (inputVolumeDb or inputVolumeMul).", InputVolume),
    ApiRequest("SetSceneItemEnabled", "Show or hide a scene item.", ItemEnabled),
    ApiRequest("SetSceneItemLocked", "Lock or unlock a scene item.", ItemLocked),
    ApiRequest("SetSceneItemIndex", "Move a scene item in its scene's order (0 is the bottom).", ItemIndex),
    ApiRequest("SetSourceFilterEnabled", "Switch a filter on or off.", FilterEnabled),
    ApiRequest("RemoveSourceFilter", "Remove a filter from a source.", Filter, destructive=True),
    ApiRequest("RemoveInput", "Remove an input and every scene item showing it.", Input, destructive=True),
    ApiRequest("GetSceneCollectionList", "The scene collections and the open one.", NoParams, reads=True),
    ApiRequest("SetCurrentSceneCollection", "Open another scene collection.", Collection),
    ApiRequest("CreateSceneCollection", "Create an empty scene collection and open it.", NewCollection),
    ApiRequest("GetProfileList", "The profiles and the current one.", NoParams, reads=True),
    ApiRequest("SetCurrentProfile", "Switch to another profile (with its video settings).", Profile),
    ApiRequest("CreateProfile", "Create a profile with OBS's defaults and switch to it.", NewProfile),
    ApiRequest("GetStudioModeEnabled", "Whether studio mode is on.", NoParams, reads=True),
    ApiRequest("SetStudioModeEnabled", "Turn studio mode on or off.", StudioMode),
    ApiRequest("GetCurrentPreviewScene", "The preview scene (studio mode only).", NoParams, reads=True),
    ApiRequest("SetCurrentPreviewScene", "Show a scene in the preview (studio mode only).", Scene),
    ApiRequest("TriggerStudioModeTransition", "Put the preview scene on program (studio mode only).", NoParams),
])
