"""The project bin: clips a project holds, whether or not the timeline uses them, and title clips.

Kdenlive 22.12 lists every bin clip as an ``<entry>`` of the ``main_bin`` playlist, pointing at
the clip's producer, which carries ``kdenlive:id`` (the bin id, a number), ``kdenlive:folderid``
(-1: the bin's top level) and ``kdenlive:clipname`` (empty: the file name shows). Timeline clips
play the bin producer or a copy with the same ``kdenlive:id``; a bin clip that no track uses is
"bin-only". A title clip is a ``kdenlivetitle`` producer whose ``xmldata`` holds Kdenlive's title
document (``<kdenlivetitle>`` with ``QGraphicsTextItem`` items); melt draws it with Qt, which needs
an X display (the adapter gives melt a private Xvfb when the timeline shows a title).
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.markers import bin_playlist
from asil.adapters.kdenlive.media import source_label
from asil.adapters.kdenlive.project import PRODUCER_TAGS, Project, prop


def bin_clips(project: Project) -> list[ET.Element]:
    """The bin's producers in bin order (each once; Kdenlive 23+'s sequence tractors are left out)."""
    playlist = bin_playlist(project)
    if playlist is None:
        return []
    found: list[ET.Element] = []
    for entry in playlist.findall("entry"):
        producer = project.by_id(entry.get("producer", ""))
        if producer is not None and producer.tag in PRODUCER_TAGS and producer not in found:
            found.append(producer)
    return found


def bin_id(producer: ET.Element) -> str:
    return prop(producer, "kdenlive:id") or ""


def clip_name(project: Project, producer: ET.Element) -> str:
    """What the bin shows: ``kdenlive:clipname``, else the source (a path, ``color:..``, ``title:..``)."""
    return prop(producer, "kdenlive:clipname") or source_label(producer)


def used_producers(project: Project) -> tuple[set[str], set[str]]:
    """XML ids and bin ids of the producers the timeline's clips play."""
    ids, bin_ids = set(), set()
    for _, clip in project.clips():
        producer = project.producer_of(clip.entry)
        if producer is not None:
            ids.add(str(producer.get("id")))
            if bin_id(producer):
                bin_ids.add(bin_id(producer))
    return ids, bin_ids


def on_timeline(producer: ET.Element, used: tuple[set[str], set[str]]) -> bool:
    return producer.get("id") in used[0] or (bin_id(producer) != "" and bin_id(producer) in used[1])


def master_of(project: Project, producer: ET.Element) -> ET.Element:
    """The bin clip a timeline producer copies (same ``kdenlive:id``), else the producer itself."""
    key = bin_id(producer)
    if key:
        for candidate in bin_clips(project):
            if bin_id(candidate) == key:
                return candidate
    return producer


def find_bin_clip(project: Project, name: str) -> ET.Element | None:
    """A bin clip by XML id, then by its shown name or source."""
    clips = bin_clips(project)
    return next((p for p in clips if p.get("id") == name), None) or next(
        (p for p in clips if name in (clip_name(project, p), source_label(p))), None)


def next_bin_id(project: Project) -> str:
    """Kdenlive numbers bin clips and folders from 2 up (1 is the root folder's)."""
    taken = [int(v) for node in project.root.iter("property") if node.get("name") == "kdenlive:id"
             and (v := (node.text or "").strip()).isdigit()]
    return str(max([1, *taken]) + 1)
