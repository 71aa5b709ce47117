"""The independent raw validator for Kdenlive tasks: the saved XML read with ElementTree directly.

It shares no code with the adapter's project model: its own walk of ``<mlt>`` (main tractor,
tracks, entries and blanks, producers), its own time parsing, and its own ffprobe call for
rendered files. Anything unreadable is a failed checkpoint (fail closed).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive import bin_validator
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

NON_FILE_SERVICES = {"color", "colour", "noise", "blipflash", "count", "tone"}


class RawProjectError(Exception):
    """The file cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the saved files; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawProjectError, KeyError, ValueError, TypeError, IndexError, OSError, ET.ParseError,
            subprocess.SubprocessError, json.JSONDecodeError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


class RawProject:
    def __init__(self, path: Path):
        data = path.read_bytes()
        if b"<!DOCTYPE" in data.upper() or b"<!ENTITY" in data.upper():
            raise RawProjectError("a DTD")
        self.root = ET.fromstring(data)
        self.ids = {c.get("id"): c for c in self.root}
        p = self.root.find("profile")
        if p is None:
            raise RawProjectError("no profile")
        self.profile = {k: int(p.attrib[k]) for k in ("width", "height", "frame_rate_num", "frame_rate_den",
                                                      "display_aspect_num", "display_aspect_den")}

    def fps(self) -> float:
        return self.profile["frame_rate_num"] / self.profile["frame_rate_den"]

    def time(self, text: str | None, default: int) -> int:
        if text is None or not text.strip():
            return default
        text = text.strip()
        if text.lstrip("-").isdigit():
            return int(text)
        parts = re.split(r"[:;]", text)
        if len(parts) == 4:
            h, m, s, f = (int(x) for x in parts)
            return round((h * 3600 + m * 60 + s) * self.fps()) + f
        if len(parts) == 3:
            return round((int(parts[0]) * 3600 + int(parts[1]) * 60 + float(parts[2])) * self.fps())
        raise RawProjectError(f"time {text!r}")

    def main(self) -> ET.Element:
        named = self.ids.get(self.root.get("producer"))
        main = named if named is not None and named.tag == "tractor" else [c for c in self.root if c.tag == "tractor"][-1]
        while len(main.findall("track")) == 1:  # a Kdenlive 23+ wrapper around the sequence tractor
            inner = self.ids.get(main.findall("track")[0].get("producer"))
            if inner is None or inner.tag != "tractor":
                break
            main = inner
        return main

    def track_playlists(self) -> list[tuple[str, ET.Element | None]]:
        """(name, playlist) per main-tractor track; a background track has no playlist. Kdenlive names the
        playlists it saves ``playlistN``: then video tracks are V1.. bottom up, audio tracks A1.. top down."""
        found: list[tuple[str, ET.Element | None, bool]] = []
        for node in self.main().findall("track"):
            ref = self.ids.get(node.get("producer"))
            audio = ref is not None and _prop(ref, "kdenlive:audio_track") == "1"
            if ref is not None and ref.tag == "tractor":
                subs = [self.ids.get(t.get("producer")) for t in ref.findall("track")]
                ref = next((s for s in subs if s is not None and s.tag == "playlist"), None)
            if ref is not None and ref.tag == "playlist":
                found.append((str(ref.get("id")), ref, audio or _prop(ref, "kdenlive:audio_track") == "1"))
            else:
                found.append((str(node.get("producer")), None, False))
        lists = [(name, audio) for name, pl, audio in found if pl is not None]
        if not lists or not all(re.fullmatch(r"playlist\d+", name) for name, _ in lists):
            return [(name, pl) for name, pl, _ in found]
        video = iter(range(1, len(lists) + 1))
        audio_numbers = iter(range(sum(a for _, a in lists), 0, -1))
        return [(name, pl) if pl is None else (f"A{next(audio_numbers)}" if a else f"V{next(video)}", pl)
                for name, pl, a in found]

    def _track_node(self, track: str) -> ET.Element:
        """The main tractor's <track> of the editable track ``track`` (its name, or its Kdenlive track name)."""
        nodes = self.main().findall("track")
        named = self.track_playlists()
        for node, (name, playlist) in zip(nodes, named, strict=True):
            if playlist is not None and name == track:
                return node
        titled = [node for node, (_, playlist) in zip(nodes, named, strict=True)
                  if playlist is not None and self._title(node) == track]
        if len(titled) == 1:
            return titled[0]
        raise RawProjectError(f"no track {track}")

    def _title(self, node: ET.Element) -> str | None:
        ref = self.ids.get(node.get("producer"))
        if ref is None:
            return None
        owners = [ref, *(self.ids.get(t.get("producer")) for t in ref.findall("track"))][:2]
        names = [n for o in owners if o is not None and (n := _prop(o, "kdenlive:track_name"))]
        return names[0] if names else None

    def track_state(self, track: str) -> dict[str, Any]:
        """Name and hide flags read from the main tractor's <track>, or a Kdenlive track tractor's."""
        node = self._track_node(track)
        ref = self.ids[node.get("producer")]
        flags = [node.get("hide", "")]
        if ref.tag == "tractor":
            flags += [t.get("hide", "") for t in ref.findall("track")]
        return {"name": self._title(node), "hidden": any(f in ("video", "both") for f in flags),
                "muted": any(f in ("audio", "both") for f in flags)}

    def playlist(self, track: str) -> ET.Element:
        node = self._track_node(track)
        for (_, playlist), other in zip(self.track_playlists(), self.main().findall("track"), strict=True):
            if other is node and playlist is not None:
                return playlist
        raise RawProjectError(f"no track {track}")

    def clips(self, track: str) -> list[dict[str, Any]]:
        clips, at = [], 0
        for child in self.playlist(track):
            if child.tag == "blank":
                at += self.time(child.get("length"), 0)
            elif child.tag == "entry":
                producer = self.ids[child.get("producer")]
                first = self.time(child.get("in"), 0)
                last = self.time(child.get("out"), self.time(producer.get("out"), 0))
                clips.append({"entry": child, "start": at, "end": at + last - first + 1, "in": first, "out": last,
                              "source": _source(producer)})
                at += last - first + 1
        return clips


