"""Task set-up for Kdenlive: tiny media clips made by ffmpeg (cached) and MLT projects from specs.

``media_clip`` content: ``{"color": "red", "seconds": 2, "width": 160, "height": 90, "fps": 25,
"tone": 440}`` (a solid colour video with a sine tone; ``tone`` 0 means silence).
``mlt_project`` content: ``{"profile": {"width", "height", "fps_num", "fps_den", "dar": [16, 9]},
"layout": "mlt" | "kdenlive", "tracks": [{"id", "name", "clips": [{"id", "source", "in", "out",
"start", "filters": [{"service", "params", "id"}]}], "filters": [...]}], "transitions": [{"id",
"service", "a_track", "b_track", "start", "end", "params"}]}``. The ``kdenlive`` layout is a document the
real Kdenlive 22.12 (Debian 12's) opens with its clips and no dialog (tests/adapters/
test_kdenlive_opens_in_kdenlive.py): the bin playlist first (Kdenlive reads the document version, 1.04, from
the first playlist), every producer a bin clip with its ``kdenlive:id``, a black background track, each track
in a track tractor of two playlists carrying the track's name, and the timeline as the last tractor. A clip ``source`` may also
be ``title:TEXT`` (a Kdenlive title clip). ``"guides": [[frame, comment, category]]`` and
``"bin": [{"source", "id", "name", "markers": [[frame, comment, category]]}]`` are written as Kdenlive
22.12 keeps them (the bin playlist's ``kdenlive:docproperties.guides``; bin producers with
``kdenlive:id``, ``kdenlive:folderid`` and ``kdenlive:markers``); a bin source no track uses is a
bin-only clip.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.markers import CLIP_MARKERS, GUIDES, Marker, dump_markers
from asil.adapters.kdenlive.project import CLIP_ID, set_prop
from asil.adapters.kdenlive.titles import title_xml
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, cached_build
from asil.workspace import atomic_write


def media_clip(spec: dict[str, Any], target: Path) -> None:
    """Write a small H.264/AAC clip of a solid colour (and a tone) with ffmpeg, atomically."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise SetupError("ffmpeg is not installed; it makes the task's media clips.",
                         hint="apt-get install --no-install-recommends ffmpeg")
    size, fps, seconds = f"{spec.get('width', 160)}x{spec.get('height', 90)}", spec.get("fps", 25), spec["seconds"]
    video = f"color=c={spec.get('color', 'black')}:s={size}:r={fps}:d={seconds}"
    audio = f"sine=f={spec.get('tone', 440)}:d={seconds}" if spec.get("tone", 440) else f"anullsrc=d={seconds}"
    staged = target.with_name(f".{target.stem}.asil-build{target.suffix}")
    args = [ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio, "-c:v", "libx264",
            "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-t", str(seconds), str(staged)]
    try:
        subprocess.run(args, capture_output=True, timeout=60, check=True, stdin=subprocess.DEVNULL)
        atomic_write(target, staged.read_bytes())
    except (subprocess.SubprocessError, OSError) as exc:
        raise SetupError(f"ffmpeg could not make the clip {target.name} ({exc}).") from None
    finally:
        staged.unlink(missing_ok=True)


def build_media_clip(item: SetupFile, task: Task, target: Path) -> None:
    """Made once per spec by ffmpeg, then copied from the cache."""
    if not isinstance(item.content, dict) or "seconds" not in item.content:
        raise SetupError(f"Task {task.id}: media clip {item.path!r} needs content with 'seconds'.")
    shutil.copyfile(cached_build(item, task, "kdenlive-media", ".mp4", lambda path, spec: media_clip(spec, path)), target)


def build_mlt_project(item: SetupFile, task: Task, target: Path) -> None:
    if not isinstance(item.content, dict):
        raise SetupError(f"Task {task.id}: project {item.path!r} needs content: a project spec object.")
    atomic_write(target, project_xml(item.content))


