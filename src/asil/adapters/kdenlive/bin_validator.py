"""The raw validator's reading of guides, clip markers, the bin and titles: the saved XML only.

Shares no code with the adapter's model (see :mod:`asil.adapters.kdenlive.validator`): its own
walk of ``main_bin``, its own JSON and title parsing. Anything it cannot read raises, and the
checkpoint fails (fail closed).
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET


def _prop(node: ET.Element, name: str) -> str | None:
    hits = [p.text or "" for p in node.findall("property") if p.get("name") == name]
    return hits[0] if hits else None


def _marker_rows(text: str | None) -> list[list[Any]]:
    rows = [[int(m["pos"]), str(m.get("comment", "")), int(m.get("type", 0))] for m in json.loads(text or "[]")]
    return sorted(rows, key=lambda row: row[0])


def guides(root: ET.Element, main: ET.Element) -> list[list[Any]]:
    sequence = _prop(main, "kdenlive:sequenceproperties.guides")
    if sequence is not None:
        return _marker_rows(sequence)
    bins = [c for c in root if c.tag == "playlist" and c.get("id") == "main_bin"]
    return _marker_rows(_prop(bins[0], "kdenlive:docproperties.guides")) if bins else []


def _bin(root: ET.Element) -> list[ET.Element]:
    ids = {c.get("id"): c for c in root}
    found: list[ET.Element] = []
    for playlist in (c for c in root if c.tag == "playlist" and c.get("id") == "main_bin"):
        for entry in playlist.findall("entry"):
            node = ids.get(entry.get("producer"))
            if node is not None and node.tag in ("producer", "chain") and all(node is not f for f in found):
                found.append(node)
    return found


def _texts(producer: ET.Element) -> list[str]:
    data = _prop(producer, "xmldata") or ""
    if "<!" in data:
        raise ValueError("a title document with a DTD")
    doc = ET.fromstring(data)
    return [c.text or "" for item in doc.findall("item") if item.get("type") == "QGraphicsTextItem"
            for c in item.findall("content")]


def _source(producer: ET.Element, source_of: Any) -> str:
    if _prop(producer, "mlt_service") == "kdenlivetitle" and not _prop(producer, "resource"):
        return "title:" + " / ".join(_texts(producer))
    return str(source_of(producer))


def _name(producer: ET.Element, source_of: Any) -> str:
    return _prop(producer, "kdenlive:clipname") or _source(producer, source_of)


def bin_clip(root: ET.Element, name: str, source_of: Any) -> ET.Element:
    clips = _bin(root)
    for node in clips:
        if node.get("id") == name:
            return node
    for node in clips:
        if name in (_name(node, source_of), _source(node, source_of)):
            return node
    raise KeyError(name)


def clip_markers(root: ET.Element, name: str, source_of: Any) -> list[list[Any]]:
    return _marker_rows(_prop(bin_clip(root, name, source_of), "kdenlive:markers"))


def bin_names(root: ET.Element, selection: str, timeline_entries: list[ET.Element], source_of: Any) -> list[str]:
    """Names of bin clips: all, or those the timeline's entries play (``used``) or not (``unused``)."""
    ids = {c.get("id"): c for c in root}
    played = [ids[e.get("producer")] for e in timeline_entries]
    used_ids = {p.get("id") for p in played}
    used_bin_ids = {_prop(p, "kdenlive:id") for p in played} - {None, ""}
    names = []
    for node in _bin(root):
        used = node.get("id") in used_ids or (_prop(node, "kdenlive:id") or "") in used_bin_ids
        if selection == "all" or used == (selection == "used"):
            names.append(_name(node, source_of))
    if selection not in ("all", "used", "unused"):
        raise ValueError(selection)
    return names


def title_texts(producer: ET.Element) -> list[str]:
    if _prop(producer, "mlt_service") != "kdenlivetitle":
        raise ValueError("not a title")
    return _texts(producer)