def _prop(node: ET.Element, name: str) -> str | None:
    hits = [p.text or "" for p in node.findall("property") if p.get("name") == name]
    return hits[0] if hits else None


def _internal(service: ET.Element) -> bool:
    """Kdenlive's own compositing/mixing between tracks, which no user made."""
    return bool(_prop(service, "internal_added"))


def _source(producer: ET.Element) -> str:
    service = _prop(producer, "mlt_service") or ""
    resource = _prop(producer, "resource") or ""
    if service == "kdenlivetitle" and not resource:
        return "title:" + " / ".join(bin_validator.title_texts(producer))
    if service in NON_FILE_SERVICES:
        return resource if ":" in resource else f"{service}:{_color(resource) if service in ('color', 'colour') else resource}"
    return resource


BASIC_COLORS = {"black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0), "green": (0, 128, 0),
                "blue": (0, 0, 255), "yellow": (255, 255, 0), "gray": (128, 128, 128)}


def _color(text: str) -> str:
    """Kdenlive's dialog writes 0xRRGGBBAA: read as a basic colour name, #rrggbb or (translucent) #rrggbbaa."""
    if not re.fullmatch(r"0x[0-9a-fA-F]{8}", text):
        return text
    r, g, b, a = (int(text[i:i + 2], 16) for i in (2, 4, 6, 8))
    names = [name for name, rgb in BASIC_COLORS.items() if rgb == (r, g, b)]
    if a == 255:
        return names[0] if names else f"#{r:02x}{g:02x}{b:02x}"
    return f"#{r:02x}{g:02x}{b:02x}{a:02x}"


def _scope(project: RawProject, scope: str) -> ET.Element:
    if scope == "timeline":
        return project.main()
    track, sep, number = scope.partition(":")
    if not sep:
        return project.playlist(track)
    entry: ET.Element = project.clips(track)[int(number)]["entry"]
    return entry


