"""Reading an Audacity 3 project file (``.aup3``) without Audacity: SQLite plus Audacity's binary XML.

An ``.aup3`` is an SQLite database. Its ``project`` table holds one row whose ``dict`` blob names the
XML tags and attributes and whose ``doc`` blob is the project document in Audacity's binary
serialisation (``ProjectSerializer``): a type byte, then per type a 2-byte name id and the value.
Strings are in the character size the ``dict`` announces (4-byte UTF-32 on Linux). Checked against
files that Audacity 3.2.4 saved here (``tests/adapters/test_audacity_tracks.py``).

The file is opened read-only and immutable, so a project another program holds stays untouched.
"""

from __future__ import annotations

import math
import sqlite3
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# ProjectSerializer's field types (Audacity 3.2, ProjectSerializer.cpp), in their enum order.
CHAR_SIZE, START_TAG, END_TAG, STRING, INT, BOOL, LONG, LONG_LONG, SIZE_T, FLOAT, DOUBLE, DATA, RAW, PUSH, POP, NAME = \
    range(16)
# (struct format after the name id, number of bytes) of the fixed-size value types.
FIXED = {INT: ("<i", 4), BOOL: ("<B", 1), LONG: ("<i", 4), LONG_LONG: ("<q", 8), SIZE_T: ("<I", 4),
         FLOAT: ("<fi", 8), DOUBLE: ("<di", 12)}
ENCODINGS = {1: "utf-8", 2: "utf-16-le", 4: "utf-32-le"}


class ProjectUnreadable(Exception):
    """The file is not an Audacity 3 project this reader understands."""


@dataclass
class Node:
    """One XML element of the project document."""

    tag: str
    attrs: dict[str, Any] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)

    def all(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]


def _names(blob: bytes) -> tuple[dict[int, str], int]:
    pos, size, names = 0, 4, {}
    while pos < len(blob):
        kind = blob[pos]
        pos += 1
        if kind == CHAR_SIZE:
            size, pos = blob[pos], pos + 1
        elif kind == NAME:
            ident, length = struct.unpack_from("<HH", blob, pos)
            names[ident] = blob[pos + 4:pos + 4 + length].decode(ENCODINGS[size])
            pos += 4 + length
        else:
            raise ProjectUnreadable(f"unexpected field type {kind} in the name table")
    return names, size


def decode_document(names_blob: bytes, doc: bytes) -> Node:
    """The root element of a binary project document (raw text such as the XML prolog is skipped)."""
    names, size = _names(names_blob)
    root = Node("#document")
    stack, pos = [root], 0
    while pos < len(doc):
        kind = doc[pos]
        pos += 1
        if kind == CHAR_SIZE:
            size, pos = doc[pos], pos + 1
        elif kind == START_TAG:
            node = Node(names[struct.unpack_from("<H", doc, pos)[0]])
            stack[-1].children.append(node)
            stack.append(node)
            pos += 2
        elif kind == END_TAG:
            stack.pop()
            pos += 2
        elif kind == STRING:
            ident, length = struct.unpack_from("<Hi", doc, pos)
            stack[-1].attrs[names[ident]] = doc[pos + 6:pos + 6 + length].decode(ENCODINGS[size])
            pos += 6 + length
        elif kind in FIXED:
            form, width = FIXED[kind]
            ident = struct.unpack_from("<H", doc, pos)[0]
            value = struct.unpack_from(form, doc, pos + 2)[0]
            stack[-1].attrs[names[ident]] = bool(value) if kind == BOOL else value
            pos += 2 + width
        elif kind in (DATA, RAW):
            pos += 4 + struct.unpack_from("<i", doc, pos)[0]
        elif kind not in (PUSH, POP):
            raise ProjectUnreadable(f"unknown field type {kind} at byte {pos - 1}")
    projects = root.all("project")
    if len(projects) != 1:
        raise ProjectUnreadable("the document has no <project> element")
    return projects[0]


def read_document(path: Path) -> Node:
    """The saved project document of an .aup3 file (the ``project`` table; unsaved autosaves are ignored)."""
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True) as db:
            row = db.execute("SELECT dict, doc FROM project WHERE id = 1").fetchone()
    except sqlite3.Error as exc:
        raise ProjectUnreadable(f"{path.name} is not an Audacity project database ({exc})") from None
    if row is None:
        raise ProjectUnreadable(f"{path.name} holds no saved project")
    try:
        return decode_document(bytes(row[0]), bytes(row[1]))
    except (struct.error, KeyError, IndexError, UnicodeDecodeError) as exc:
        raise ProjectUnreadable(f"{path.name}: the project document is damaged ({exc!r})") from None


def _db(gain: float) -> float:
    return round(20 * math.log10(gain), 2) if gain > 0 else -200.0


def _clips(track: Node, rate: float) -> list[list[float]]:
    """[play start, play end] of each clip: offset plus trims around the sequence's samples."""
    spans = []
    for clip in track.all("waveclip"):
        samples = sum(int(s.attrs.get("numsamples", 0)) for s in clip.all("sequence"))
        start = float(clip.attrs.get("offset", 0.0)) + float(clip.attrs.get("trimLeft", 0.0))
        end = float(clip.attrs.get("offset", 0.0)) + samples / rate - float(clip.attrs.get("trimRight", 0.0))
        spans.append([round(start, 6), round(end, 6)])
    return sorted(spans)


def project_tracks(root: Node) -> list[dict[str, Any]]:
    """Tracks in project order. A stereo track is two <wavetrack> channels, the first with linked != 0."""
    tracks: list[dict[str, Any]] = []
    joined = False  # the previous wavetrack announced a second channel
    for node in root.children:
        if node.tag == "wavetrack":
            if joined:
                tracks[-1]["channels"] = 2
                joined = False
                continue
            rate = float(node.attrs.get("rate", root.attrs.get("rate", 44100)))
            clips = _clips(node, rate)
            tracks.append({"kind": "wave", "name": str(node.attrs.get("name", "")),
                           "gain_db": _db(float(node.attrs.get("gain", 1.0))),
                           "pan": round(float(node.attrs.get("pan", 0.0)), 4),
                           "mute": bool(node.attrs.get("mute", False)), "solo": bool(node.attrs.get("solo", False)),
                           "channels": 1, "rate": int(rate), "clips": clips,
                           "start": clips[0][0] if clips else 0.0, "end": max((c[1] for c in clips), default=0.0)})
            joined = int(node.attrs.get("linked", 0)) != 0
        elif node.tag == "labeltrack":
            labels = [[round(float(lab.attrs.get("t", 0.0)), 6), round(float(lab.attrs.get("t1", 0.0)), 6),
                       str(lab.attrs.get("title", ""))] for lab in node.all("label")]
            tracks.append({"kind": "label", "name": str(node.attrs.get("name", "")), "labels": sorted(labels)})
    return tracks


def read_tracks(path: Path) -> tuple[int, list[dict[str, Any]]]:
    """(project rate, tracks) of the saved project in an .aup3 file."""
    root = read_document(path)
    return int(float(root.attrs.get("rate", 44100))), project_tracks(root)
