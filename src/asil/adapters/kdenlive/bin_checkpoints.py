"""Checkpoint types for guides, clip markers, the project bin and title clips (read through the adapter).

Markers come back as ``[frame, comment, category]`` sorted by frame. A bin clip is named by its XML
id, the name the bin shows, or its source (a path, ``color:VALUE`` or ``title:TEXT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from asil.adapters.kdenlive.checkpoints import _project, scope_element
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require
from asil.protocol import DocumentError

if TYPE_CHECKING:
    from xml.etree import ElementTree as ET

    from asil.adapters.kdenlive.markers import Marker
    from asil.adapters.kdenlive.project import Project

BIN_SELECTIONS = ("all", "unused", "used")


def _rows(markers: list[Marker]) -> list[list[Any]]:
    return [[m.frame, m.comment, m.category] for m in markers]


@checkpoint_type("kdenlive_guides")
def guides(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """``[frame, comment, category]`` of every guide (timeline marker), by frame."""
    from asil.adapters.kdenlive.markers import guides as read_guides

    try:
        return _rows(read_guides(_project(ctx, cp)))
    except DocumentError as exc:
        raise CheckpointUnreadable(exc.message) from None


def _bin_clip(project: Project, name: str) -> ET.Element:
    from asil.adapters.kdenlive.bin import find_bin_clip

    found = find_bin_clip(project, name)
    if found is None:
        raise CheckpointUnreadable(f"the bin has no clip {name!r}")
    return found


@checkpoint_type("kdenlive_clip_markers")
def clip_markers(ctx: EvalContext, cp: Checkpoint) -> list[list[Any]]:
    """``[frame, comment, category]`` of the markers of bin clip ``target`` (source frames), by frame."""
    from asil.adapters.kdenlive.markers import clip_markers as read_markers

    try:
        return _rows(read_markers(_bin_clip(_project(ctx, cp), require(cp.target, "bin clip"))))
    except DocumentError as exc:
        raise CheckpointUnreadable(exc.message) from None


@checkpoint_type("kdenlive_bin_clips", default_compare="set")
def bin_clip_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """Names of the bin's clips: target ``all`` (or none), ``unused`` (bin-only) or ``used`` (on the timeline)."""
    from asil.adapters.kdenlive.bin import bin_clips, clip_name, on_timeline, used_producers

    selection = cp.target or "all"
    if selection not in BIN_SELECTIONS:
        raise CheckpointUnreadable(f"the bin selection {selection!r} is not one of {', '.join(BIN_SELECTIONS)}")
    project = _project(ctx, cp)
    used = used_producers(project)
    return [clip_name(project, p) for p in bin_clips(project)
            if selection == "all" or on_timeline(p, used) == (selection == "used")]


@checkpoint_type("kdenlive_title_texts")
def title_texts(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The texts of a title: target ``TRACK:N`` (the N-th clip of a track) or a bin clip."""
    from asil.adapters.kdenlive.titles import is_title
    from asil.adapters.kdenlive.titles import title_texts as texts

    project = _project(ctx, cp)
    target = require(cp.target, "TRACK:N or a bin clip")
    if ":" in target and target.rpartition(":")[2].isdigit() and project.track(target.partition(":")[0]):
        producer = project.producer_of(scope_element(project, target))
    else:
        producer = _bin_clip(project, target)
    if producer is None or not is_title(producer):
        raise CheckpointUnreadable(f"{target!r} is not a title clip")
    return texts(producer)
