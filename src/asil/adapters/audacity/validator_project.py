"""The raw validator's reading of a saved .aup3: the real Audacity opens it again and reports its tracks.

The checkpoints decode the file's SQLite tables and binary XML in Python (``aup3.py``); this reader
shares none of that. It copies the project to a scratch folder (Audacity writes into a project it
opens), has a fresh Audacity open the copy with ``OpenProject2`` and reads ``GetInfo`` Tracks, Clips
and Labels. So it also proves the saved project reopens with its tracks. One Audacity per distinct
file version, remembered for the process (an evaluation asks several checkpoints of one file).
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.evaluate.checkpoints import Checkpoint
from asil.workspace import Workspace

_SEEN: dict[tuple[str, int, int], list[dict[str, Any]]] = {}


def reopened_tracks(path: Path) -> list[dict[str, Any]]:
    """Tracks of the project at ``path`` as a freshly started Audacity reports them after opening it."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _SEEN:
        _SEEN[key] = _ask_audacity(path)
    return _SEEN[key]


def _ask_audacity(path: Path) -> list[dict[str, Any]]:
    from asil.apps.audacity import AudacitySession, CommandFailed
    from asil.workspace import cache_dir

    folder = Path(tempfile.mkdtemp(prefix="asil-aup3-check-"))
    copy = folder / "check.aup3"
    shutil.copyfile(path, copy)
    session = AudacitySession([folder], cache_dir())
    try:
        session.command(f'OpenProject2: Filename="{copy}" AddToHistory=0')
        tracks = json.loads(session.command("GetInfo: Type=Tracks Format=JSON") or "[]")
        clips = json.loads(session.command("GetInfo: Type=Clips Format=JSON") or "[]") if tracks else []
        labels = json.loads(session.command("GetInfo: Type=Labels Format=JSON") or "[]") if tracks else []
    except CommandFailed as exc:  # Audacity could not open it: no verdict can pass
        raise ValueError(f"Audacity could not open {path.name}: {exc.text}") from None
    finally:
        session.kill()
        shutil.rmtree(folder, ignore_errors=True)
    for index, track in enumerate(tracks):
        track["clips"] = sorted([c["start"], c["end"]] for c in clips if c["track"] == index)
        track["labels"] = sorted(list(row) for owner, rows in labels if owner == index for row in rows)
    return list(tracks)


def _field(track: dict[str, Any], wanted: str) -> Any:
    if track.get("kind") != "wave" and wanted not in ("kind",):
        raise KeyError(wanted)
    if wanted == "gain_db":
        return 20 * math.log10(track["gain"]) if track["gain"] > 0 else -200.0
    if wanted in ("mute", "solo"):
        return bool(track[wanted])
    return track[wanted]


def project_value(cp: Checkpoint, workspace: Workspace) -> Any:
    """The value an ``audacity_*`` checkpoint names, read through a real Audacity."""
    tracks = reopened_tracks(Path(workspace.root, str(cp.document)))
    if cp.type == "audacity_tracks":
        return [t["name"] for t in tracks]
    if cp.type == "audacity_project_labels":
        chosen = [t for t in tracks if t.get("kind") == "label" and cp.target in (None, t["name"])]
        if cp.target is not None and not chosen:
            raise KeyError(cp.target)
        return sorted(label for t in chosen for label in t["labels"])
    if cp.type == "audacity_track":
        name, _, wanted = str(cp.target).rpartition(":")
        (track,) = [t for t in tracks if t["name"] == name]  # ValueError unless exactly one
        return _field(track, wanted)
    raise KeyError(cp.type)
