"""Edits of guides, clip markers, bin clips and titles (checked first, then applied to a draft).

Like the timeline edits, each runs on a copy of the project that replaces the current one only
when the whole action or batch succeeded.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from asil.adapters.kdenlive import bin_actions as act
from asil.adapters.kdenlive import markers as stored
from asil.adapters.kdenlive.bin import (
    bin_clips,
    clip_name,
    find_bin_clip,
    master_of,
    next_bin_id,
    on_timeline,
    used_producers,
)
from asil.adapters.kdenlive.edits import EditContext, available_frames, producer_for
from asil.adapters.kdenlive.markers import Marker, bin_playlist, category_indices, write_clip_markers, write_guides
from asil.adapters.kdenlive.media import LONG, parse_source
from asil.adapters.kdenlive.project import Project, set_prop
from asil.adapters.kdenlive.titles import TITLE_SERVICE, is_title, set_title_text, title_texts, title_xml
from asil.adapters.kdenlive.tracks import bad
from asil.protocol import DocumentError

BIN_HINT = "Bin clips are the 'bin_clip' elements of the observation (give their id, name or source)."


# ------------------------------------------------------------ markers (guides and clip markers alike)
def guides(project: Project) -> list[Marker]:
    try:
        return stored.guides(project)
    except DocumentError as exc:  # a list Kdenlive could not read either: refuse rather than overwrite it
        raise bad(exc.message, "Fix or remove the property in the project file first.", "unreadable_markers") from None


def clip_markers(producer: ET.Element) -> list[Marker]:
    try:
        return stored.clip_markers(producer)
    except DocumentError as exc:
        raise bad(exc.message, "Fix or remove the clip's kdenlive:markers first.", "unreadable_markers") from None


def _check_category(project: Project, category: int | None) -> None:
    valid = category_indices(project)
    if category is not None and category not in valid:
        raise bad(f"There is no marker category {category}.", f"Categories: {', '.join(map(str, valid))} "
                  "(0 is 'Category 1').", "unknown_category")


def _at(markers: list[Marker], frame: int, what: str) -> Marker:
    found = next((m for m in markers if m.frame == frame), None)
    if found is None:
        shown = ", ".join(str(m.frame) for m in markers) or "none"
        raise bad(f"There is no {what} at frame {frame}.", f"{what.capitalize()}s are at frames: {shown}.",
                  "unknown_marker")
    return found


def _free(markers: list[Marker], frame: int, what: str, verb: str = "set") -> None:
    if any(m.frame == frame for m in markers):
        raise bad(f"There is already a {what} at frame {frame}; Kdenlive keeps one per frame.",
                  f"Change it with {verb}, or pick another frame.", "marker_exists")


def _changed(markers: list[Marker], marker: Marker, p: act.SetGuide | act.SetClipMarker, what: str,
             verb: str) -> None:
    if p.comment is None and p.category is None and p.new_frame is None:
        raise bad(f"{verb} needs at least one of comment, category or new_frame.", "Give the fields to change.",
                  "bad_params")
    if p.new_frame is not None and p.new_frame != marker.frame:
        _free(markers, p.new_frame, what, verb)
        marker.frame = p.new_frame
    marker.comment = p.comment if p.comment is not None else marker.comment
    marker.category = p.category if p.category is not None else marker.category


def add_guide(project: Project, ctx: EditContext, p: act.AddGuide) -> list[str]:
    _check_category(project, p.category)
    markers = guides(project)
    _free(markers, p.frame, "guide", "set_guide")
    write_guides(project, [*markers, Marker(p.frame, p.comment, p.category)])
    return [f"guide:{p.frame}"]


def set_guide(project: Project, ctx: EditContext, p: act.SetGuide) -> list[str]:
    _check_category(project, p.category)
    markers = guides(project)
    marker = _at(markers, p.frame, "guide")
    _changed(markers, marker, p, "guide", "set_guide")
    write_guides(project, markers)
    return sorted({f"guide:{p.frame}", f"guide:{marker.frame}"})


def delete_guide(project: Project, ctx: EditContext, p: act.DeleteGuide) -> list[str]:
    markers = guides(project)
    marker = _at(markers, p.frame, "guide")
    write_guides(project, [m for m in markers if m is not marker])
    return [f"guide:{p.frame}"]


def marked_clip(project: Project, ref: str) -> ET.Element:
    """The producer whose markers ``ref`` means: a bin clip, or the bin clip of a timeline clip."""
    found = find_bin_clip(project, ref)
    if found is not None:
        return found
    placed = project.find_clip(ref)
    producer = project.producer_of(placed[1].entry) if placed is not None else None
    if producer is None:
        raise bad(f"There is no bin clip or timeline clip {ref!r}.", BIN_HINT, "unknown_clip")
    return master_of(project, producer)


def _check_in_clip(project: Project, ctx: EditContext, producer: ET.Element, frame: int) -> None:
    available = available_frames(project, ctx, producer)
    if available is not None and frame >= available:
        raise bad(f"Frame {frame} is past the end of clip {producer.get('id')!r} ({available} frames).",
                  f"Clip markers are in source frames 0-{available - 1}.", "bad_frame")


def add_clip_marker(project: Project, ctx: EditContext, p: act.AddClipMarker) -> list[str]:
    producer = marked_clip(project, p.clip)
    _check_category(project, p.category)
    _check_in_clip(project, ctx, producer, p.frame)
    markers = clip_markers(producer)
    _free(markers, p.frame, "marker on this clip", "set_clip_marker")
    write_clip_markers(producer, [*markers, Marker(p.frame, p.comment, p.category)])
    return [str(producer.get("id"))]


def set_clip_marker(project: Project, ctx: EditContext, p: act.SetClipMarker) -> list[str]:
    producer = marked_clip(project, p.clip)
    _check_category(project, p.category)
    markers = clip_markers(producer)
    marker = _at(markers, p.frame, "marker")
    if p.new_frame is not None:
        _check_in_clip(project, ctx, producer, p.new_frame)
    _changed(markers, marker, p, "marker on this clip", "set_clip_marker")
    write_clip_markers(producer, markers)
    return [str(producer.get("id"))]


def delete_clip_marker(project: Project, ctx: EditContext, p: act.DeleteClipMarker) -> list[str]:
    producer = marked_clip(project, p.clip)
    markers = clip_markers(producer)
    marker = _at(markers, p.frame, "marker")
    write_clip_markers(producer, [m for m in markers if m is not marker])
    return [str(producer.get("id"))]


# ------------------------------------------------------------ bin clips and titles
def _bin_clip(project: Project, ref: str) -> ET.Element:
    found = find_bin_clip(project, ref)
    if found is None:
        names = ", ".join(str(p.get("id")) for p in bin_clips(project)) or "none"
        raise bad(f"There is no bin clip {ref!r}.", f"Bin clips: {names}.", "unknown_bin_clip")
    return found


def _new_id(project: Project, wanted: str | None) -> str:
    if wanted is not None and wanted in project.taken_ids():
        raise bad(f"The id {wanted!r} is already used.", "Pick another id or omit it.", "duplicate_id")
    return wanted or project.unique_id("producer")


def _into_bin(project: Project, producer: ET.Element, name: str, length: int) -> None:
    """Give ``producer`` Kdenlive's bin properties and list it in ``main_bin``."""
    set_prop(producer, "kdenlive:clipname", name)
    set_prop(producer, "kdenlive:folderid", "-1")
    set_prop(producer, "kdenlive:id", next_bin_id(project))
    playlist = bin_playlist(project, create=True)
    assert playlist is not None
    ET.SubElement(playlist, "entry", {"producer": str(producer.get("id")), "in": "0", "out": str(max(0, length - 1))})


