"""Checkpoint types that read a saved MLT project (through the adapter's model) or a rendered video.

Targets: a track id (``"V1"``) for clip lists; a scope for filters — ``"timeline"``, a track id,
or ``"V1:0"`` (the first clip on V1) — with ``/service.property`` for a filter value; a profile
field; a workspace path for rendered videos (read with ffprobe).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree as ET

from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

if TYPE_CHECKING:
    from asil.adapters.kdenlive.project import Placed, Project


def _project(ctx: EvalContext, cp: Checkpoint) -> Project:
    from asil.adapters.kdenlive.adapter import KdenliveAdapter

    adapter = ctx.adapter("kdenlive", require(cp.document, "document (.kdenlive path)"))
    assert isinstance(adapter, KdenliveAdapter)
    return adapter.project


def _clips(project: Project, track_id: str) -> list[Placed]:
    track = project.track(track_id)
    if track is None or track.playlist is None:
        raise CheckpointUnreadable(f"there is no editable track {track_id!r}")
    return project.placed(track.playlist)


def _label(project: Project, clip: Placed) -> str:
    from asil.adapters.kdenlive.media import source_label

    return source_label(project.producer_of(clip.entry))


@checkpoint_type("kdenlive_track_sources")
def track_sources(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The sources (media path or ``color:VALUE``) of track ``target``'s clips, in timeline order."""
    project = _project(ctx, cp)
    return [_label(project, c) for c in _clips(project, require(cp.target, "track id"))]