def project_xml(spec: dict[str, Any]) -> bytes:
    """MLT XML for a project spec (see the module docstring)."""
    root = ET.Element("mlt", {"LC_NUMERIC": "C", "version": "7.12.0", "producer": "main"})
    p = spec.get("profile", {})
    dar = p.get("dar", [16, 9])
    ET.SubElement(root, "profile", {
        "description": p.get("description", "task"), "width": str(p.get("width", 160)),
        "height": str(p.get("height", 90)), "progressive": "1", "sample_aspect_num": "1", "sample_aspect_den": "1",
        "display_aspect_num": str(dar[0]), "display_aspect_den": str(dar[1]),
        "frame_rate_num": str(p.get("fps_num", 25)), "frame_rate_den": str(p.get("fps_den", 1)),
        "colorspace": "709"})
    producers: dict[str, str] = {}
    size = (int(p.get("width", 160)), int(p.get("height", 90)))
    sources = [c["source"] for t in spec.get("tracks", []) for c in t.get("clips", [])]
    for item in spec.get("bin", []):
        sources.append(item["source"])
    for source in sources:
        if source not in producers:
            producers[source] = _producer(root, source, len(producers) + 1, size)
    _bin_properties(root, spec.get("bin", []), producers)
    kdenlive = spec.get("layout", "mlt") == "kdenlive"
    if kdenlive:  # Kdenlive 22.12 reads the document version from the first playlist: the bin comes first
        _number_bin_clips(root)
        root.set("producer", "main_bin")
        root.append(_bin_playlist(producers.values(), spec.get("guides", []), kdenlive=True))
        black = ET.SubElement(root, "producer", {"id": "black_track", "in": "0", "out": "14999"})
        for name, value in (("length", "15000"), ("resource", "black"), ("mlt_service", "color")):
            set_prop(black, name, value)
    track_ids = ["black_track"] if kdenlive else []
    for track in spec.get("tracks", []):
        track_ids.append(_playlist(root, track, producers, kdenlive))
    main = ET.SubElement(root, "tractor", {"id": "main"})  # Kdenlive 22.12's timeline: the last tractor
    for track_id in track_ids:
        ET.SubElement(main, "track", {"producer": track_id})
    if not kdenlive and (spec.get("bin") or spec.get("guides")):  # a bin playlist, as Kdenlive saves it
        in_bin = [producers[b["source"]] for b in spec.get("bin", [])]
        root.insert(list(root).index(main), _bin_playlist(in_bin, spec.get("guides", [])))
    for t in spec.get("transitions", []):
        node = ET.SubElement(main, "transition", {"id": t["id"], "in": str(t["start"]), "out": str(t["end"])})
        set_prop(node, "mlt_service", t["service"])
        set_prop(node, "a_track", str(_index(spec, t["a_track"], kdenlive)))
        set_prop(node, "b_track", str(_index(spec, t["b_track"], kdenlive)))
        if kdenlive and _index(spec, t["a_track"], True) != _index(spec, t["b_track"], True) - 1:
            # Kdenlive 22.12 composites a track with the one below it unless told the track was chosen: without
            # this it reports "Composition was not applied on expected track" and moves it there
            set_prop(node, "force_track", "1")
        for name, value in t.get("params", {}).items():
            set_prop(node, name, str(value))
    ET.indent(root, space="  ")
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + body + b"\n"


def _index(spec: dict[str, Any], track_id: str, kdenlive: bool) -> int:
    ids = [t["id"] for t in spec.get("tracks", [])]
    return ids.index(track_id) + (1 if kdenlive else 0)


def _markers(rows: list[list[Any]]) -> str:
    return dump_markers([Marker(int(f), str(c), int(k)) for f, c, k in rows])


# What Kdenlive 22.12.3 writes in its bin playlist (tests/adapters/kdenlive_real/): without the version it
# says "Version of the project file cannot be read".
DOCUMENT_PROPERTIES = (("kdenlive:docproperties.version", "1.04"), ("kdenlive:docproperties.kdenliveversion", "22.12.3"),
                       ("kdenlive:docproperties.audioChannels", "2"), ("kdenlive:docproperties.compositing", "1"))


def _bin_playlist(producer_ids: Any, guides: list[list[Any]], kdenlive: bool = False) -> ET.Element:
    playlist = ET.Element("playlist", {"id": "main_bin"})
    for name, value in DOCUMENT_PROPERTIES if kdenlive else ():
        set_prop(playlist, name, value)
    if guides:
        set_prop(playlist, GUIDES, _markers(guides))
    set_prop(playlist, "xml_retain", "1")
    for producer_id in producer_ids:
        ET.SubElement(playlist, "entry", {"producer": producer_id, "in": "0", "out": "0"})
    return playlist


