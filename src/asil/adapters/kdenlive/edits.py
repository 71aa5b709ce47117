"""Timeline edits on a :class:`Project`: each function checks everything, then changes the tree.

The adapter runs edits on a copy of the project and swaps it in only when all succeed, so a
failing edit (or batch) leaves the state untouched. A track is rewritten from its list of
placed clips: blanks fill the gaps, so positions are explicit and clips never overlap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive import actions as act
from asil.adapters.kdenlive.bin import bin_clips, find_bin_clip
from asil.adapters.kdenlive.media import LONG, Source, parse_source, producer_service
from asil.adapters.kdenlive.project import CLIP_ID, Placed, Project, Track, prop, set_prop
from asil.adapters.kdenlive.rescale import rescale
from asil.adapters.kdenlive.tracks import bad, editable_track
from asil.apps.melt import media_seconds
from asil.workspace import Workspace


@dataclass
class EditContext:
    """What edits may consult besides the project: the workspace and the project's folder."""

    workspace: Workspace
    project_dir: Path
    media_frames: Callable[[Path, float], int | None]


Edit = Callable[[Project, EditContext, Any], list[str]]  # changes the project; the ids of changed elements


_bad = bad
_track = editable_track


def _clip(project: Project, clip_id: str) -> tuple[Track, Placed]:
    found = project.find_clip(clip_id)
    if found is None:
        raise _bad(f"There is no clip {clip_id!r}.", "Clip ids are listed in the observation (type 'clip').",
                   "unknown_clip")
    return found


def write_track(track: Track, clips: list[Placed]) -> None:
    """Rewrite a playlist's entries and blanks from ``clips`` (sorted, non-overlapping)."""
    playlist = track.playlist
    assert playlist is not None
    kept = [c for c in playlist if c.tag not in ("entry", "blank")]
    head = [c for c in kept if c.tag == "property"]
    tail = [c for c in kept if c.tag != "property"]
    for child in list(playlist):
        playlist.remove(child)
    playlist.extend(head)
    at = 0
    for clip in sorted(clips, key=lambda c: c.start):
        if clip.start > at:
            ET.SubElement(playlist, "blank", {"length": str(clip.start - at)})
        playlist.append(clip.entry)
        at = clip.end
    playlist.extend(tail)


def _require_free(project: Project, track: Track, start: int, length: int, ignore: ET.Element | None = None) -> None:
    assert track.playlist is not None
    for other in project.placed(track.playlist):
        if other.entry is not ignore and other.start < start + length and start < other.end:
            raise _bad(f"Frames {start}-{start + length - 1} on track {track.id!r} overlap clip {other.id!r} "
                       f"({other.start}-{other.end - 1}).",
                       "Pick a free span (see the clips' start/end), move that clip first, or use ripple.", "overlap")


def producer_for(project: Project, source: Source, new_id: str | None = None) -> ET.Element:
    """An existing producer of ``source``, or a new one defined before the playlists that use it."""
    for producer in project.producers():
        if prop(producer, "resource") == source.resource and producer_service(producer) == source.service:
            return producer
    producer = ET.Element("producer", {"id": new_id or project.unique_id("producer")})
    if source.file is None or source.service == "qimage":
        set_prop(producer, "length", str(LONG))
        producer.set("out", str(LONG - 1))
    set_prop(producer, "resource", source.resource)
    set_prop(producer, "mlt_service", source.service)
    first_use = next((i for i, c in enumerate(project.root) if c.tag in ("playlist", "tractor")), len(project.root))
    project.root.insert(first_use, producer)
    return producer


def _check_span(project: Project, ctx: EditContext, producer: ET.Element, first: int, last: int) -> None:
    if last < first:
        raise _bad(f"out_frame {last} is before in_frame {first}.", "A clip needs out_frame >= in_frame.", "bad_span")
    available = available_frames(project, ctx, producer)
    if available is not None and last >= available:
        raise _bad(f"The source has {available} frames, so out_frame {last} is past its end.",
                   f"Use out_frame <= {available - 1}.", "bad_span")


