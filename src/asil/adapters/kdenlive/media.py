"""Clip sources: colour generators and media files, which must stay inside the workspace.

A producer's ``resource`` is a file unless its service is a generator (colour, noise, ...).
Relative resources are read relative to the project's folder (the adapter renders with MLT's
``root`` set to it), so a project can never make melt read a file outside the workspace.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.project import prop
from asil.adapters.kdenlive.titles import is_title, title_texts
from asil.protocol import InvalidAction
from asil.workspace import Workspace

GENERATORS = ("color", "colour", "noise", "blipflash", "count", "tone")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")
NESTED_SUFFIXES = (".mlt", ".kdenlive", ".xml")
COLOR = re.compile(r"^(#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?|0x[0-9a-fA-F]{8}|[a-z]{3,20})$")
LONG = 15000  # frames a colour or still image lasts (MLT's own default length for stills)


@dataclass(frozen=True)
class Source:
    """What a new clip plays: a service and its resource (file paths relative to the project folder)."""

    service: str
    resource: str
    file: Path | None  # the absolute media file, None for generators


def parse_source(text: str, workspace: Workspace, project_dir: Path) -> Source:
    """``color:#rrggbb`` / ``color:red`` or a workspace-relative media path; InvalidAction otherwise."""
    if text.startswith("color:"):
        value = text.removeprefix("color:")
        if not COLOR.match(value):
            raise InvalidAction(f"The colour {value!r} is not '#rrggbb', '#rrggbbaa' or a colour name.",
                                hint="e.g. 'color:#ff0000' or 'color:black'.", code="bad_source")
        return Source("color", value, None)
    path = workspace.resolve(text)
    if not path.is_file():
        raise InvalidAction(f"The media file {text!r} does not exist in the workspace.",
                            hint="Name a video, audio or image file in the workspace, or 'color:#rrggbb'.",
                            code="bad_source")
    if path.suffix.lower() in NESTED_SUFFIXES:
        raise InvalidAction(f"{text!r} is a project, not media; nested projects are not supported.",
                            hint="Name a video, audio or image file.", code="bad_source")
    service = "qimage" if path.suffix.lower() in IMAGE_SUFFIXES else "avformat"
    return Source(service, os.path.relpath(path, project_dir), path)


def producer_service(producer: ET.Element) -> str:
    return prop(producer, "mlt_service") or ""


def producer_file(producer: ET.Element) -> str | None:
    """The file a producer reads, as written in the project; None for generators."""
    service, resource = producer_service(producer), prop(producer, "resource") or producer.get("resource") or ""
    if service.split(".")[0] in GENERATORS or service.startswith("frei0r.") or not resource:
        return None
    if resource.startswith("color:") or resource.startswith("colour:"):
        return None
    if service == "timewarp":  # Kdenlive speed clips: "speed:path"
        resource = resource.partition(":")[2]
    if resource in ("<producer>", "<tractor>", "<playlist>"):
        return None
    return resource


def source_label(producer: ET.Element | None) -> str:
    """How a clip's source is named in observations and checkpoints: a path, ``color:VALUE`` or ``title:TEXT``."""
    if producer is None:
        return "(missing producer)"
    if is_title(producer) and not prop(producer, "resource"):
        return "title:" + " / ".join(title_texts(producer))
    file = producer_file(producer)
    if file is not None:
        return file
    resource = prop(producer, "resource") or ""
    if ":" in resource:
        return resource
    service = producer_service(producer) or "color"
    return f"{service}:{kdenlive_color(resource) if service in ('color', 'colour') else resource}"


# Kdenlive's colour clip dialog writes 0xRRGGBBAA; tasks name colours as ASIL writes them (a name or #rrggbb)
_KDENLIVE_COLOR = re.compile(r"^0x([0-9a-fA-F]{6})([0-9a-fA-F]{2})$")
COLOR_NAMES = {"000000": "black", "ffffff": "white", "ff0000": "red", "008000": "green", "0000ff": "blue",
               "ffff00": "yellow", "808080": "gray"}


def kdenlive_color(value: str) -> str:
    """A colour as tasks name it: Kdenlive's opaque ``0x000000ff`` is ``black`` (the basic CSS names) or
    ``#rrggbb``, a translucent one ``#rrggbbaa``; every other spelling is kept as written."""
    match = _KDENLIVE_COLOR.match(value)
    if match is None:
        return value
    rgb, alpha = match[1].lower(), match[2].lower()
    if alpha != "ff":
        return f"#{rgb}{alpha}"
    return COLOR_NAMES.get(rgb, f"#{rgb}")


def outside_files(producers: list[ET.Element], workspace: Workspace, project_dir: Path) -> list[str]:
    """Resources melt must not read: outside the workspace, missing, or nested projects."""
    problems = []
    for producer in producers:
        file = producer_file(producer)
        if file is None:
            continue
        if producer_service(producer) in ("xml", "consumer") or file.lower().endswith(NESTED_SUFFIXES):
            problems.append(f"{file} (a nested project)")
            continue
        path = Path(file) if os.path.isabs(file) else project_dir / file
        full = path.resolve()
        if full != workspace.root and workspace.root not in full.parents:
            problems.append(f"{file} (outside the workspace)")
        elif not full.is_file():
            problems.append(f"{file} (missing)")
    return problems


MEDIA_SUFFIXES = (".mp4", ".mkv", ".mov", ".webm", ".avi", ".mpg", ".ogv", ".wav", ".mp3", ".ogg", ".flac",
                  ".m4a", *IMAGE_SUFFIXES)


def media_beside(folder: Path, workspace: Workspace, limit: int = 50) -> list[str]:
    """Workspace paths of media files in the project's folder (not its subfolders), so agents know the sources."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.is_file() and not entry.name.startswith(".")
                       and entry.name.lower().endswith(MEDIA_SUFFIXES))
    except OSError:
        return []
    found = []
    for name in names[:limit]:
        try:
            found.append(workspace.relative(folder / name))
        except ValueError:  # a symlink out of the workspace: not a usable source
            continue
    return found