@checkpoint_type("kdenlive_track_clips")
def track_clips(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """``[source, start, end]`` (end exclusive, frames) for each clip of track ``target``."""
    project = _project(ctx, cp)
    return [[_label(project, c), c.start, c.end] for c in _clips(project, require(cp.target, "track id"))]


@checkpoint_type("kdenlive_clip_spans")
def clip_spans(ctx: EvalContext, cp: Checkpoint) -> list[list[int]]:
    """``[in_frame, out_frame]`` (source frames, inclusive) for each clip of track ``target``."""
    project = _project(ctx, cp)
    return [list(project.entry_span(c.entry)) for c in _clips(project, require(cp.target, "track id"))]


@checkpoint_type("kdenlive_tracks")
def track_ids(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The ids of the editable tracks, bottom to top (background tracks are left out)."""
    return [t.id for t in _project(ctx, cp).tracks() if t.playlist is not None]


@checkpoint_type("kdenlive_track_state")
def track_state(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """``{"name": NAME or None, "hidden": bool, "muted": bool}`` of track ``target`` (MLT's hide flags)."""
    from asil.adapters.kdenlive.project import HIDE_BITS

    project = _project(ctx, cp)
    track = project.track(require(cp.target, "track id"))
    if track is None or track.playlist is None:
        raise CheckpointUnreadable(f"there is no editable track {cp.target!r}")
    hidden, muted = HIDE_BITS[track.hidden]
    return {"name": track.name, "hidden": hidden, "muted": muted}


@checkpoint_type("kdenlive_clip_count")
def clip_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many clips track ``target`` holds (all tracks when the target is omitted)."""
    project = _project(ctx, cp)
    if cp.target is None:
        return len(project.clips())
    return len(_clips(project, cp.target))


def scope_element(project: Project, scope: str) -> ET.Element:
    """``timeline``, a track id, or ``TRACK:N`` (the N-th clip of the track, from 0)."""
    if scope == "timeline":
        return project.main_tractor()
    track_id, sep, number = scope.partition(":")
    if not sep:
        track = project.track(track_id)
        if track is None or track.playlist is None:
            raise CheckpointUnreadable(f"there is no editable track {track_id!r}")
        return track.playlist
    clips = _clips(project, track_id)
    if not number.isdigit() or int(number) >= len(clips):
        raise CheckpointUnreadable(f"track {track_id!r} has no clip number {number}")
    return clips[int(number)].entry


def number_or_text(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value


@checkpoint_type("kdenlive_filter_services")
def filter_services(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The MLT services of the filters on ``target`` (a scope), in order; Kdenlive's own ``internal_added``
    filters (the timeline's volume and panner) are left out."""
    from asil.adapters.kdenlive.project import is_internal, prop

    owner = scope_element(_project(ctx, cp), require(cp.target, "scope"))
    return [prop(f, "mlt_service") or "" for f in owner.findall("filter") if not is_internal(f)]


@checkpoint_type("kdenlive_filter_value", default_compare="approx")
def filter_value(ctx: EvalContext, cp: Checkpoint) -> float | str:
    """``SCOPE/service.property`` of the first such filter; numbers come back as floats."""
    from asil.adapters.kdenlive.project import prop

    scope, _, rest = require(cp.target, "target").partition("/")
    service, _, name = rest.partition(".")
    owner = scope_element(_project(ctx, cp), scope)
    for node in owner.findall("filter"):
        if prop(node, "mlt_service") == service:
            value = prop(node, name)
            if value is None:
                raise CheckpointUnreadable(f"the {service} filter on {scope} has no {name!r}")
            return number_or_text(value)
    raise CheckpointUnreadable(f"there is no {service} filter on {scope}")


@checkpoint_type("kdenlive_transitions")
def transitions(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """``[service, a_track, b_track, start, end]`` for each transition a user made (tracks by id, end inclusive);
    Kdenlive's automatic compositing between tracks (``internal_added``) is left out."""
    from asil.adapters.kdenlive.project import prop

    project = _project(ctx, cp)
    tracks = {str(t.index): t.id for t in project.tracks()}
    found = []
    for node in project.transitions(internal=False):
        a, b = prop(node, "a_track") or "0", prop(node, "b_track") or "1"
        found.append([prop(node, "mlt_service") or "", tracks.get(a, a), tracks.get(b, b),
                      project.frames(node.get("in"), 0), project.frames(node.get("out"), 0)])
    return found


@checkpoint_type("kdenlive_profile")
def profile_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """A profile field: width, height, fps (float), fps_num, fps_den or display_aspect ('16:9')."""
    p = _project(ctx, cp).profile()
    values = {"width": p.width, "height": p.height, "fps": p.fps, "fps_num": p.fps_num, "fps_den": p.fps_den,
              "display_aspect": f"{p.dar_num}:{p.dar_den}"}
    field = require(cp.target, "profile field")
    if field not in values:
        raise CheckpointUnreadable(f"the profile has no field {field!r}")
    return values[field]


def _video_stream(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    from asil.apps.melt import probe
    from asil.protocol import AsilError

    path = ctx.workspace.resolve(require(cp.target, "video path"))
    if not path.is_file():
        raise CheckpointUnreadable(f"{cp.target!r} does not exist")
    try:
        streams = probe(path).get("streams", [])
    except AsilError as exc:
        raise CheckpointUnreadable(exc.message) from None
    video = [s for s in streams if s.get("codec_type") == "video"]
    if not video:
        raise CheckpointUnreadable(f"{cp.target!r} has no video stream")
    stream: dict[str, Any] = video[0]
    return stream


@checkpoint_type("kdenlive_video_size")
def video_size(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """[width, height] of the rendered video (or PNG) at workspace path ``target``."""
    stream = _video_stream(ctx, cp)
    return [int(stream["width"]), int(stream["height"])]


@checkpoint_type("kdenlive_video_duration", default_compare="approx")
def video_duration(ctx: EvalContext, cp: Checkpoint) -> float:
    """Seconds of the video stream of the file at ``target`` (use a tolerance of about one frame)."""
    stream = _video_stream(ctx, cp)
    try:
        return float(stream["duration"])
    except (KeyError, ValueError):
        raise CheckpointUnreadable(f"{cp.target!r} does not say its duration") from None
