"""Checkpoint types for audio tasks, read from the saved files (after save() and close()).

Targets name a workspace file, optionally with a time window: ``"song.wav"`` or
``"song.wav@1.0-2.0"`` (seconds). Levels are dBFS of the mono mix-down (digital silence is
-200 dB); labels come from Audacity's tab-separated label file the adapter writes on save.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.audacity.audio import Audio, AudioUnreadable, frequency, parse_range, peak_db, read_labels, read_wav, rms_db
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
