"""The independent raw validator for Audacity tasks: a second reader beside the checkpoint readers.

It walks the RIFF chunks itself with ``struct`` (no ``wave`` module, no code shared with
``audio.py``), decodes the samples with ``struct.iter_unpack``, and does the level arithmetic
again here. Label files are split by hand. Tracks of a saved .aup3 are read by a real Audacity that opens
the file again (``validator_project.py``). Anything unreadable is a failed checkpoint (fail closed).
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

from asil.adapters.audacity.validator_project import project_value
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

SILENCE_DB = -200.0
FORMATS = {1: "<b", 2: "<h", 4: "<i"}  # little-endian signed PCM by sample width (8-bit is unsigned)


class RawAudioError(Exception):
    """The file cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the saved files; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawAudioError, KeyError, ValueError, TypeError, IndexError, OSError, struct.error, UnicodeDecodeError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _pcm(path: Path) -> tuple[int, int, list[float]]:
    """(rate, channels, mono samples) from a PCM RIFF/WAVE file."""
    data = path.read_bytes()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise RawAudioError("not a RIFF/WAVE file")
    pos, fmt, body = 12, None, None
    while pos + 8 <= len(data):
        kind, size = struct.unpack_from("<4sI", data, pos)
        chunk = data[pos + 8:pos + 8 + size]
        if kind == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", chunk)
        elif kind == b"data":
            body = chunk
        pos += 8 + size + (size & 1)
    if fmt is None or body is None:
        raise RawAudioError("no fmt or data chunk")
    tag, channels, rate, _rate_bytes, _align, bits = fmt
    width = bits // 8
    if tag not in (1, 0xFFFE) or channels < 1:
        raise RawAudioError("not integer PCM")
    if width == 3:
        ints = [int.from_bytes(body[i:i + 3], "little", signed=True) for i in range(0, len(body) - 2, 3)]
    elif width == 1:
        ints = [b - 128 for b in body]
    else:
        ints = [v[0] for v in struct.iter_unpack(FORMATS[width], body[: len(body) // width * width])]
    scale = float(1 << (8 * width - 1))
    frames = len(ints) // channels
    mono = [sum(ints[f * channels:(f + 1) * channels]) / channels / scale for f in range(frames)]
    return rate, channels, mono


def _window(target: str, workspace: Workspace) -> tuple[int, int, list[float], list[float]]:
    name, at, span = target.partition("@")
    rate, channels, mono = _pcm(Path(workspace.root, name))
    if not at:
        return rate, channels, mono, mono
    low, high = (float(x) for x in span.split("-", 1))
    part = mono[max(0, int(round(low * rate))):min(len(mono), int(round(high * rate)))]
    if not part:
        raise RawAudioError("empty window")
    return rate, channels, mono, part


def _db(level: float) -> float:
    return SILENCE_DB if level <= 0 else max(SILENCE_DB, 20.0 * math.log10(level))


def _zero_cross_hz(values: list[float], rate: int) -> float:
    ups = [i for i, (a, b) in enumerate(zip(values, values[1:], strict=False), start=1) if a < 0 <= b]
    return 0.0 if len(ups) < 2 else (len(ups) - 1) * rate / (ups[-1] - ups[0])


def _labels(path: Path) -> list[list[Any]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if not line.strip() or line.startswith("\\"):
            continue
        cells = line.rstrip("\r").split("\t")
        rows.append([round(float(cells[0]), 6), round(float(cells[1]), 6), cells[2] if len(cells) > 2 else ""])
    return rows


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    if cp.type.startswith("audacity_"):  # tracks of a saved .aup3, read through a real Audacity
        return project_value(cp, workspace)
    target = str(cp.target)
    if cp.type == "audio_labels":
        return _labels(Path(workspace.root, target))
    if cp.type == "audio_label_texts":
        return [row[2] for row in _labels(Path(workspace.root, target))]
    rate, channels, mono, part = _window(target, workspace)
    if cp.type == "audio_duration":
        return len(mono) / rate
    if cp.type == "audio_channels":
        return channels
    if cp.type == "audio_peak_db":
        return _db(max(abs(v) for v in part))
    if cp.type == "audio_rms_db":
        return _db(math.sqrt(math.fsum(v * v for v in part) / len(part)))
    if cp.type == "audio_frequency":
        return _zero_cross_hz(part, rate)
    raise RawAudioError(f"unknown checkpoint type {cp.type!r}")
