"""OBS's functions, each declared once with its parameters and its (check, apply) handler.

The order here is the order of the published schema. ``acts_on`` is what a function changes:
``file`` functions only write a workspace file (OBS's state stays as it was), and after a
``video`` function the adapter reads back the video settings OBS really took. ``save`` has no
handler: the adapter writes the workspace files itself.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.obs import actions as act
from asil.adapters.obs import config_ops as config
from asil.adapters.obs import item_ops as item
from asil.adapters.obs import operations as ops
from asil.adapters.obs import output_ops as out
from asil.adapters.obs import studio_ops as studio
from asil.adapters.params import NoParams, Params

UNCHANGED = "file"  # acts_on of the functions that leave OBS's own state alone
VIDEO = "video"
CONFIG = "config"  # functions that change OBS's config files: the adapter restarts OBS on them
# After these the adapter reads collections, profiles (with the current one's video) and studio mode back.
SETUP = ("collection", "profile", "studio", CONFIG)
Handler = ops.Operation | config.ConfigEdit


def _config(name: str, params: type[Params], description: str, check: Any, edit: Any,
            **options: Any) -> AppFunction[Handler]:
    return AppFunction(name, params, description, acts_on=CONFIG, handler=config.ConfigEdit(check, edit),
                       batch=False, **options)


def _op(name: str, params: type[Params], description: str, acts_on: str, check: ops.Check, apply: ops.Apply,
        **options: Any) -> AppFunction[Handler]:
    return AppFunction(name, params, description, acts_on=acts_on, handler=ops.Operation(check, apply), **options)


FUNCTIONS: FunctionTable[Handler] = FunctionTable("OBS", [
    _op("create_scene", act.CreateScene, "Create an empty scene.", "scene", ops.check_create_scene, ops.create_scene),
    _op("rename_scene", act.RenameScene, "Rename a scene.", "scene", ops.check_rename_scene, ops.rename_scene),
    _op("remove_scene", act.SceneParams, "Remove a scene (its items go; the inputs stay).", "scene",
        ops.check_remove_scene, ops.remove_scene, destructive=True),
    _op("switch_scene", act.SceneParams, "Make a scene the program (live) scene.", "scene",
        ops.check_switch_scene, ops.switch_scene),
    _op("add_input", act.AddInput, "Create a color, image, text or media input and add it to a scene.", "input",
        ops.check_add_input, ops.add_input),
    _op("add_to_scene", act.AddToScene, "Show an existing input (or scene) in another scene too.", "item",
        ops.check_add_to_scene, ops.add_to_scene),
    _op("set_input_settings", act.SetInputSettings, "Change an input's settings (merged into the current ones).",
        "input", ops.check_set_input_settings, ops.set_input_settings),
    _op("rename_input", act.RenameInput, "Rename an input.", "input", ops.check_rename_input, ops.rename_input),
    _op("remove_input", act.InputParams, "Remove an input from every scene and from OBS.", "input",
        ops.check_remove_input, ops.remove_input, destructive=True),
    _op("remove_from_scene", act.ItemParams, "Remove one scene item (the input stays in OBS).", "item",
        item.check_remove_from_scene, item.remove_from_scene, destructive=True),
    _op("set_transform", act.SetTransform, "Set a scene item's position, scale, rotation and/or crop.", "item",
        item.check_set_transform, item.set_transform),
    _op("set_visibility", act.SetVisibility, "Show or hide a scene item.", "item",
        item.check_set_visibility, item.set_visibility),
    _op("move_item", act.MoveItem, "Move a scene item in the scene's stack (0 = bottom).", "item",
        item.check_move_item, item.move_item),
    _op("add_filter", act.AddFilter, "Add a filter to a source.", "filter", item.check_add_filter, item.add_filter),
    _op("set_filter", act.SetFilter, "Change a filter's settings or enable/disable it.", "filter",
        item.check_set_filter, item.set_filter),
    _op("remove_filter", act.FilterParams, "Remove a filter from a source.", "filter",
        item.check_remove_filter, item.remove_filter, destructive=True),
    _op("set_audio", act.SetAudio, "Mute/unmute an input with audio or set its volume in dB.", "input",
        item.check_set_audio, item.set_audio),
    _op("set_video", act.SetVideo, "Set the canvas (base) and output resolution and the frame rate.", VIDEO,
        out.check_set_video, out.set_video),
    _op("start_recording", act.StartRecording, "Start recording the program output to a workspace file.",
        "recording", out.check_start_recording, out.start_recording),
    _op("stop_recording", act.StopRecording, "Stop the recording (optionally after_s seconds from now) and wait "
        "until the file is complete.", "recording", out.check_stop_recording, out.stop_recording),
    _op("save_screenshot", act.Screenshot, "Save OBS's own screenshot of a scene or input as a PNG.", UNCHANGED,
        out.check_screenshot, out.save_screenshot),
    _op("create_collection", act.NewCollection, "Create an empty scene collection and open it (as OBS does).",
        "collection", studio.check_create_collection, studio.create_collection, batch=False),
    _op("switch_collection", act.CollectionParams, "Open another scene collection (the open one is kept).",
        "collection", studio.check_switch_collection, studio.switch_collection, batch=False),
    _op("duplicate_collection", act.NewCollection, "Copy the open scene collection under a new name and open the "
        "copy (as OBS's Duplicate does).", "collection", studio.check_duplicate_collection,
        studio.duplicate_collection, batch=False,
        examples=({"action_type": "invoke_function", "target": "duplicate_collection",
                   "params": {"name": "Show Backup"}},)),
    _config("rename_collection", act.RenameCollection, "Rename a scene collection (the open one too), as OBS's "
            "Rename does; OBS restarts to list it.", config.check_rename_collection, config.rename_collection,
            examples=({"action_type": "invoke_function", "target": "rename_collection",
                       "params": {"collection": "Sample", "name": "Sample 2026"}},)),
    _config("remove_collection", act.CollectionParams, "Remove a scene collection that is not open (its file "
            "goes, as OBS's Remove does); OBS restarts to forget it.", config.check_remove_collection,
            config.remove_collection, destructive=True),
    _op("create_profile", act.NewProfile, "Create a profile with OBS's default settings and switch to it.",
        "profile", studio.check_create_profile, studio.create_profile, batch=False,
        examples=({"action_type": "invoke_function", "target": "create_profile", "params": {"name": "Vertical"}},)),
    _op("switch_profile", act.ProfileParams, "Switch to another profile (its own video settings apply).",
        "profile", studio.check_switch_profile, studio.switch_profile, batch=False),
    _config("rename_profile", act.RenameProfile, "Rename a profile (the current one too), as OBS's Rename does; "
            "OBS restarts to list it.", config.check_rename_profile, config.rename_profile),
    _config("remove_profile", act.ProfileParams, "Remove a profile that is not the current one (its folder goes, "
            "as OBS's Remove does); OBS restarts to forget it.", config.check_remove_profile, config.remove_profile,
            destructive=True),
    _op("set_studio_mode", act.StudioMode, "Turn studio mode (preview beside program) on or off.", "studio",
        studio.check_set_studio_mode, studio.set_studio_mode,
        examples=({"action_type": "invoke_function", "target": "set_studio_mode", "params": {"enabled": True}},)),
    _op("set_preview_scene", act.SceneParams, "In studio mode, show a scene in the preview (not on air).",
        "studio", studio.check_set_preview_scene, studio.set_preview_scene),
    _op("transition_to_program", NoParams, "In studio mode, put the preview scene on program (the old program "
        "scene becomes the preview).", "studio", studio.check_transition, studio.transition_to_program),
    AppFunction("save", NoParams, "Write the scene collection and video settings now (they are also saved when "
                "the episode ends).", acts_on=UNCHANGED, batch=False),
])