def available_frames(project: Project, ctx: EditContext, producer: ET.Element) -> int | None:
    service = producer_service(producer)
    if service not in ("avformat", "avformat-novalidate", ""):
        length = prop(producer, "length")
        return project.frames(length) if length else None
    resource = prop(producer, "resource") or ""
    path = (ctx.project_dir / resource).resolve()
    return ctx.media_frames(path, project.profile().fps) if path.is_file() else None


def add_clip(project: Project, ctx: EditContext, p: act.AddClip) -> list[str]:
    track = _track(project, p.track)
    assert track.playlist is not None
    if p.id is not None and p.id in project.taken_ids():
        raise _bad(f"The id {p.id!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    producer = _bin_source(project, p.source) or producer_for(project, parse_source(p.source, ctx.workspace,
                                                                                    ctx.project_dir))
    _check_span(project, ctx, producer, p.in_frame, p.out_frame)
    clips = project.placed(track.playlist)
    length = p.out_frame - p.in_frame + 1
    start = p.position if p.position is not None else max((c.end for c in clips), default=0)
    if p.ripple:
        _ripple_insert(clips, start, length, track.id)
    else:
        _require_free(project, track, start, length)
    entry = ET.Element("entry", {"producer": str(producer.get("id")), "in": str(p.in_frame), "out": str(p.out_frame)})
    clip_id = p.id or project.unique_id("c")
    set_prop(entry, CLIP_ID, clip_id)
    write_track(track, [*clips, Placed(entry, start, length)])
    return [clip_id, track.id]


def _bin_source(project: Project, source: str) -> ET.Element | None:
    """The producer of ``bin:CLIP`` (a bin clip by id, name or source); None for other sources."""
    if not source.startswith("bin:"):
        return None
    found = find_bin_clip(project, source.removeprefix("bin:"))
    if found is None:
        names = ", ".join(str(p.get("id")) for p in bin_clips(project)) or "none"
        raise _bad(f"There is no bin clip {source.removeprefix('bin:')!r}.", f"Bin clips: {names}.",
                   "unknown_bin_clip")
    return found


def _ripple_insert(clips: list[Placed], start: int, length: int, track_id: str) -> None:
    for clip in clips:
        if clip.start < start < clip.end:
            raise _bad(f"Frame {start} is inside clip {clip.id!r} on track {track_id!r}; a ripple insert goes "
                       "between clips.", f"Insert at {clip.start} or {clip.end}, or split the clip first.", "overlap")
        if clip.start >= start:
            clip.start += length


def move_clip(project: Project, ctx: EditContext, p: act.MoveClip) -> list[str]:
    home, clip = _clip(project, p.clip)
    target = _track(project, p.track) if p.track is not None else home
    assert home.playlist is not None and target.playlist is not None
    _require_free(project, target, p.position, clip.length, ignore=clip.entry)
    rest = [c for c in project.placed(home.playlist) if c.entry is not clip.entry]
    write_track(home, rest)
    clip.start = p.position
    if target.id == home.id:
        write_track(home, [*rest, clip])
    else:
        write_track(target, [*project.placed(target.playlist), clip])
    return sorted({p.clip, home.id, target.id})


def trim_clip(project: Project, ctx: EditContext, p: act.TrimClip) -> list[str]:
    track, clip = _clip(project, p.clip)
    assert track.playlist is not None
    first, last = project.entry_span(clip.entry)
    new_first = p.in_frame if p.in_frame is not None else first
    new_last = p.out_frame if p.out_frame is not None else last
    producer = project.producer_of(clip.entry)
    if producer is None:
        raise _bad(f"Clip {p.clip!r} has no producer to trim.", "Delete the clip instead.")
    _check_span(project, ctx, producer, new_first, new_last)
    length = new_last - new_first + 1
    start = clip.start if p.keep == "start" else clip.end - length
    if start < 0:
        raise _bad(f"Keeping the end, clip {p.clip!r} would start before frame 0.", "Trim less or keep 'start'.",
                   "bad_span")
    _require_free(project, track, start, length, ignore=clip.entry)
    others = [c for c in project.placed(track.playlist) if c.entry is not clip.entry]  # before the span changes
    clip.entry.set("in", str(new_first))
    clip.entry.set("out", str(new_last))
    write_track(track, [*others, Placed(clip.entry, start, length)])
    return [p.clip]


