"""An MLT XML project (Kdenlive's .kdenlive, plain .mlt) held as an ElementTree, read safely.

The timeline is the main tractor: the one the root ``producer`` attribute names, else the last
tractor (MLT plays the last service). Each ``<track>`` of it is a timeline track: a playlist, or a
Kdenlive track tractor whose first playlist holds the clips; any other producer (Kdenlive's
``black_track``) is a read-only background track. Times are frames at the profile's rate; MLT's
clock ("00:00:01.500") and SMPTE ("00:00:01:12") forms are read too.

Stable ids: clips carry an ``asil:id`` property (assigned on open when missing, written on save;
MLT keeps unknown properties), filters and transitions their XML ``id``; tracks are their
playlist's id. Ids survive moves, trims and edits elsewhere.

Kdenlive 22.12 renames every track playlist on save (``playlist0``, ``playlist1``...) and drops
``asil:id``. In a project whose tracks all carry such names, a track is called by its position as
Kdenlive shows it: ``V1`` the lowest video track, ``A1`` the audio track nearest the video ones (see
``kdenlive_track_ids``); a track can also be named by its Kdenlive track name. Kdenlive's own
compositing between tracks (transitions and filters marked ``internal_added``) is not a user's edit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from asil.protocol import DocumentError

MAX_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 32  # mlt > tractor > transition > property is 4; deep nesting only attacks recursion
CLIP_ID = "asil:id"
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)
_CLOCK = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")
_SMPTE = re.compile(r"^(\d+):(\d{1,2}):(\d{1,2})[:;](\d{1,3})$")
_KDENLIVE_PLAYLIST = re.compile(r"^playlist\d+$")  # how Kdenlive names the track playlists it saves
PRODUCER_TAGS = ("producer", "chain")
VALID = "Give an MLT XML project (.kdenlive or .mlt) with an <mlt> root, as Kdenlive or melt saves it."


class UnsafeProject(DocumentError):
    code = "unsafe_document"


def check_bytes(data: bytes, shown: str) -> None:
    """Refuse oversized, non-UTF-8 or DTD-bearing XML before any parser sees it (nothing is expanded)."""
    if len(data) > MAX_BYTES:
        raise UnsafeProject(f"{shown!r} is {len(data)} bytes; projects of at most {MAX_BYTES} bytes are accepted.",
                            hint=VALID)
    if _DTD.search(data):
        raise UnsafeProject(f"{shown!r} declares a DTD or entities, which MLT projects never need; it was refused "
                            "without expanding anything.", hint=VALID)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]:
        raise UnsafeProject(f"{shown!r} is not UTF-8 XML.", hint=VALID)


def parse_bytes(data: bytes, shown: str) -> ET.Element:
    check_bytes(data, shown)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise DocumentError(f"{shown!r} is not well-formed XML ({exc}).", hint=VALID) from None
    if root.tag != "mlt":
        raise DocumentError(f"{shown!r} is XML but its root is <{root.tag}>, not <mlt>.", hint=VALID)
    if _depth(root) > MAX_DEPTH:
        raise UnsafeProject(f"{shown!r} nests elements more than {MAX_DEPTH} deep; MLT projects are shallow.",
                            hint=VALID)
    return root


def _depth(root: ET.Element) -> int:
    deepest, level = 0, [root]
    while level and deepest <= MAX_DEPTH:  # breadth first, without recursion
        deepest += 1
        level = [child for node in level for child in node]
    return deepest


def read_project_file(path: Path, shown: str) -> ET.Element:
    if path.suffix.lower() not in (".kdenlive", ".mlt"):
        raise DocumentError(f"{shown!r} is not a .kdenlive or .mlt file.", hint=VALID)
    if not path.is_file():
        raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=VALID)
    if path.stat().st_size > MAX_BYTES:
        raise UnsafeProject(f"{shown!r} is {path.stat().st_size} bytes; at most {MAX_BYTES} are accepted.", hint=VALID)
    return parse_bytes(path.read_bytes(), shown)


def prop(element: ET.Element, name: str) -> str | None:
    """The text of ``<property name=NAME>`` directly under ``element``."""
    for child in element.findall("property"):
        if child.get("name") == name:
            return child.text or ""
    return None


def set_prop(element: ET.Element, name: str, value: str | None) -> None:
    """Set (or with None remove) a property, keeping properties before other children."""
    for child in element.findall("property"):
        if child.get("name") == name:
            if value is None:
                element.remove(child)
            else:
                child.text = value
            return
    if value is None:
        return
    node = ET.Element("property", {"name": name})
    node.text = value
    element.insert(len(element.findall("property")), node)


def props(element: ET.Element) -> dict[str, str]:
    return {str(p.get("name")): p.text or "" for p in element.findall("property")}


@dataclass
class Profile:
    width: int
    height: int
    fps_num: int
    fps_den: int
    dar_num: int
    dar_den: int

    @property
    def fps(self) -> float:
        return self.fps_num / self.fps_den


@dataclass
class Track:
    id: str
    index: int
    playlist: ET.Element | None  # None: a read-only background track
    hidden: str  # MLT 'hide': "", "video", "audio" or "both"
    node: ET.Element  # the <track> of the main tractor
    holder: ET.Element | None = None  # Kdenlive's track tractor around the playlist (nested layout)

    @property
    def inner_nodes(self) -> list[ET.Element]:
        """Where MLT reads this track's 'hide': the track tractor's own tracks, else the main <track>."""
        return self.holder.findall("track") if self.holder is not None else [self.node]

    @property
    def name(self) -> str | None:
        """Kdenlive keeps the name on the track tractor (nested layout) or the playlist."""
        for owner in (self.holder, self.playlist):
            if owner is not None and (name := prop(owner, "kdenlive:track_name")):
                return name
        return None

    @property
    def audio(self) -> bool:
        return any(owner is not None and prop(owner, "kdenlive:audio_track") == "1"
                   for owner in (self.holder, self.playlist))


HIDE_BITS = {"": (False, False), "video": (True, False), "audio": (False, True), "both": (True, True)}


def merge_hide(*values: str) -> str:
    """One MLT 'hide' value hiding what any of ``values`` hides (unknown values hide nothing)."""
    video = any(HIDE_BITS.get(v, (False, False))[0] for v in values)
    audio = any(HIDE_BITS.get(v, (False, False))[1] for v in values)
    return hide_value(video, audio)


def hide_value(video: bool, audio: bool) -> str:
    return next(name for name, bits in HIDE_BITS.items() if bits == (video, audio))


@dataclass
class Placed:
    """A clip on a track: its entry element and where it starts on the timeline."""

    entry: ET.Element
    start: int
    length: int

    @property
    def id(self) -> str:
        return prop(self.entry, CLIP_ID) or ""

    @property
    def end(self) -> int:
        return self.start + self.length


def is_internal(service: ET.Element) -> bool:
    """Kdenlive marks the compositing and audio mixing it adds between tracks itself with ``internal_added``."""
    return bool(prop(service, "internal_added"))


def kdenlive_track_ids(tracks: list[Track]) -> list[Track]:
    """Call the tracks of a project Kdenlive saved (all playlists ``playlistN``) as Kdenlive shows them: video
    tracks V1, V2... bottom up, audio tracks A1, A2... from the video tracks down (MLT lists A2 below A1)."""
    editable = [t for t in tracks if t.playlist is not None]
    if not editable or not all(_KDENLIVE_PLAYLIST.match(t.id) for t in editable):
        return tracks
    video = [t for t in editable if not t.audio]
    audio = [t for t in editable if t.audio][::-1]
    for prefix, group in (("V", video), ("A", audio)):
        for number, track in enumerate(group, start=1):
            track.id = f"{prefix}{number}"
    return tracks


class Project:
    """The XML tree plus the lookups every observation and edit needs."""

    def __init__(self, root: ET.Element, shown: str = "project"):
        self.root = root
        self.shown = shown
        self.assigned = False  # ids were added on open (written by the next save)
        self._assign_ids()

    # ------------------------------------------------------------ profile and time
    def profile_element(self) -> ET.Element:
        found = self.root.find("profile")
        if found is None:  # MLT falls back to its default profile; make it explicit
            found = ET.Element("profile", {"width": "1920", "height": "1080", "frame_rate_num": "25",
                                           "frame_rate_den": "1", "display_aspect_num": "16",
                                           "display_aspect_den": "9", "sample_aspect_num": "1",
                                           "sample_aspect_den": "1", "progressive": "1"})
            self.root.insert(0, found)
        return found

    def profile(self) -> Profile:
        p = self.profile_element()
        try:
            values = [int(p.get(k, d)) for k, d in (("width", "1920"), ("height", "1080"), ("frame_rate_num", "25"),
                                                    ("frame_rate_den", "1"), ("display_aspect_num", "16"),
                                                    ("display_aspect_den", "9"))]
        except ValueError:
            raise DocumentError(f"{self.shown!r} has a profile with non-integer values.", hint=VALID) from None
        if min(values) <= 0:
            raise DocumentError(f"{self.shown!r} has a profile with zero or negative values.", hint=VALID)
        return Profile(*values)

    def frames(self, value: str | None, default: int = 0) -> int:
        """An MLT time (frames, clock or SMPTE) as a frame count at the profile rate."""
        if value is None or value == "":
            return default
        text = value.strip()
        if text.isdigit() or (text[:1] == "-" and text[1:].isdigit()):
            return int(text)
        fps = self.profile().fps
        if (m := _SMPTE.match(text)) is not None:
            return round((int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])) * fps) + int(m[4])
        if (m := _CLOCK.match(text)) is not None:
            return round((int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])) * fps)
        raise DocumentError(f"{self.shown!r} has the time {value!r}, which is not frames, clock or SMPTE time.",
                            hint=VALID)

    # ------------------------------------------------------------ services
    def by_id(self, element_id: str) -> ET.Element | None:
        for child in self.root:
            if child.get("id") == element_id:
                return child
        return None

    def producers(self) -> list[ET.Element]:
        return [c for c in self.root if c.tag in PRODUCER_TAGS]

    def main_tractor(self) -> ET.Element:
        named = self.by_id(self.root.get("producer", ""))
        tractors = [c for c in self.root if c.tag == "tractor"]
        if named is not None and named.tag == "tractor":
            tractor = named
        elif tractors:
            tractor = tractors[-1]
        else:
            return self._new_tractor()
        return self._sequence_in(tractor)

    def _new_tractor(self) -> ET.Element:
        """A project without a tractor plays its last playlist: make that the timeline's one track."""
        tractor = ET.SubElement(self.root, "tractor", {"id": self.unique_id("tractor")})
        playlists = [c for c in self.root if c.tag == "playlist"]
        if playlists:
            ET.SubElement(tractor, "track", {"producer": str(playlists[-1].get("id"))})
        self.assigned = True  # the new tractor is written by the next save
        return tractor

    def _sequence_in(self, tractor: ET.Element) -> ET.Element:
        """Kdenlive 23+ wraps the timeline (a "sequence" tractor) in a one-track tractor: look through it."""
        for _ in range(4):
            tracks = tractor.findall("track")
            inner = self.by_id(tracks[0].get("producer", "")) if len(tracks) == 1 else None
            if inner is None or inner.tag != "tractor":
                break
            tractor = inner
        return tractor

    def tracks(self) -> list[Track]:
        tracks = []
        for index, node in enumerate(self.main_tractor().findall("track")):
            ref = node.get("producer", "")
            service = self.by_id(ref)
            playlist, holder = None, None
            if service is not None and service.tag == "playlist":
                playlist = service
            elif service is not None and service.tag == "tractor":  # a Kdenlive track: its first playlist
                holder = service
                inner = [self.by_id(t.get("producer", "")) for t in service.findall("track")]
                playlist = next((p for p in inner if p is not None and p.tag == "playlist"), None)
            track_id = playlist.get("id", ref) if playlist is not None else ref
            track = Track(str(track_id), index, playlist, "", node, holder if playlist is not None else None)
            track.hidden = merge_hide(node.get("hide", ""), *(n.get("hide", "") for n in track.inner_nodes))
            tracks.append(track)
        return kdenlive_track_ids(tracks)

    def track(self, track_id: str) -> Track | None:
        """A track by id, else by its Kdenlive track name (when exactly one track has it)."""
        tracks = self.tracks()
        found = next((t for t in tracks if t.id == track_id), None)
        named = [t for t in tracks if t.playlist is not None and t.name == track_id]
        return found if found is not None or len(named) != 1 else named[0]

    # ------------------------------------------------------------ clips
    def entry_span(self, entry: ET.Element) -> tuple[int, int]:
        """Source in and out (inclusive) of an entry, defaulting to its producer's."""
        start = self.frames(entry.get("in"), 0)
        if entry.get("out"):
            return start, self.frames(entry.get("out"))
        producer = self.by_id(entry.get("producer", ""))
        default_out = 0
        if producer is not None:
            length = self.frames(prop(producer, "length"), 0)
            default_out = self.frames(producer.get("out"), max(length - 1, 0))
        return start, default_out

    def placed(self, playlist: ET.Element) -> list[Placed]:
        """The clips of a playlist with their timeline start frames."""
        clips, at = [], 0
        for child in playlist:
            if child.tag == "blank":
                at += self.frames(child.get("length"), 0)
            elif child.tag == "entry":
                first, last = self.entry_span(child)
                length = max(last - first + 1, 0)
                clips.append(Placed(child, at, length))
                at += length
        return clips

    def clips(self) -> list[tuple[Track, Placed]]:
        return [(t, c) for t in self.tracks() if t.playlist is not None for c in self.placed(t.playlist)]

    def find_clip(self, clip_id: str) -> tuple[Track, Placed] | None:
        return next(((t, c) for t, c in self.clips() if c.id == clip_id), None)

    def producer_of(self, entry: ET.Element) -> ET.Element | None:
        return self.by_id(entry.get("producer", ""))

    def duration(self) -> int:
        ends = [c.end for _, c in self.clips()]
        return max(ends, default=0)

    # ------------------------------------------------------------ filters and transitions
    def transitions(self, internal: bool = True) -> list[ET.Element]:
        """The timeline's transitions; ``internal=False`` leaves out Kdenlive's automatic track compositing."""
        found = self.main_tractor().findall("transition")
        return found if internal else [t for t in found if not is_internal(t)]

    def all_filters(self) -> list[ET.Element]:
        return list(self.root.iter("filter"))

    def element_by_id(self, element_id: str) -> ET.Element | None:
        """A filter or transition by its XML id."""
        for node in self.root.iter():
            if node.tag in ("filter", "transition") and node.get("id") == element_id:
                return node
        return None

    # ------------------------------------------------------------ ids
    def taken_ids(self) -> set[str]:
        taken = {str(n.get("id")) for n in self.root.iter() if n.get("id")}
        taken |= {prop(e, CLIP_ID) or "" for e in self.root.iter("entry")}
        return taken

    def unique_id(self, prefix: str, taken: set[str] | None = None) -> str:
        taken = self.taken_ids() if taken is None else taken
        number = 1
        while f"{prefix}{number}" in taken:
            number += 1
        taken.add(f"{prefix}{number}")
        return f"{prefix}{number}"

    def _assign_ids(self) -> None:
        taken = self.taken_ids()
        seen: set[str] = set()
        timeline = [e for t in self.tracks() if t.playlist is not None for e in t.playlist.findall("entry")]
        for entry in timeline:  # not bin entries (Kdenlive's main_bin): they are not on the timeline
            current = prop(entry, CLIP_ID)
            if not current or current in seen:
                set_prop(entry, CLIP_ID, self.unique_id("c", taken))
                self.assigned = True
            seen.add(prop(entry, CLIP_ID) or "")
        for node in self.root.iter():
            if node.tag in ("filter", "transition") and not node.get("id"):
                node.set("id", self.unique_id(node.tag, taken))
                self.assigned = True

    # ------------------------------------------------------------ bytes
    def serialize(self) -> bytes:
        ET.indent(self.root, space="  ")
        body: bytes = ET.tostring(self.root, encoding="utf-8", xml_declaration=False)
        return b'<?xml version="1.0" encoding="utf-8"?>\n' + body + b"\n"

    def copy(self) -> Project:
        clone = Project.__new__(Project)
        clone.root, clone.shown, clone.assigned = _clone(self.root), self.shown, self.assigned
        return clone


def _clone(element: ET.Element) -> ET.Element:
    copy = ET.Element(element.tag, dict(element.attrib))
    copy.text, copy.tail = element.text, element.tail
    copy.extend(_clone(child) for child in element)
    return copy


def load_project(path: Path, shown: str) -> Project:
    """Read, check and index a project; every profile value and time is read once here, so a broken
    file is refused on open rather than failing a later observation."""
    project = Project(read_project_file(path, shown), shown)
    project.profile()
    project.clips()
    for node in project.transitions():
        project.frames(node.get("in"))
        project.frames(node.get("out"))
    return project
