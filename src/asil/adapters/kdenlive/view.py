"""The observation of a project: profile, tracks, clips, filters and transitions, paged.

Elements come in one stable order (profile, tracks, timeline filters, transitions, then each
track's clips with their filters) and a window of it is shown; navigating to a track id shows
only that track's clips.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.bin import bin_clips, bin_id, clip_name, on_timeline, used_producers
from asil.adapters.kdenlive.markers import Marker, clip_markers, guides
from asil.adapters.kdenlive.media import source_label
from asil.adapters.kdenlive.project import CLIP_ID, Placed, Project, Track, is_internal, prop, props
from asil.adapters.kdenlive.titles import is_title, title_texts
from asil.protocol import DocumentError, Element

TIMELINE_VIEW = "timeline"
Row = Callable[[], Element]
CLIP_ACTIONS = ["move_clip", "trim_clip", "split_clip", "delete_clip", "add_filter"]


def profile_element(project: Project) -> Element:
    p = project.profile()
    value = {"width": p.width, "height": p.height, "fps": round(p.fps, 4), "fps_num": p.fps_num,
             "fps_den": p.fps_den, "display_aspect": f"{p.dar_num}:{p.dar_den}"}
    label = project.profile_element().get("description") or f"{p.width}x{p.height}"
    return Element(id="profile", type="profile", label=label, value=value, data_type="object",
                   actions=["set_profile"])


def track_element(project: Project, track: Track) -> Element:
    if track.playlist is None:
        return Element(id=track.id, type="track", label=track.id, editable=False,
                       value={"index": track.index, "background": True}, meta={"read_only": True})
    clips = project.placed(track.playlist)
    value: dict[str, Any] = {"index": track.index, "clips": len(clips), "end": max((c.end for c in clips), default=0)}
    if track.hidden:
        value["hide"] = track.hidden
    if track.audio:
        value["audio"] = True
    return Element(id=track.id, type="track", label=track.name or track.id, value=value,
                   actions=["add_clip", "add_filter", "add_transition", "set_track", "delete_track"],
                   children=[str(f.get("id")) for f in track.playlist.findall("filter")])


def clip_element(project: Project, track: Track, clip: Placed) -> Element:
    first, last = project.entry_span(clip.entry)
    value = {"track": track.id, "start": clip.start, "end": clip.end, "length": clip.length,
             "in_frame": first, "out_frame": last}
    return Element(id=clip.id, type="clip", label=source_label(project.producer_of(clip.entry)), value=value,
                   data_type="frames", actions=CLIP_ACTIONS,
                   children=[str(f.get("id")) for f in clip.entry.findall("filter")])


def filter_element(node: ET.Element, owner: str) -> Element:
    values = {k: v for k, v in props(node).items() if k != "mlt_service" and not k.startswith("kdenlive")}
    return Element(id=str(node.get("id")), type="filter", label=prop(node, "mlt_service") or "?", value=values,
                   data_type="object", actions=["set_filter", "remove_effect"], meta={"on": owner})


def transition_element(project: Project, node: ET.Element) -> Element:
    tracks = {str(t.index): t.id for t in project.tracks()}
    values = props(node)
    a, b = values.pop("a_track", "0"), values.pop("b_track", "1")
    service = values.pop("mlt_service", "?")
    value = {"a_track": tracks.get(a, a), "b_track": tracks.get(b, b),
             "start": project.frames(node.get("in"), 0), "end": project.frames(node.get("out"), project.duration()),
             "params": {k: v for k, v in values.items() if not k.startswith("kdenlive")}}
    return Element(id=str(node.get("id")), type="transition", label=service, value=value, data_type="object",
                   actions=["remove_effect"])


def _readable(read: Callable[[], list[Marker]]) -> list[Marker]:
    """Markers for the observation: a list Kdenlive could not read either shows as none (edits refuse it)."""
    try:
        return read()
    except DocumentError:
        return []


def guide_element(marker: Marker) -> Element:
    return Element(id=f"guide:{marker.frame}", type="guide", label=marker.comment or "guide",
                   value=marker.as_value(), data_type="object", actions=["set_guide", "delete_guide"])


def bin_clip_element(project: Project, producer: ET.Element, used: tuple[set[str], set[str]]) -> Element:
    value: dict[str, Any] = {"source": source_label(producer), "on_timeline": on_timeline(producer, used),
                             "markers": [m.as_value() for m in _readable(partial(clip_markers, producer))]}
    if bin_id(producer):
        value["bin_id"] = bin_id(producer)
    actions = ["add_clip", "add_clip_marker", "set_clip_marker", "delete_clip_marker", "set_bin_clip",
               "delete_bin_clip"]
    if is_title(producer):
        value["title_texts"] = title_texts(producer)
        actions.append("set_title")
    return Element(id=str(producer.get("id")), type="bin_clip", label=clip_name(project, producer), value=value,
                   data_type="object", actions=actions)


def _bin_rows(project: Project) -> list[Row]:
    items: list[Row] = [partial(guide_element, m) for m in _readable(partial(guides, project))]
    clips = bin_clips(project)
    if clips:
        used = used_producers(project)
        items += [partial(bin_clip_element, project, p, used) for p in clips]
    return items


def rows(project: Project, view: str) -> list[Row]:
    """Every element of the view in observation order, built lazily (only the window is built)."""
    tracks = project.tracks()
    if view != TIMELINE_VIEW:
        track = next(t for t in tracks if t.id == view)
        return [partial(track_element, project, track), *_track_clips(project, track)]
    items: list[Row] = [partial(profile_element, project), *(partial(track_element, project, t) for t in tracks)]
    for track in tracks:
        if track.playlist is not None:
            items += [partial(filter_element, f, track.id) for f in track.playlist.findall("filter")]
    tractor = project.main_tractor()
    # Kdenlive's automatic compositing and audio mixing between tracks is not shown: no one made it
    items += [partial(filter_element, f, TIMELINE_VIEW) for f in tractor.findall("filter") if not is_internal(f)]
    items += [partial(transition_element, project, t) for t in project.transitions(internal=False)]
    items += _bin_rows(project)
    for track in tracks:
        items += _track_clips(project, track)
    return items


def _track_clips(project: Project, track: Track) -> list[Row]:
    if track.playlist is None:
        return []
    items: list[Row] = []
    for clip in project.placed(track.playlist):
        items.append(partial(clip_element, project, track, clip))
        owner = prop(clip.entry, CLIP_ID) or ""
        items += [partial(filter_element, f, owner) for f in clip.entry.findall("filter")]
    return items


def summary(project: Project, name: str, view: str, offset: int, shown: int, total: int) -> str:
    p = project.profile()
    tracks = project.tracks()
    clips = project.clips()
    duration = max((c.end for _, c in clips), default=0)
    window = f"elements {offset}-{offset + shown - 1} of {total}" if shown else f"no elements (of {total})"
    return (f"Project {name}: {p.width}x{p.height} at {p.fps:g} fps, {len(tracks)} tracks, {len(clips)} clips, "
            f"{len(project.all_filters())} filters, {len(project.transitions(internal=False))} transitions, "
            f"{len(_readable(partial(guides, project)))} guides, {len(bin_clips(project))} bin clips, duration {duration} "
            f"frames ({duration / p.fps:.2f} s). View {view!r}: {window}.")
