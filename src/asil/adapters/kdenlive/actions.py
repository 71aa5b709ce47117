"""The Kdenlive action vocabulary: parameter models, effect registries, examples and tips."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.functions import Vocabulary, navigate_page
from asil.adapters.params import Params

MAX_BATCH = 200
MAX_LIMIT = 200
MAX_FRAME = 10_000_000
IdText = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.:\-]{0,99}$")]
Frame = Annotated[int, Field(ge=0, le=MAX_FRAME)]
Value = float | int | Annotated[str, Field(max_length=500, pattern=r"^[^\x00-\x1f<>&]*$")]
ParamMap = dict[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_.]{0,60}$")], Value]

# Filters an agent may add: MLT service -> (what it does, the properties it takes). Curated, not every
# melt filter: some (watermark, dynamictext, consumer) read or write files or need fonts.
FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "brightness": ("Scale brightness; level 1 = unchanged, 0 = black (keyframes like '0=0;25=1' fade).",
                   ("level", "alpha")),
    "greyscale": ("Remove colour.", ()),
    "sepia": ("Sepia tone (u, v chroma 0-255).", ("u", "v")),
    "invert": ("Invert colours.", ()),
    "gamma": ("Gamma correction (1 = unchanged).", ("gamma",)),
    "mirror": ("Mirror: horizontal, vertical, diagonal, xdiagonal, flip or flop.", ("mirror", "reverse")),
    "crop": ("Crop pixels from the edges.", ("left", "right", "top", "bottom", "center")),
    "box_blur": ("Box blur with horizontal and vertical radius in pixels.", ("hradius", "vradius")),
    "charcoal": ("Charcoal sketch look.", ("x_scatter", "y_scatter", "scale", "mix", "invert")),
    "avfilter.hflip": ("Flip left-right.", ()),
    "avfilter.vflip": ("Flip upside down.", ()),
    "affine": ("Position and size (transition.rect 'x y w h', percentages allowed).",
               ("transition.rect", "transition.fill", "transition.distort")),
    "volume": ("Audio gain: gain (linear, 0 = mute, keyframes allowed) or level (dB).", ("gain", "level")),
    "panner": ("Audio balance: start 0 = left, 0.5 = centre, 1 = right.", ("start",)),
}
TRANSITIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "luma": ("Dissolve from track a to track b (a wipe with softness when reverse/softness are set).",
             ("softness", "reverse")),
    "mix": ("Mix the audio of both tracks (sum=1 adds them, otherwise a cross-fade from start to end).",
            ("start", "end", "sum")),
    "composite": ("Put track b over track a in a geometry 'x/y:wxh:opacity' (percentages allowed).",
                  ("geometry", "fill", "distort")),
    "affine": ("Put track b over track a in a rect 'x y w h opacity'.", ("rect", "fill", "distort")),
}


class AddClip(Params):
    track: IdText = Field(description="Track id.")
    source: str = Field(min_length=1, max_length=500, description="Workspace media path (video, audio, image), "
                        "'color:#rrggbb' / 'color:NAME', or 'bin:CLIP' for a clip of the project bin (a title too).")
    in_frame: Frame = Field(0, description="First source frame (inclusive).")
    out_frame: Frame = Field(description="Last source frame (inclusive); length = out_frame - in_frame + 1.")
    position: Frame | None = Field(None, description="Timeline start frame; the end of the track when omitted.")
    ripple: bool = Field(False, description="Push later clips right to make room instead of needing a gap.")
    id: IdText | None = Field(None, description="Id for the new clip; generated when omitted.")


class MoveClip(Params):
    clip: IdText
    position: Frame = Field(description="New timeline start frame; the span there must be free.")
    track: IdText | None = Field(None, description="Move to this track; the same track when omitted.")


class TrimClip(Params):
    clip: IdText
    in_frame: Frame | None = Field(None, description="New first source frame.")
    out_frame: Frame | None = Field(None, description="New last source frame (inclusive).")
    keep: Literal["start", "end"] = Field("start", description="Which timeline edge stays put.")


class SplitClip(Params):
    clip: IdText
    at: Frame = Field(description="Timeline frame where the second part starts (strictly inside the clip).")
    new_id: IdText | None = Field(None, description="Id for the second part; generated when omitted.")


class DeleteClip(Params):
    clip: IdText
    ripple: bool = Field(False, description="Close the gap by pulling later clips on the track left.")


class AddTrack(Params):
    id: IdText | None = Field(None, description="Id of the new track; generated when omitted.")
    name: str | None = Field(None, max_length=100)


class DeleteTrack(Params):
    track: IdText = Field(description="Track id; its clips go with it.")


class SetTrack(Params):
    track: IdText = Field(description="Track id.")
    name: Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f<>&]*$")] | None = Field(
        None, description="New display name.")
    hidden: bool | None = Field(None, description="true hides the track's video (MLT hide), false shows it.")
    muted: bool | None = Field(None, description="true mutes the track's audio, false unmutes it.")


class AddFilter(Params):
    target: IdText = Field(description="A clip id, a track id, or 'timeline' for the whole project.")
    service: str = Field(description="MLT filter service: " + ", ".join(FILTERS) + ".")
    params: ParamMap = Field(default_factory=dict, description="Filter properties (see the service's list).")
    id: IdText | None = None


class SetFilter(Params):
    filter: IdText
    params: Annotated[dict[str, Value | None], Field(min_length=1)] = Field(
        description="Properties to set; null removes one.")


class RemoveEffect(Params):
    id: IdText = Field(description="A filter or transition id.")


class AddTransition(Params):
    service: str = Field(description="MLT transition service: " + ", ".join(TRANSITIONS) + ".")
    a_track: IdText = Field(description="The lower track (the one transitioned from / composited onto).")
    b_track: IdText = Field(description="The upper track.")
    start: Frame
    end: Frame = Field(description="Last frame (inclusive).")
    params: ParamMap = Field(default_factory=dict)
    id: IdText | None = None


class SetProfile(Params):
    width: Annotated[int, Field(ge=16, le=8192, multiple_of=2)] | None = None
    height: Annotated[int, Field(ge=16, le=8192, multiple_of=2)] | None = None
    fps_num: Annotated[int, Field(ge=1, le=240_000)] | None = None
    fps_den: Annotated[int, Field(ge=1, le=1001)] | None = None
    display_aspect_num: Annotated[int, Field(ge=1, le=100)] | None = None
    display_aspect_den: Annotated[int, Field(ge=1, le=100)] | None = None
    description: str | None = Field(None, max_length=100)


class RenderVideo(Params):
    path: str = Field(pattern=r"(?i)^[^\x00]+\.(mp4|mkv|mov)$", description="Workspace-relative .mp4/.mkv/.mov.")
    start: Frame | None = Field(None, description="First timeline frame; 0 when omitted.")
    end: Frame | None = Field(None, description="Last timeline frame (inclusive); the end when omitted.")


class RenderFrame(Params):
    path: str = Field(pattern=r"(?i)^[^\x00]+\.png$", description="Workspace-relative .png path.")
    frame: Frame


def _fn(function: str, **params: Any) -> dict[str, Any]:
    return {"action_type": "invoke_function", "target": function, "params": params}


VOCABULARY = Vocabulary(
    app="kdenlive",
    finish="with these actions",
    action_types=("invoke_function", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name; navigate: 'timeline' or a track id",
    navigate_params=navigate_page(MAX_LIMIT),
    batch_members=("invoke_function",),
    batch_hint="Put only edits in a batch; render and save on their own.",
    max_batch=MAX_BATCH,
    examples=[
        _fn("add_clip", track="V1", source="color:#2266cc", out_frame=24, id="blue"),
        _fn("trim_clip", clip="blue", out_frame=19),
        _fn("move_clip", clip="blue", position=60),
        _fn("split_clip", clip="blue", at=70, new_id="blue_b"),
        _fn("add_filter", target="blue", service="brightness", params={"level": 0.5}, id="dim"),
        _fn("set_filter", filter="dim", params={"level": "0=0;10=1"}),
        _fn("add_track", id="V2"),
        _fn("add_clip", track="V2", source="color:white", out_frame=9, position=65),
        _fn("add_transition", service="luma", a_track="V1", b_track="V2", start=65, end=74, id="fade"),
        _fn("remove_effect", id="fade"),
        _fn("delete_clip", clip="blue_b", ripple=True),
        _fn("set_track", track="V2", name="Overlay", hidden=True, muted=True),
        _fn("add_track", id="V3"),
        _fn("delete_track", track="V3"),
        _fn("set_profile", width=320, height=180, fps_num=50, fps_den=1),
        _fn("render_frame", path="preview.png", frame=124),
        {"action_type": "navigate", "target": "timeline", "params": {"offset": 0, "limit": 60}},
        {"action_type": "batch", "params": {"actions": [
            _fn("add_filter", target="blue", service="greyscale"),
            _fn("move_clip", clip="blue", position=0)]}},
        _fn("add_guide", frame=50, comment="Chapter 2", category=1),
        _fn("set_guide", frame=50, comment="Second chapter", new_frame=60),
        _fn("add_bin_clip", source="color:#22aa44", name="Green card", id="green_card"),
        _fn("add_clip_marker", clip="green_card", frame=10, comment="Cue", category=2),
        _fn("set_clip_marker", clip="green_card", frame=10, comment="Cue in"),
        _fn("delete_clip_marker", clip="green_card", frame=10),
        _fn("add_title", text="Opening", id="opening", duration=50),
        _fn("set_title", clip="opening", text="The opening"),
        _fn("add_clip", track="V1", source="bin:opening", out_frame=49, position=400),
        _fn("set_bin_clip", clip="green_card", name="Green"),
        _fn("delete_bin_clip", clip="green_card"),
        _fn("delete_guide", frame=60),
    ],
    tips=[
        "Times are frames at the profile's frame rate (meta/details give fps); a clip spans "
        "[start, end) on the timeline and plays source frames in_frame..out_frame inclusive.",
        "Clip ids (like 'c3') stay the same through moves, trims and edits; split_clip keeps the id on the first part.",
        "Tracks are listed bottom to top; add_transition composites or dissolves b_track over a_track.",
        "add_clip and move_clip need a free span unless ripple is true; sources are workspace paths or 'color:#rrggbb'.",
        "Filter services and their properties: " + "; ".join(f"{k} ({', '.join(v[1]) or 'none'})"
                                                             for k, v in FILTERS.items()) + ".",
        "set_profile with a new frame rate rescales clips, gaps, transitions and keyframes to stay at the same "
        "seconds (whole frames, rounded half up): at 25 -> 50 fps frame 25 becomes frame 50.",
        "delete_track removes a track with its clips; remove transitions that use it first. set_track hidden/muted "
        "are MLT's hide flags (hidden video still plays its audio unless muted).",
        "Guides are timeline markers (one per frame, a comment and a category 0-8); clip markers belong to a bin "
        "clip and count its source frames, so every use of the clip shows them. Elements 'guide:FRAME' and "
        "'bin_clip' show them; environment.marker_categories names the categories.",
        "The bin holds clips whether or not the timeline uses them (value.on_timeline); add_bin_clip imports "
        "without placing, add_title makes a title clip; place either with add_clip source 'bin:ID'.",
        "Edits change the project in memory; save (or the episode's end) writes the file. render_video and "
        "render_frame run melt on the current state; a batch is atomic (all or nothing).",
    ],
)