BIN_TYPES = ("kdenlive_guides", "kdenlive_clip_markers", "kdenlive_bin_clips", "kdenlive_title_texts")


def _read_bin(cp: Checkpoint, project: RawProject) -> Any:
    root, target = project.root, cp.target
    if cp.type == "kdenlive_guides":
        return bin_validator.guides(root, project.main())
    if cp.type == "kdenlive_clip_markers":
        return bin_validator.clip_markers(root, str(target), _source)
    if cp.type == "kdenlive_bin_clips":
        entries = [e for name, pl in project.track_playlists() if pl is not None for e in pl.findall("entry")]
        return bin_validator.bin_names(root, target or "all", entries, _source)
    track, sep, number = str(target).rpartition(":")
    if sep and number.isdigit() and any(name == track for name, _ in project.track_playlists()):
        producer = project.ids[project.clips(track)[int(number)]["entry"].get("producer")]
    else:
        producer = bin_validator.bin_clip(root, str(target), _source)
    return bin_validator.title_texts(producer)


def _ffprobe_video(path: Path) -> dict[str, Any]:
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                           "stream=width,height,duration", "-of", "json", str(path)],
                          capture_output=True, text=True, timeout=30, check=True)
    stream: dict[str, Any] = json.loads(done.stdout)["streams"][0]
    return stream


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    target = str(cp.target)
    if cp.type in ("kdenlive_video_size", "kdenlive_video_duration"):
        stream = _ffprobe_video(workspace.resolve(target))
        if cp.type == "kdenlive_video_size":
            return [int(stream["width"]), int(stream["height"])]
        return float(stream["duration"])
    project = RawProject(workspace.resolve(str(cp.document)))
    if cp.type == "kdenlive_profile":
        p = project.profile
        return {"width": p["width"], "height": p["height"], "fps": project.fps(), "fps_num": p["frame_rate_num"],
                "fps_den": p["frame_rate_den"],
                "display_aspect": f"{p['display_aspect_num']}:{p['display_aspect_den']}"}[target]
    if cp.type == "kdenlive_tracks":
        return [name for name, playlist in project.track_playlists() if playlist is not None]
    if cp.type == "kdenlive_track_state":
        return project.track_state(target)
    if cp.type == "kdenlive_clip_count":
        if cp.target is None:
            return sum(len(project.clips(name)) for name, pl in project.track_playlists() if pl is not None)
        return len(project.clips(target))
    if cp.type == "kdenlive_track_sources":
        return [c["source"] for c in project.clips(target)]
    if cp.type == "kdenlive_track_clips":
        return [[c["source"], c["start"], c["end"]] for c in project.clips(target)]
    if cp.type == "kdenlive_clip_spans":
        return [[c["in"], c["out"]] for c in project.clips(target)]
    if cp.type == "kdenlive_filter_services":
        return [_prop(f, "mlt_service") for f in _scope(project, target).findall("filter") if not _internal(f)]
    if cp.type == "kdenlive_filter_value":
        scope, _, rest = target.partition("/")
        service, _, name = rest.partition(".")
        (first, *_) = [f for f in _scope(project, scope).findall("filter") if _prop(f, "mlt_service") == service]
        value = _prop(first, name)
        if value is None:
            raise RawProjectError("no such property")
        try:
            return float(value)
        except ValueError:
            return value
    if cp.type in BIN_TYPES:
        return _read_bin(cp, project)
    if cp.type == "kdenlive_transitions":
        names = [name for name, _ in project.track_playlists()]
        return [[_prop(t, "mlt_service"), names[int(_prop(t, "a_track") or 0)], names[int(_prop(t, "b_track") or 1)],
                 project.time(t.get("in"), 0), project.time(t.get("out"), 0)]
                for t in project.main().findall("transition") if not _internal(t)]
    raise RawProjectError(f"unknown checkpoint type {cp.type!r}")
