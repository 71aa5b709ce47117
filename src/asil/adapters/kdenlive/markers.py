"""Guides (timeline markers) and clip markers, stored where Kdenlive 22.12 keeps them.

Both are JSON lists of ``{"comment": TEXT, "pos": FRAME, "type": CATEGORY}`` (Kdenlive writes them
with Qt's indented JSON; keys sorted). Guides live in the bin playlist's
``kdenlive:docproperties.guides`` (Kdenlive 23+ keeps them per sequence, in the timeline tractor's
``kdenlive:sequenceproperties.guides``: read and written there when a project has it); clip
markers in the bin clip producer's ``kdenlive:markers``, in source frames. Categories are the
indices of ``kdenlive:docproperties.guidesCategories`` (nine by default, "Category 1".."Category 9").
Kdenlive keeps at most one marker per frame, so a frame names a guide or a clip marker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.project import Project, prop, set_prop
from asil.protocol import DocumentError

GUIDES = "kdenlive:docproperties.guides"
SEQUENCE_GUIDES = "kdenlive:sequenceproperties.guides"
CATEGORIES = "kdenlive:docproperties.guidesCategories"
CLIP_MARKERS = "kdenlive:markers"
BIN_ID = "main_bin"
# Kdenlive 22.12's default categories (index -> colour), used when a project does not list its own
DEFAULT_COLOURS = ("#9b59b6", "#3daee9", "#1abc9c", "#1cdc9a", "#c9ce3b", "#fdbc4b", "#f39c1f", "#f47750", "#da4453")


@dataclass
class Marker:
    frame: int
    comment: str
    category: int

    def as_json(self) -> dict[str, Any]:
        return {"comment": self.comment, "pos": self.frame, "type": self.category}

    def as_value(self) -> dict[str, Any]:
        return {"frame": self.frame, "comment": self.comment, "category": self.category}


def parse_markers(text: str | None, where: str) -> list[Marker]:
    """Markers from Kdenlive's JSON; DocumentError naming ``where`` when the JSON is not a marker list."""
    if not text or not text.strip():
        return []
    try:
        data = json.loads(text)
        found = [Marker(int(m["pos"]), str(m.get("comment", "")), int(m.get("type", 0))) for m in data]
    except (ValueError, TypeError, KeyError):
        raise DocumentError(f"{where} is not a Kdenlive marker list (JSON with pos, comment and type).",
                            hint='Kdenlive writes [{"comment": "...", "pos": 25, "type": 0}].') from None
    return sorted(found, key=lambda m: m.frame)


def dump_markers(markers: list[Marker]) -> str:
    """Kdenlive's own layout: Qt's indented JSON (4 spaces) with a final newline."""
    return json.dumps([m.as_json() for m in sorted(markers, key=lambda m: m.frame)], indent=4) + "\n"


def bin_playlist(project: Project, create: bool = False) -> ET.Element | None:
    """Kdenlive's bin (``main_bin``): document properties and the entries of every bin clip."""
    found = project.by_id(BIN_ID)
    if found is not None and found.tag == "playlist":
        return found
    if not create:
        return None
    node = ET.Element("playlist", {"id": BIN_ID})
    set_prop(node, "xml_retain", "1")  # MLT keeps an unused playlist only with this, as Kdenlive writes it
    first_tractor = next((i for i, c in enumerate(project.root) if c.tag == "tractor"), len(project.root))
    project.root.insert(first_tractor, node)
    return node


def guides_owner(project: Project, create: bool = False) -> tuple[ET.Element | None, str]:
    """The element and property holding the guides: a 23+ sequence's, else the bin's document property."""
    tractor = project.main_tractor()
    if prop(tractor, SEQUENCE_GUIDES) is not None:
        return tractor, SEQUENCE_GUIDES
    return bin_playlist(project, create), GUIDES


def guides(project: Project) -> list[Marker]:
    owner, name = guides_owner(project)
    return [] if owner is None else parse_markers(prop(owner, name), "The project's guides")


def write_guides(project: Project, markers: list[Marker]) -> None:
    owner, name = guides_owner(project, create=True)
    assert owner is not None
    set_prop(owner, name, dump_markers(markers))


def clip_markers(producer: ET.Element) -> list[Marker]:
    return parse_markers(prop(producer, CLIP_MARKERS), f"The markers of {producer.get('id')!r}")


def write_clip_markers(producer: ET.Element, markers: list[Marker]) -> None:
    set_prop(producer, CLIP_MARKERS, dump_markers(markers) if markers else None)


def categories(project: Project) -> list[dict[str, Any]]:
    """``[{"index", "name", "colour"}]``: the project's own list, else Kdenlive's nine defaults."""
    owner = bin_playlist(project)
    text = prop(owner, CATEGORIES) if owner is not None else None
    try:
        listed = [{"index": int(c["index"]), "name": str(c.get("comment", "")), "colour": str(c.get("color", ""))}
                  for c in json.loads(text or "[]")]
    except (ValueError, TypeError, KeyError):
        listed = []
    return listed or [{"index": i, "name": f"Category {i + 1}", "colour": c} for i, c in enumerate(DEFAULT_COLOURS)]


def category_indices(project: Project) -> list[int]:
    return [int(c["index"]) for c in categories(project)]