def _number_bin_clips(root: ET.Element) -> None:
    """Kdenlive finds a timeline clip's bin clip by ``kdenlive:id``: number the producers the spec's bin did not."""
    nodes = [n for n in root if n.tag == "producer"]
    taken = [int(v) for n in nodes if (v := _prop(n, "kdenlive:id"))]
    number = max(taken, default=1)
    for node in nodes:
        if _prop(node, "kdenlive:id") is None:
            number += 1
            set_prop(node, "kdenlive:id", str(number))
            set_prop(node, "kdenlive:folderid", "-1")


def _prop(node: ET.Element, name: str) -> str | None:
    found = node.find(f"property[@name='{name}']")
    return None if found is None else found.text


def _bin_properties(root: ET.Element, items: list[dict[str, Any]], producers: dict[str, str]) -> None:
    """Kdenlive's bin properties (and an id the spec asks for) on the producers of the spec's bin items."""
    nodes = {str(n.get("id")): n for n in root if n.tag == "producer"}
    for number, item in enumerate(items, start=2):  # Kdenlive's bin ids start at 2
        node = nodes[producers[item["source"]]]
        if item.get("id"):
            node.set("id", item["id"])
            producers[item["source"]] = item["id"]
        for name, value in (("kdenlive:clipname", item.get("name", "")), ("kdenlive:folderid", "-1"),
                            ("kdenlive:id", str(number))):
            set_prop(node, name, value)
        if item.get("markers"):
            set_prop(node, CLIP_MARKERS, _markers(item["markers"]))


def _producer(root: ET.Element, source: str, number: int, size: tuple[int, int] = (160, 90)) -> str:
    producer_id = f"producer{number}"
    node = ET.SubElement(root, "producer", {"id": producer_id})
    if source.startswith("title:"):
        node.set("in", "0")
        node.set("out", "14999")
        set_prop(node, "length", "15000")
        set_prop(node, "mlt_service", "kdenlivetitle")
        set_prop(node, "kdenlive:duration", "125")
        set_prop(node, "xmldata", title_xml(source.removeprefix("title:"), *size, 125, max(4, size[1] // 6),
                                            (255, 255, 255, 255)))
    elif source.startswith("color:"):
        node.set("in", "0")
        node.set("out", "14999")
        set_prop(node, "length", "15000")
        set_prop(node, "resource", source.removeprefix("color:"))
        set_prop(node, "mlt_service", "color")
    else:
        set_prop(node, "resource", source)
        set_prop(node, "mlt_service", "avformat")
    return producer_id


def _playlist(root: ET.Element, track: dict[str, Any], producers: dict[str, str], kdenlive: bool) -> str:
    playlist = ET.SubElement(root, "playlist", {"id": track["id"]})
    if track.get("name") and not kdenlive:
        set_prop(playlist, "kdenlive:track_name", track["name"])
    at = 0
    for clip in sorted(track.get("clips", []), key=lambda c: c["start"]):
        if clip["start"] > at:
            ET.SubElement(playlist, "blank", {"length": str(clip["start"] - at)})
        entry = ET.SubElement(playlist, "entry", {"producer": producers[clip["source"]], "in": str(clip["in"]),
                                                  "out": str(clip["out"])})
        set_prop(entry, CLIP_ID, clip["id"])
        _filters(entry, clip.get("filters", []))
        at = clip["start"] + clip["out"] - clip["in"] + 1
    _filters(playlist, track.get("filters", []))
    if not kdenlive:
        return str(track["id"])
    ET.SubElement(root, "playlist", {"id": f"{track['id']}_b"})  # Kdenlive's second (same-track mix) playlist
    tractor = ET.SubElement(root, "tractor", {"id": f"{track['id']}_tractor"})
    if track.get("name"):  # where Kdenlive keeps a track's name
        set_prop(tractor, "kdenlive:track_name", track["name"])
    ET.SubElement(tractor, "track", {"producer": track["id"]})
    ET.SubElement(tractor, "track", {"producer": f"{track['id']}_b"})
    return f"{track['id']}_tractor"


def _filters(owner: ET.Element, filters: list[dict[str, Any]]) -> None:
    for spec in filters:
        node = ET.SubElement(owner, "filter", {"id": spec["id"]})
        set_prop(node, "mlt_service", spec["service"])
        for name, value in spec.get("params", {}).items():
            set_prop(node, name, str(value))
