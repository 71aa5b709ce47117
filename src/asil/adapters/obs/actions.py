"""The OBS action vocabulary: parameter models and what else an agent is told (examples, tips).

Every action is data; the adapter checks it against OBS's current names first and then turns it
into obs-websocket requests. Colors are ``#RRGGBB`` (or ``#RRGGBBAA``); positions and sizes are
canvas pixels; file paths are workspace-relative.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, model_validator

from asil.adapters.functions import Vocabulary, navigate_page
from asil.adapters.params import Params

HEX_RE = re.compile(r"#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?")
Name = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f/#]+$",
                            description="A scene, source or filter name (no '/' or '#').")]
Ref = Annotated[str, Field(min_length=1, max_length=100)]
Hex = Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$", description="#RRGGBB or #RRGGBBAA")]
Coord = Annotated[float, Field(ge=-100_000, le=100_000)]
Pair = Annotated[list[Coord], Field(min_length=2, max_length=2)]
ScalePair = Annotated[list[Annotated[float, Field(ge=-100, le=100)]], Field(min_length=2, max_length=2)]
WorkspaceFile = Annotated[str, Field(min_length=1, max_length=255, description="A workspace-relative file path.")]
Scalar = bool | int | float | str
SettingValue = Scalar | list[Scalar] | dict[str, Scalar]
Settings = dict[Annotated[str, Field(min_length=1, max_length=64)], SettingValue]
Pixels = Annotated[int, Field(ge=8, le=4096)]

INPUT_KINDS = {"color": "color_source_v3", "image": "image_source", "text": "text_ft2_source_v2",
               "media": "ffmpeg_source"}
FILTER_KINDS = {
    "color_correction": "color_filter_v2", "chroma_key": "chroma_key_filter_v2",
    "color_key": "color_key_filter_v2", "luma_key": "luma_key_filter_v2", "crop_pad": "crop_filter",
    "sharpen": "sharpness_filter_v2", "scroll": "scroll_filter", "image_mask": "mask_filter_v2",
    "scaling": "scale_filter", "gain": "gain_filter", "noise_gate": "noise_gate_filter",
    "noise_suppress": "noise_suppress_filter_v2", "compressor": "compressor_filter", "limiter": "limiter_filter",
}
AUDIO_FILTERS = {"gain", "noise_gate", "noise_suppress", "compressor", "limiter"}
RECORD_FORMATS = {".mkv": "mkv", ".mp4": "mp4", ".mov": "mov"}


class SceneParams(Params):
    scene: Ref


class CreateScene(Params):
    name: Name


class RenameScene(SceneParams):
    name: Name


class _Placement(Params):
    position: Pair | None = Field(None, description="[x, y] of the item's top-left corner, canvas pixels.")
    scale: ScalePair | None = Field(None, description="[x, y] scale factors (1 = source size).")
    visible: bool = True


class AddInput(_Placement):
    scene: Ref
    name: Name
    kind: Literal["color", "image", "text", "media"]
    color: Hex | None = Field(None, description="color: fill; text: text color.")
    width: Pixels | None = Field(None, description="color only (default 1920).")
    height: Pixels | None = Field(None, description="color only (default 1080).")
    text: Annotated[str, Field(max_length=2000)] | None = Field(None, description="text: the words shown.")
    font_size: Annotated[int, Field(ge=4, le=1024)] | None = Field(None, description="text only.")
    file: WorkspaceFile | None = Field(None, description="image/media: a workspace file.")
    loop: bool | None = Field(None, description="media only.")
    settings: Settings = Field(default_factory=dict, description="Further OBS settings of that source kind.")

    @model_validator(mode="after")
    def _fits_kind(self) -> AddInput:
        allowed = {"color": {"color", "width", "height"}, "text": {"text", "font_size", "color"},
                   "image": {"file"}, "media": {"file", "loop"}}[self.kind]
        given = {k for k in ("color", "width", "height", "text", "font_size", "file", "loop")
                 if getattr(self, k) is not None}
        if given - allowed:
            raise ValueError(f"a {self.kind} input does not take {', '.join(sorted(given - allowed))} "
                             f"(it takes {', '.join(sorted(allowed))})")
        if self.kind in ("image", "media") and self.file is None:
            raise ValueError(f"a {self.kind} input needs a file")
        if self.kind == "text" and self.text is None:
            raise ValueError("a text input needs text")
        return self


class AddToScene(_Placement):
    scene: Ref
    input: Ref


class InputParams(Params):
    input: Ref


class RenameInput(InputParams):
    name: Name


class SetInputSettings(InputParams):
    settings: Annotated[Settings, Field(min_length=1)]


class ItemParams(Params):
    scene: Ref
    source: Ref = Field(description="The source (input or scene) shown by the item.")
    item_id: Annotated[int, Field(ge=1)] | None = Field(None, description="Only when the source is in the scene twice.")


class Crop(Params):
    left: Annotated[int, Field(ge=0, le=8192)] = 0
    top: Annotated[int, Field(ge=0, le=8192)] = 0
    right: Annotated[int, Field(ge=0, le=8192)] = 0
    bottom: Annotated[int, Field(ge=0, le=8192)] = 0


class SetTransform(ItemParams):
    position: Pair | None = None
    scale: ScalePair | None = None
    rotation: Annotated[float, Field(ge=-360, le=360)] | None = Field(None, description="Degrees clockwise.")
    crop: Crop | None = None

    @model_validator(mode="after")
    def _something(self) -> SetTransform:
        if self.position is None and self.scale is None and self.rotation is None and self.crop is None:
            raise ValueError("give at least one of position, scale, rotation, crop")
        return self


class SetVisibility(ItemParams):
    visible: bool


class MoveItem(ItemParams):
    index: Annotated[int, Field(ge=0, le=10_000)] = Field(description="0 = bottom of the scene's stack.")


class AddFilter(Params):
    source: Ref
    name: Name
    kind: Literal[tuple(FILTER_KINDS)]  # type: ignore[valid-type]
    settings: Settings = Field(default_factory=dict)


class FilterParams(Params):
    source: Ref
    filter: Ref


class SetFilter(FilterParams):
    settings: Settings | None = None
    enabled: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> SetFilter:
        if self.settings is None and self.enabled is None:
            raise ValueError("give settings and/or enabled")
        return self


class SetAudio(InputParams):
    muted: bool | None = None
    volume_db: Annotated[float, Field(ge=-100, le=26)] | None = Field(None, description="-100 (silent) .. 26 dB.")

    @model_validator(mode="after")
    def _something(self) -> SetAudio:
        if self.muted is None and self.volume_db is None:
            raise ValueError("give muted and/or volume_db")
        return self


class SetVideo(Params):
    base_width: Pixels | None = Field(None, description="Canvas width (with base_height).")
    base_height: Pixels | None = Field(None, description="Canvas height (with base_width).")
    output_width: Pixels | None = Field(None, description="Scaled output width, a multiple of 4 (with output_height).")
    output_height: Pixels | None = Field(None, description="Scaled output height, even (with output_width).")
    fps: Annotated[int, Field(ge=1, le=120)] | None = Field(None, description="Frames per second.")


class StartRecording(Params):
    path: Annotated[str, Field(min_length=5, max_length=200, pattern=r"^[A-Za-z0-9_./ -]+\.(mkv|mp4|mov)$")] = Field(
        description="Workspace-relative .mkv/.mp4/.mov file to write (must not exist).")


class StopRecording(Params):
    after_s: Annotated[float, Field(ge=0, le=30)] = Field(
        0.0, description="Keep recording this many more seconds, then stop (for a take of a given length).")


class Screenshot(Params):
    path: Annotated[str, Field(min_length=5, max_length=200, pattern=r"(?i)\.png$")] = Field(
        description="Workspace-relative .png path.")
    source: Ref | None = Field(None, description="A scene or input; the program scene when omitted.")
    width: Annotated[int, Field(ge=8, le=1920)] | None = None


class CollectionParams(Params):
    collection: Ref = Field(description="A scene collection's name.")


class NewCollection(Params):
    name: Name = Field(description="The new scene collection's name.")


class RenameCollection(CollectionParams):
    name: Name = Field(description="The collection's new name.")


class ProfileParams(Params):
    profile: Ref = Field(description="A profile's name.")


class NewProfile(Params):
    name: Name = Field(description="The new profile's name.")


class RenameProfile(ProfileParams):
    name: Name = Field(description="The profile's new name.")


class StudioMode(Params):
    enabled: bool = Field(description="True turns studio mode on (a preview beside the program), false off.")


VOCABULARY = Vocabulary(
    app="obs",
    finish="in OBS",
    action_types=("invoke_function", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name (scene/input/source/filter go in params); "
    "navigate: an element id to show, or none",
    navigate_params=navigate_page(200),
    batch_members=("invoke_function",),
    batch_hint="Put only invoke_function actions in a batch.",
    max_batch=50,
    examples=[
        {"action_type": "invoke_function", "target": "create_scene", "params": {"name": "Intro"}},
        {"action_type": "invoke_function", "target": "add_input",
         "params": {"scene": "Intro", "name": "Backdrop", "kind": "color", "color": "#1E90FF",
                    "width": 640, "height": 360}},
        {"action_type": "invoke_function", "target": "add_input",
         "params": {"scene": "Intro", "name": "Title", "kind": "text", "text": "Welcome", "font_size": 48,
                    "position": [40, 40]}},
        {"action_type": "invoke_function", "target": "set_transform",
         "params": {"scene": "Intro", "source": "Title", "position": [100, 200], "scale": [1.5, 1.5], "rotation": 0}},
        {"action_type": "invoke_function", "target": "set_input_settings",
         "params": {"input": "Title", "settings": {"text": "Welcome back"}}},
        {"action_type": "invoke_function", "target": "add_filter",
         "params": {"source": "Backdrop", "name": "Dim", "kind": "color_correction", "settings": {"opacity": 0.5}}},
        {"action_type": "invoke_function", "target": "set_visibility",
         "params": {"scene": "Intro", "source": "Title", "visible": False}},
        {"action_type": "invoke_function", "target": "switch_scene", "params": {"scene": "Intro"}},
        {"action_type": "invoke_function", "target": "rename_scene", "params": {"scene": "Intro", "name": "Opening"}},
        {"action_type": "invoke_function", "target": "set_video",
         "params": {"base_width": 1280, "base_height": 720, "output_width": 640, "output_height": 360, "fps": 30}},
        {"action_type": "invoke_function", "target": "save_screenshot", "params": {"path": "shot.png", "width": 320}},
        {"action_type": "navigate", "params": {"offset": 0, "limit": 40}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "create_scene", "params": {"name": "Break"}},
            {"action_type": "invoke_function", "target": "add_input",
             "params": {"scene": "Break", "name": "Be Right Back", "kind": "text", "text": "Be right back"}}]}},
    ],
    tips=[
        "Element ids: 'scene:<name>', 'input:<name>', 'item:<scene>/<source>' (with '#<id>' when a source is in a "
        "scene twice), '@program' (program scene, video, recording). A source's filters are in its meta.filters.",
        "Scenes, inputs and filters are addressed by name in params (scene, input, source, filter). Scene and input "
        "names share one namespace: a new name must not be used by any scene or input.",
        "Positions and sizes are canvas pixels (see '@program' video.base); an item's position is its top-left "
        "corner; scale 1 is the source's own size; rotation is in degrees.",
        "Colors are '#RRGGBB' or '#RRGGBBAA'. Input settings are OBS's own keys (text: text, font {face,size}, color1; "
        "color: color, width, height; image/media: file, local_file, looping). Paths are workspace-relative.",
        "Filters: color_correction (opacity 0..1, brightness, contrast, saturation, gamma), chroma_key, crop_pad "
        "(left, top, right, bottom), sharpen, scroll, gain (db) ... set_audio works on inputs with audio (media).",
        "An input lives only while some scene shows it: removing its last scene item (or that scene) removes the "
        "input too, as in OBS. remove_scene, remove_input, remove_from_scene and remove_filter are destructive. "
        "A batch is atomic: if one action fails, OBS is back in the state before the batch.",
        "set_video changes the canvas (base), the scaled output and fps; they are saved with the collection. The "
        "output width must be a multiple of 4 and the output height even (OBS would round other sizes down).",
        "start_recording writes a new workspace file; call stop_recording before finishing so the file is complete.",
        "'@collections' lists the scene collections (the open one is what every scene:/input: element shows); "
        "create_collection and duplicate_collection make the new one the open one, as OBS does. '@profiles' lists "
        "the profiles; each has its own video settings, so switch_profile changes '@program' video.",
        "rename_collection, remove_collection, rename_profile and remove_profile change OBS's own config files "
        "(obs-websocket has no requests for them), so OBS restarts to read them (a few seconds; a running "
        "recording would stop, so they are refused while recording). The open collection and the current profile "
        "can be renamed but not removed: switch to another one first.",
        "Studio mode: set_studio_mode, then set_preview_scene to prepare a scene and transition_to_program to put "
        "it on air (the old program scene becomes the preview). switch_scene changes the program scene directly.",
    ],
)
