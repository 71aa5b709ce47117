"""Keep a project's timing in seconds when its frame rate changes.

MLT counts every time in frames of the profile's rate, so a 25 -> 50 fps change alone would play
each clip in half the time. ``rescale`` rewrites every frame count by the rate ratio: playlist
entries and blanks, producer/tractor/track/filter/transition in and out points, producer
lengths, and keyframe times in filter and transition properties (``0=0;25=1``). Results are
whole frames rounded half up; playlists are rescaled by their boundaries (a clip's new length is
its new end minus its new start), so clips that touched still touch and nothing shrinks to zero
length. Clock and SMPTE times are written back as frame counts. Guides and clip markers (Kdenlive
keeps them in frames too) move to the same seconds; two that land on one frame become one, the
earlier, as Kdenlive keeps one per frame.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive import markers
from asil.adapters.kdenlive.project import Project, prop, set_prop
from asil.protocol import DocumentError

SPAN_TAGS = ("producer", "chain", "tractor", "track", "filter", "transition")
EFFECT_TAGS = ("filter", "transition")
_KEY = re.compile(r"^(-?\d+|\d+:\d{1,2}:\d{1,2}(?:\.\d+)?|\d+:\d{1,2}:\d{1,2}:\d{1,3})([|~$\-A-Za-z]?)=(.*)$",
                  re.DOTALL)
_NOT_KEYFRAMED = ("mlt_service", "resource")


def scaled(frames: int, ratio: Fraction) -> int:
    """``frames * ratio`` rounded half up (half away from zero for the end-relative negative times)."""
    magnitude = math.floor(abs(frames) * ratio + Fraction(1, 2))
    return magnitude if frames >= 0 else -magnitude


def rescale(project: Project, ratio: Fraction) -> None:
    """Rewrite every frame count of ``project`` (still read at the old rate) by ``ratio``."""
    if ratio == 1:
        return
    nodes = list(project.root.iter())
    for node in nodes:  # playlists first: an entry without 'out' reads its producer's old-rate span
        if node.tag == "playlist":
            _rescale_playlist(project, node, ratio)
    for node in nodes:
        if node.tag in SPAN_TAGS:
            _rescale_span(project, node, ratio)
        if node.tag in EFFECT_TAGS:
            _rescale_keyframes(project, node, ratio)
    _rescale_markers(project, ratio)


def _moved(found: list[markers.Marker], ratio: Fraction) -> list[markers.Marker]:
    kept: dict[int, markers.Marker] = {}
    for marker in found:  # by frame: the earlier of two that meet is kept
        kept.setdefault(scaled(marker.frame, ratio), markers.Marker(scaled(marker.frame, ratio), marker.comment,
                                                                   marker.category))
    return list(kept.values())


def _rescale_markers(project: Project, ratio: Fraction) -> None:
    """Guides and every producer's clip markers; a list Kdenlive could not read is left as it is."""
    try:
        found = markers.guides(project)
        if found:
            markers.write_guides(project, _moved(found, ratio))
    except DocumentError:
        pass
    for producer in project.producers():
        try:
            clip_markers = markers.clip_markers(producer)
        except DocumentError:
            continue
        if clip_markers:
            markers.write_clip_markers(producer, _moved(clip_markers, ratio))


def _rescale_span(project: Project, node: ET.Element, ratio: Fraction) -> None:
    """in/out attributes (out inclusive: its end boundary is scaled) and a producer's length."""
    if node.get("in") is not None and node.get("in", "").strip():
        node.set("in", str(scaled(project.frames(node.get("in")), ratio)))
    if node.get("out") is not None and node.get("out", "").strip():
        node.set("out", str(max(scaled(project.frames(node.get("out")) + 1, ratio) - 1, 0)))
    length = prop(node, "length") if node.tag in ("producer", "chain") else None
    if length:
        set_prop(node, "length", str(max(scaled(project.frames(length), ratio), 1)))


def _rescale_playlist(project: Project, playlist: ET.Element, ratio: Fraction) -> None:
    """Entries and blanks by their timeline boundaries, so neighbours stay neighbours."""
    old_at = new_at = 0
    for child in list(playlist):
        if child.tag == "blank":
            old_at += project.frames(child.get("length"), 0)
            length = max(scaled(old_at, ratio) - new_at, 0)
            if length == 0:
                playlist.remove(child)
                continue
            child.set("length", str(length))
        elif child.tag == "entry":
            first, last = project.entry_span(child)
            old_at += max(last - first + 1, 0)
            length = max(scaled(old_at, ratio) - new_at, 1)
            new_first = scaled(first, ratio)
            child.set("in", str(new_first))
            child.set("out", str(new_first + length - 1))
        else:
            continue
        new_at += length


def _rescale_keyframes(project: Project, node: ET.Element, ratio: Fraction) -> None:
    for child in node.findall("property"):
        name = child.get("name", "")
        if name in _NOT_KEYFRAMED or ":" in name or not child.text or "=" not in child.text:
            continue
        keys = [_KEY.match(part.strip()) for part in child.text.split(";") if part.strip()]
        if keys and all(keys):
            child.text = ";".join(f"{scaled(project.frames(m[1]), ratio)}{m[2]}={m[3]}" for m in keys if m)