def add_bin_clip(project: Project, ctx: EditContext, p: act.AddBinClip) -> list[str]:
    source = parse_source(p.source, ctx.workspace, ctx.project_dir)
    clip_id = _new_id(project, p.id)
    known = {str(c.get("id")) for c in bin_clips(project)}
    producer = producer_for(project, source, clip_id)
    if str(producer.get("id")) in known:
        raise bad(f"{p.source!r} is already in the bin as {producer.get('id')!r}.",
                  "Use that bin clip, or rename it with set_bin_clip.", "already_in_bin")
    if p.id is not None and producer.get("id") != p.id:  # the timeline already plays this source
        raise bad(f"{p.source!r} is already a producer of this project ({producer.get('id')!r}).",
                  "Omit id to add that producer to the bin.", "duplicate_source")
    _into_bin(project, producer, p.name or "", available_frames(project, ctx, producer) or LONG)
    return [str(producer.get("id"))]


def set_bin_clip(project: Project, ctx: EditContext, p: act.SetBinClip) -> list[str]:
    producer = _bin_clip(project, p.clip)
    set_prop(producer, "kdenlive:clipname", p.name)
    return [str(producer.get("id"))]


def delete_bin_clip(project: Project, ctx: EditContext, p: act.DeleteBinClip) -> list[str]:
    producer = _bin_clip(project, p.clip)
    if on_timeline(producer, used_producers(project)):
        raise bad(f"The bin clip {clip_name(project, producer)!r} is used on the timeline.",
                  "Delete its timeline clips first (delete_clip), then the bin clip.", "clip_in_use")
    playlist = bin_playlist(project)
    assert playlist is not None
    for entry in [e for e in playlist.findall("entry") if e.get("producer") == producer.get("id")]:
        playlist.remove(entry)
    project.root.remove(producer)
    return [str(producer.get("id"))]


def _rgba(colour: str) -> tuple[int, int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16), 255


def add_title(project: Project, ctx: EditContext, p: act.AddTitle) -> list[str]:
    clip_id = _new_id(project, p.id)
    profile = project.profile()
    size = p.size or max(4, profile.height // 6)
    producer = ET.Element("producer", {"id": clip_id, "in": "0", "out": str(LONG - 1)})
    set_prop(producer, "length", str(LONG))  # like a still: the clip can be placed at any length
    set_prop(producer, "mlt_service", TITLE_SERVICE)
    set_prop(producer, "kdenlive:duration", str(p.duration))
    set_prop(producer, "xmldata", title_xml(p.text, profile.width, profile.height, p.duration, size, _rgba(p.colour)))
    first_use = next((i for i, c in enumerate(project.root) if c.tag in ("playlist", "tractor")), len(project.root))
    project.root.insert(first_use, producer)
    _into_bin(project, producer, p.name or p.text.splitlines()[0][:60], p.duration)
    return [clip_id]


def set_title(project: Project, ctx: EditContext, p: act.SetTitle) -> list[str]:
    producer = marked_clip(project, p.clip)
    if not is_title(producer) or not title_texts(producer):
        raise bad(f"{p.clip!r} is not a title clip with text.", "Give a title's bin clip (source 'title:...').",
                  "not_a_title")
    if not set_title_text(producer, p.item, p.text):
        count = len(title_texts(producer))
        raise bad(f"The title has no text item {p.item}.", f"Its text items are 0-{count - 1}.", "bad_item")
    return [str(producer.get("id"))]
