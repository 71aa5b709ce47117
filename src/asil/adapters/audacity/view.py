"""The observation of an Audacity project: '@project', then a page of tracks and labels."""

from __future__ import annotations

from typing import Any

from asil.adapters.audacity.project import Project, Track
from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 40
TRACK_ACTIONS = ["set_track", "amplify", "normalize", "fade_in", "fade_out", "change_tempo", "change_pitch", "delete_range",
                 "generate_tone", "generate_noise", "generate_silence", "rename_track", "delete_track"]


def _r(value: float) -> float:
    return round(value, 4)


def project_element(project: Project, selection: dict[str, Any] | None, document: str | None) -> Element:
    value = {"rate": project.rate, "length_s": _r(project.end), "audio_tracks": len(project.audio),
             "labels": len(project.labels), "selection": selection}
    return Element(id="@project", type="project", label=document, value=value, data_type="project",
                   actions=["select", "import_audio", "add_label", "mix_tracks", "export", "save"])


def track_element(track: Track) -> Element:
    meta: dict[str, Any] = {"clips": [[_r(s), _r(e)] for s, e in track.clips], "index": track.index}
    value = {"start": _r(track.start), "end": _r(track.end), "channels": track.channels,
             "gain_db": track.gain_db, "pan": track.pan, "mute": track.mute, "solo": track.solo}
    return Element(id=track.name, type="audio_track", label=track.name, value=value, data_type="audio", meta=meta,
                   actions=["set_track"])


def label_track_element(track: Track, labels: int) -> Element:
    return Element(id=track.name, type="label_track", label=track.name, value={"labels": labels},
                   data_type="labels", meta={"index": track.index}, actions=["set_track", "add_label"])


def label_element(index: int, label: list[Any], track: str | None = None) -> Element:
    start, end, text = label
    value = {"start": _r(start), "end": _r(end), "text": text}
    if track is not None:
        value["track"] = track
    return Element(id=f"label:{index}", type="label", label=text, value=value, data_type="label",
                   actions=["edit_label", "remove_label"])


def _items(project: Project, label_tracks: bool) -> list[Element]:
    """Audio tracks, then (for a real project) label tracks, then labels, in Audacity's order."""
    items: list[Element] = [track_element(t) for t in project.audio]
    names = {t.index: t.name for t in project.tracks}
    if label_tracks:
        owners = project.label_owners
        items += [label_track_element(t, owners.count(t.index)) for t in project.tracks if t.kind == "label"]
        return items + [label_element(i, label, names.get(owners[i]) if i < len(owners) else None)
                        for i, label in enumerate(project.labels)]
    return items + [label_element(i, label) for i, label in enumerate(project.labels)]


def build_observation(project: Project, *, step: int, name: str, document: str | None, dirty: bool,
                      selection: dict[str, Any] | None, offset: int, limit: int,
                      session: dict[str, Any], label_tracks: bool = False) -> Observation:
    items = _items(project, label_tracks)
    total = len(items)
    page = items[offset:offset + limit]
    shown = f"items {offset + 1}-{offset + len(page)} of {total}" if total > len(page) else f"{total} items"
    summary = (f"Audacity project {name}: {len(project.audio)} audio track(s), {len(project.labels)} label(s), "
               f"{project.end:.3f} s at {project.rate} Hz; showing {shown}"
               + (f"; selection {selection['start']:.3f}-{selection['end']:.3f} s" if selection else "") + ".")
    return Observation(
        metadata=Metadata(app="audacity", source="script", step=step),
        app_state=AppState(view="project", active_document=name, document_path=document, dirty=dirty),
        elements=[project_element(project, selection, document), *page],
        environment={"units": "seconds; levels in dBFS", "track_actions": TRACK_ACTIONS, "audacity": session},
        navigation=Navigation(views=["project"], paging=Paging(offset=offset, limit=limit, total=total)),
        summary=summary,
    )
