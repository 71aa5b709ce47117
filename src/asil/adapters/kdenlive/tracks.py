"""Track edits: delete a track, rename it, mute or hide it, in both MLT layouts.

A plain MLT timeline references playlists from the main tractor's ``<track>``s; Kdenlive wraps
each playlist in a track tractor (name on the tractor, ``hide`` on its inner ``<track>``s). MLT's
``hide`` is ``video`` (hidden), ``audio`` (muted) or ``both``. Transitions name tracks by index, so
deleting a track renumbers the ones above it; a transition the user made on the track blocks the
deletion (remove it first), while Kdenlive's automatic track compositing (``internal_added``)
goes with the track.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.project import HIDE_BITS, Project, Track, hide_value, prop, set_prop
from asil.protocol import InvalidAction

if TYPE_CHECKING:
    from asil.adapters.kdenlive import actions as act


def bad(message: str, hint: str, code: str = "invalid_edit") -> InvalidAction:
    return InvalidAction(message, hint=hint, code=code)


def editable_track(project: Project, track_id: str) -> Track:
    track = project.track(track_id)
    ids = ", ".join(t.id for t in project.tracks() if t.playlist is not None) or "none"
    if track is None:
        raise bad(f"There is no track {track_id!r}.", f"Tracks: {ids}.", "unknown_track")
    if track.playlist is None:
        raise bad(f"Track {track_id!r} is a read-only background track.", f"Edit one of: {ids}.", "read_only_track")
    return track


def _track_index(node: ET.Element, name: str, default: int) -> int | None:
    text = prop(node, name)
    if text is None or text == "":
        return default
    return int(text) if text.strip().lstrip("-").isdigit() else None


def delete_track(project: Project, ctx: object, p: act.DeleteTrack) -> list[str]:
    track = editable_track(project, p.track)
    _refuse_last(project, track)
    tractor = project.main_tractor()
    touching = [t for t in tractor.findall("transition")
                if track.index in (_track_index(t, "a_track", 0), _track_index(t, "b_track", 1))]
    made = [str(t.get("id")) for t in touching if not prop(t, "internal_added")]
    if made:
        raise bad(f"Track {p.track!r} is used by the transition(s) {', '.join(made)}.",
                  "Remove them first with remove_effect, then delete the track.", "track_in_use")
    assert track.playlist is not None
    changed = [track.id, *(c.id for c in project.placed(track.playlist))]
    for node in touching:  # Kdenlive's automatic compositing of this track
        tractor.remove(node)
        changed.append(str(node.get("id")))
    for node in tractor.findall("transition"):
        for name, default in (("a_track", 0), ("b_track", 1)):
            index = _track_index(node, name, default)
            if index is not None:
                set_prop(node, name, str(index - 1 if index > track.index else index))
    tractor.remove(track.node)
    _drop_unused(project, track.holder)
    _drop_unused(project, track.playlist)
    return changed


def _refuse_last(project: Project, track: Track) -> None:
    editable = [t for t in project.tracks() if t.playlist is not None]
    video = [t for t in editable if not t.audio]
    if len(editable) == 1 or (not track.audio and [t.id for t in video] == [track.id]):
        raise bad(f"Track {track.id!r} is the last video track; a timeline keeps at least one.",
                  "Add another track first, or delete its clips instead.", "last_track")


def _drop_unused(project: Project, service: ET.Element | None) -> None:
    """Remove a track tractor or playlist nothing refers to any more (with a tractor's own playlists)."""
    if service is None or service not in list(project.root):
        return
    service_id = service.get("id")
    if any(node.get("producer") == service_id for node in project.root.iter()):
        return
    inner = [project.by_id(t.get("producer", "")) for t in service.findall("track")] if service.tag == "tractor" else []
    project.root.remove(service)
    for child in inner:
        if child is not None and child.tag == "playlist":
            _drop_unused(project, child)


def set_track(project: Project, ctx: object, p: act.SetTrack) -> list[str]:
    if p.name is None and p.hidden is None and p.muted is None:
        raise bad("set_track needs at least one of name, hidden or muted.", "Give the fields to change.",
                  "bad_params")
    track = editable_track(project, p.track)
    if p.name is not None:
        _rename(track, p.name)
    if p.hidden is not None or p.muted is not None:
        was_hidden, was_muted = HIDE_BITS[track.hidden]
        if track.audio and p.hidden is False:
            raise bad(f"Track {p.track!r} is an audio track; its video is always hidden.",
                      "Use muted to silence or unmute it.", "audio_track")
        value = hide_value(was_hidden if p.hidden is None else p.hidden, was_muted if p.muted is None else p.muted)
        if track.holder is not None:
            track.node.attrib.pop("hide", None)  # MLT reads the inner tracks' hide, where Kdenlive keeps it
        for node in track.inner_nodes:
            if value:
                node.set("hide", value)
            else:
                node.attrib.pop("hide", None)
    return [track.id]


def _rename(track: Track, name: str) -> None:
    owner = track.holder if track.holder is not None else track.playlist
    assert owner is not None
    set_prop(owner, "kdenlive:track_name", name)
    if track.holder is not None and track.playlist is not None and prop(track.playlist, "kdenlive:track_name"):
        set_prop(track.playlist, "kdenlive:track_name", name)  # an older copy would disagree
