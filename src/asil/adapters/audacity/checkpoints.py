"""Checkpoint types for audio tasks, read from the saved files (after save() and close()).

Targets name a workspace file, optionally with a time window: ``"song.wav"`` or
``"song.wav@1.0-2.0"`` (seconds). Levels are dBFS of the mono mix-down (digital silence is
-200 dB); labels come from Audacity's tab-separated label file the adapter writes on save.
The ``audacity_*`` types read the tracks of a saved ``.aup3`` project (``document``) as Audacity wrote it.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.audacity.audio import Audio, AudioUnreadable, frequency, parse_range, peak_db, read_labels, read_wav, rms_db
from asil.adapters.audacity.aup3 import ProjectUnreadable, read_tracks
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require


def _audio(ctx: EvalContext, cp: Checkpoint) -> tuple[Audio, list[float]]:
    try:
        path, start, end = parse_range(require(cp.target, "target (file.wav or file.wav@start-end)"))
    except ValueError:
        raise CheckpointUnreadable(f"bad audio target {cp.target!r}") from None
    file = ctx.workspace.resolve(path)
    if not file.is_file():
        raise CheckpointUnreadable(f"{path!r} does not exist")
    try:
        audio = read_wav(file)
    except AudioUnreadable as exc:
        raise CheckpointUnreadable(str(exc)) from None
    window = audio.window(start, end)
    if not window:
        raise CheckpointUnreadable(f"{cp.target!r} selects no samples")
    return audio, window


@checkpoint_type("audio_duration", default_compare="approx")
def duration(ctx: EvalContext, cp: Checkpoint) -> float:
    """Length of the WAV at ``target`` in seconds."""
    return _audio(ctx, cp)[0].duration


@checkpoint_type("audio_channels")
def channels(ctx: EvalContext, cp: Checkpoint) -> int:
    return _audio(ctx, cp)[0].channels


@checkpoint_type("audio_peak_db", default_compare="approx")
def peak(ctx: EvalContext, cp: Checkpoint) -> float:
    """Peak level (dBFS) of the file or window."""
    return peak_db(_audio(ctx, cp)[1])


@checkpoint_type("audio_rms_db", default_compare="approx")
def rms(ctx: EvalContext, cp: Checkpoint) -> float:
    """RMS level (dBFS) of the file or window."""
    return rms_db(_audio(ctx, cp)[1])


@checkpoint_type("audio_frequency", default_compare="approx")
def dominant_frequency(ctx: EvalContext, cp: Checkpoint) -> float:
    """Dominant frequency (Hz, from zero crossings) of the file or window."""
    audio, window = _audio(ctx, cp)
    return frequency(window, audio.rate)


@checkpoint_type("audio_labels", default_compare="approx")
def labels(ctx: EvalContext, cp: Checkpoint) -> list[Any]:
    """[[start, end, text], ...] from the label file at ``target`` ([] when there is none)."""
    path = ctx.workspace.resolve(require(cp.target, "label file path"))
    if not path.is_file():
        return []
    try:
        return read_labels(path)
    except (ValueError, UnicodeDecodeError):
        raise CheckpointUnreadable(f"{cp.target!r} is not a label file") from None


@checkpoint_type("audio_label_texts", default_compare="normalized")
def label_texts(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The label texts in time order."""
    return [str(row[2]) for row in labels(ctx, cp)]


# ---------------------------------------------------------------- tracks of a saved Audacity project (.aup3)
TRACK_FIELDS = ("gain_db", "pan", "mute", "solo", "channels", "start", "end", "clips", "kind")


def _project_tracks(ctx: EvalContext, cp: Checkpoint) -> list[dict[str, Any]]:
    """The tracks of the saved project ``document`` as Audacity wrote them (its SQLite + binary XML)."""
    path = ctx.workspace.resolve(require(cp.document, "document (an .aup3 path)"))
    if not path.is_file():
        raise CheckpointUnreadable(f"{cp.document!r} does not exist")
    try:
        return read_tracks(path)[1]
    except ProjectUnreadable as exc:
        raise CheckpointUnreadable(str(exc)) from None


@checkpoint_type("audacity_track", default_compare="approx")
def project_track(ctx: EvalContext, cp: Checkpoint) -> Any:
    """One setting of one track: target ``"Track name:field"`` with field one of gain_db (dB), pan (-1..1),
    mute, solo, channels, start, end, clips ([[start, end], ...]) or kind (wave | label)."""
    name, _, wanted = require(cp.target, "target ('Track name:field')").rpartition(":")
    if wanted not in TRACK_FIELDS:
        raise CheckpointUnreadable(f"unknown track field {wanted!r}; known: {', '.join(TRACK_FIELDS)}")
    found = [t for t in _project_tracks(ctx, cp) if t["name"] == name]
    if len(found) != 1:
        raise CheckpointUnreadable(f"the project has {len(found)} tracks named {name!r}")
    if wanted not in found[0]:
        raise CheckpointUnreadable(f"{name!r} is a {found[0]['kind']} track, which has no {wanted}")
    return found[0][wanted]


@checkpoint_type("audacity_tracks", default_compare="exact")
def project_track_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The names of all tracks (audio and label) in project order."""
    return [str(t["name"]) for t in _project_tracks(ctx, cp)]


@checkpoint_type("audacity_project_labels", default_compare="approx")
def project_labels(ctx: EvalContext, cp: Checkpoint) -> list[Any]:
    """[[start, end, text], ...] of the label track named ``target``, or of all label tracks (in time
    order) when there is no target."""
    tracks = [t for t in _project_tracks(ctx, cp) if t["kind"] == "label" and cp.target in (None, t["name"])]
    if cp.target is not None and not tracks:
        raise CheckpointUnreadable(f"the project has no label track named {cp.target!r}")
    return sorted(label for t in tracks for label in t["labels"])
