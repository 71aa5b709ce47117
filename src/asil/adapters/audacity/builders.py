"""Task set-up: WAV files synthesised from a spec (pure Python), label files, and .aup3 projects that a real
Audacity builds and saves; all cached by content."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.audacity.audio import format_labels, synthesize
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, cached_build
from asil.workspace import atomic_write


def build_audio(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``{"rate", "channels", "duration", "parts": [{"kind", "start", "end", "frequency", ...}]}``."""
    if not isinstance(item.content, dict) or "duration" not in item.content:
        raise SetupError(f"Task {task.id}: audio {item.path!r} needs content with a duration and parts.")

    def write_wav(path: Path, spec: Any) -> None:
        try:
            data = synthesize(spec)
        except (ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"Task {task.id}: audio {item.path!r}: {exc}.") from None
        atomic_write(path, data)

    shutil.copyfile(cached_build(item, task, "audio", ".wav", write_wav), target)


def build_labels(item: SetupFile, task: Task, target: Path) -> None:
    """``content``: ``[[start, end, text], ...]`` written in Audacity's label text format."""
    if not isinstance(item.content, list):
        raise SetupError(f"Task {task.id}: labels {item.path!r} need content: a list of [start, end, text].")
    atomic_write(target, format_labels([(float(s), float(e), str(t)) for s, e, t in item.content]).encode("utf-8"))


def build_project(item: SetupFile, task: Task, target: Path) -> None:
    """An .aup3 that Audacity itself builds and saves, cached by content.

    ``content``: ``{"tracks": [{"name", "audio": <audio spec>, "gain_db", "pan", "mute", "solo"}, ...],
    "label_tracks": [{"name", "labels": [[start, end, text], ...]}, ...]}``. Audio tracks come first, in
    order, then the label tracks; settings left out stay at Audacity's defaults.
    """
    def write_project(path: Path, spec: Any) -> None:
        try:
            make_project(spec, path)
        except (ValueError, KeyError, TypeError) as exc:
            raise SetupError(f"Task {task.id}: project {item.path!r}: {exc}.") from None

    shutil.copyfile(cached_build(item, task, "audacity-projects", ".aup3", write_project), target)


def make_project(spec: dict[str, Any], path: Path) -> None:
    """Have a fresh Audacity import the tracks, apply their settings and labels, and save ``path`` (SaveCopy)."""
    from asil.adapters.audacity.project import number, quote
    from asil.apps.audacity import AudacitySession
    from asil.workspace import cache_dir

    tracks, label_tracks = list(spec.get("tracks", [])), list(spec.get("label_tracks", []))
    if not tracks:
        raise ValueError("a project needs at least one audio track")
    folder = Path(tempfile.mkdtemp(prefix="asil-aup3-build-"))
    session = AudacitySession([folder], cache_dir())
    try:
        for index, track in enumerate(tracks):
            wav = folder / f"track{index}.wav"
            atomic_write(wav, synthesize(track["audio"]))
            session.command(f"Import2: Filename={quote(str(wav))}")
            session.command(f"Select: Start=0 End=0 Track={index} TrackCount=1 Mode=Set")
            session.command(f"SetTrack: {' '.join(_track_settings(track))}")
        for offset, labels in enumerate(label_tracks):
            index = len(tracks) + offset
            session.command("NewLabelTrack")
            session.command(f"Select: Start=0 End=0 Track={index} TrackCount=1 Mode=Set")
            session.command(f"SetTrack: Name={quote(_name(labels['name']))}")
            for start, end, text in labels["labels"]:
                session.command(f"Select: Start={number(start)} End={number(end)} Track={index} TrackCount=1 Mode=Set")
                session.command("AddLabel")
                fresh = _unnamed_label(session.command("GetInfo: Type=Labels Format=JSON"))
                session.command(f"SetLabel: Label={fresh} Text={quote(_name(text))} Start={number(start)} "
                                f"End={number(end)}")
        saved = folder / "project.aup3"
        session.command(f"SaveCopy: Filename={quote(str(saved))}")
        atomic_write(path, saved.read_bytes())
    finally:
        session.kill()
        shutil.rmtree(folder, ignore_errors=True)


def _name(text: str) -> str:
    if not text or any(c in text for c in '"\\') or any(c < " " for c in text):
        raise ValueError(f"{text!r} is empty or holds a quote, backslash or control character")
    return text


def _track_settings(track: dict[str, Any]) -> list[str]:
    from asil.adapters.audacity.project import number, quote

    parts = [f"Name={quote(_name(str(track['name'])))}"]
    if "gain_db" in track:
        parts.append(f"Gain={number(float(track['gain_db']))}")
    if "pan" in track:
        parts.append(f"Pan={number(float(track['pan']) * 100)}")  # SetTrack takes pan in percent
    parts += [f"{key.title()}={int(bool(track[key]))}" for key in ("mute", "solo") if key in track]
    return parts


def _unnamed_label(reply: str) -> int:
    """The SetLabel index of the label AddLabel just made (the only one without text)."""
    flat = [row for _track, rows in json.loads(reply or "[]") for row in rows]
    found = [i for i, row in enumerate(flat) if row[2] == ""]
    if len(found) != 1:
        raise ValueError("labels need a text")
    return found[0]