def split_clip(project: Project, ctx: EditContext, p: act.SplitClip) -> list[str]:
    track, clip = _clip(project, p.clip)
    assert track.playlist is not None
    if not clip.start < p.at < clip.end:
        raise _bad(f"Frame {p.at} is not strictly inside clip {p.clip!r} ({clip.start}-{clip.end - 1}).",
                   f"Split at a frame from {clip.start + 1} to {clip.end - 1}.", "bad_split")
    taken = project.taken_ids()
    if p.new_id is not None and p.new_id in taken:
        raise _bad(f"The id {p.new_id!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    first, last = project.entry_span(clip.entry)
    cut = first + (p.at - clip.start)
    second = _copy_entry(project, clip.entry, taken)
    new_id = p.new_id or project.unique_id("c", taken)
    set_prop(second, CLIP_ID, new_id)
    others = [c for c in project.placed(track.playlist) if c.entry is not clip.entry]  # before the span changes
    clip.entry.set("out", str(cut - 1))
    second.set("in", str(cut))
    second.set("out", str(last))
    write_track(track, [*others, Placed(clip.entry, clip.start, p.at - clip.start), Placed(second, p.at, clip.end - p.at)])
    return [p.clip, new_id]


def _copy_entry(project: Project, entry: ET.Element, taken: set[str]) -> ET.Element:
    copy = ET.fromstring(ET.tostring(entry))
    copy.tail = None
    for node in copy.iter("filter"):
        node.set("id", project.unique_id("filter", taken))
    return copy


def delete_clip(project: Project, ctx: EditContext, p: act.DeleteClip) -> list[str]:
    track, clip = _clip(project, p.clip)
    assert track.playlist is not None
    rest = [c for c in project.placed(track.playlist) if c.entry is not clip.entry]
    if p.ripple:
        for other in rest:
            if other.start >= clip.end:
                other.start -= clip.length
    write_track(track, rest)
    return [p.clip, track.id]


def add_track(project: Project, ctx: EditContext, p: act.AddTrack) -> list[str]:
    if p.id is not None and p.id in project.taken_ids():
        raise _bad(f"The id {p.id!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    tractor = project.main_tractor()
    track_id = p.id or project.unique_id("playlist")
    playlist = ET.Element("playlist", {"id": track_id})
    if p.name:
        set_prop(playlist, "kdenlive:track_name", p.name)
    project.root.insert(list(project.root).index(tractor), playlist)
    node = ET.Element("track", {"producer": track_id})
    tracks = tractor.findall("track")
    at = list(tractor).index(tracks[-1]) + 1 if tracks else len(tractor.findall("property"))
    tractor.insert(at, node)
    return [track_id]


def _effect_params(kind: str, service: str, params: dict[str, Any], registry: dict[str, tuple[str, tuple[str, ...]]],
                   allowed_extra: tuple[str, ...] = ()) -> None:
    if service not in registry:
        raise _bad(f"Unknown {kind} service {service!r}.", f"Services: {', '.join(registry)}.", f"unknown_{kind}")
    allowed = registry[service][1] + allowed_extra
    for name in params:
        if name not in allowed:
            raise _bad(f"The {kind} {service!r} has no property {name!r}.",
                       f"Properties of {service}: {', '.join(allowed) or 'none'}.", "bad_property")


def _text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _owner(project: Project, target: str) -> ET.Element:
    if target == "timeline":
        return project.main_tractor()
    track = project.track(target)
    if track is not None and track.playlist is not None:
        return track.playlist
    found = project.find_clip(target)
    if found is None:
        raise _bad(f"There is no clip or track {target!r}.", "Give a clip id, a track id or 'timeline'.",
                   "unknown_target")
    return found[1].entry


def add_filter(project: Project, ctx: EditContext, p: act.AddFilter) -> list[str]:
    _effect_params("filter", p.service, p.params, act.FILTERS)
    if p.id is not None and p.id in project.taken_ids():
        raise _bad(f"The id {p.id!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    owner = _owner(project, p.target)
    node = ET.SubElement(owner, "filter", {"id": p.id or project.unique_id("filter")})
    set_prop(node, "mlt_service", p.service)
    for name, value in p.params.items():
        set_prop(node, name, _text(value))
    return [str(node.get("id")), p.target]


def _effect(project: Project, effect_id: str, tag: str | None = None) -> ET.Element:
    node = project.element_by_id(effect_id)
    if node is None or (tag is not None and node.tag != tag):
        what = tag or "filter or transition"
        raise _bad(f"There is no {what} {effect_id!r}.", "Filter and transition ids are in the observation.",
                   "unknown_effect")
    return node


def set_filter(project: Project, ctx: EditContext, p: act.SetFilter) -> list[str]:
    node = _effect(project, p.filter, "filter")
    service = prop(node, "mlt_service") or ""
    if service in act.FILTERS:
        _effect_params("filter", service, p.params, act.FILTERS)
    for name, value in p.params.items():
        if name in ("mlt_service", "kdenlive_id") or not name.replace(".", "").replace("_", "").isalnum():
            raise _bad(f"The property {name!r} cannot be set.", "Set the filter's own properties.", "bad_property")
        set_prop(node, name, None if value is None else _text(value))
    return [p.filter]


def remove_effect(project: Project, ctx: EditContext, p: act.RemoveEffect) -> list[str]:
    node = _effect(project, p.id)
    parent = next(owner for owner in project.root.iter() if any(child is node for child in owner))
    parent.remove(node)
    return [p.id]


def add_transition(project: Project, ctx: EditContext, p: act.AddTransition) -> list[str]:
    _effect_params("transition", p.service, p.params, act.TRANSITIONS)
    a, b = _track(project, p.a_track), _track(project, p.b_track)
    if a.index == b.index:
        raise _bad("a_track and b_track are the same track.", "Give two different tracks.", "bad_transition")
    if p.end < p.start:
        raise _bad(f"end {p.end} is before start {p.start}.", "A transition needs end >= start.", "bad_transition")
    if p.id is not None and p.id in project.taken_ids():
        raise _bad(f"The id {p.id!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    node = ET.SubElement(project.main_tractor(), "transition", {
        "id": p.id or project.unique_id("transition"), "in": str(p.start), "out": str(p.end)})
    set_prop(node, "mlt_service", p.service)
    set_prop(node, "a_track", str(a.index))
    set_prop(node, "b_track", str(b.index))
    for name, value in p.params.items():
        set_prop(node, name, _text(value))
    return [str(node.get("id"))]


PROFILE_FIELDS = {"width": "width", "height": "height", "fps_num": "frame_rate_num", "fps_den": "frame_rate_den",
                  "display_aspect_num": "display_aspect_num", "display_aspect_den": "display_aspect_den",
                  "description": "description"}


def set_profile(project: Project, ctx: EditContext, p: act.SetProfile) -> list[str]:
    given = p.model_dump(exclude_none=True)
    if not given:
        raise _bad("set_profile needs at least one field to change.", f"Fields: {', '.join(PROFILE_FIELDS)}.",
                   "bad_params")
    old = project.profile()
    node = project.profile_element()
    new_num, new_den = given.get("fps_num", old.fps_num), given.get("fps_den", old.fps_den)
    ratio = Fraction(new_num, new_den) / Fraction(old.fps_num, old.fps_den)
    changed = ["profile"]
    if ratio != 1:  # before the profile changes: clock times in the file are read at the old rate
        rescale(project, ratio)
        changed += [c.id for _, c in project.clips()]
    for name, value in given.items():
        node.set(PROFILE_FIELDS[name], str(value))
    project.profile()  # still a valid profile
    return changed


def probe_frames(path: Path, fps: float) -> int | None:
    """Whole frames of a media file at ``fps`` (None when it has no duration, e.g. a still)."""
    seconds = media_seconds(path)
    return int(seconds * fps + 1e-6) if seconds > 0 else None
