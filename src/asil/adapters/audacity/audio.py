"""WAV files in plain Python: reading samples, levels (peak/RMS in dBFS), pitch, label files,
synthesis for task set-up, and a waveform PNG. Nothing here talks to Audacity.
"""

from __future__ import annotations

import math
import random
import struct
import wave
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FLOOR_DB = -200.0  # the level of digital silence (log of zero), so comparisons stay finite


class AudioUnreadable(Exception):
    """The file is not a WAV file this reader understands."""


@dataclass
class Audio:
    rate: int
    channels: int
    samples: list[float]  # mono mix-down, -1..1

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate if self.rate else 0.0

    def window(self, start: float | None, end: float | None) -> list[float]:
        first = 0 if start is None else max(0, int(round(start * self.rate)))
        last = len(self.samples) if end is None else min(len(self.samples), int(round(end * self.rate)))
        return self.samples[first:last]


def read_wav(path: Path) -> Audio:
    """Read a PCM WAV (8/16/24/32-bit integer) as a mono mix-down."""
    try:
        with wave.open(str(path), "rb") as handle:
            rate, channels, width = handle.getframerate(), handle.getnchannels(), handle.getsampwidth()
            raw = handle.readframes(handle.getnframes())
    except (wave.Error, EOFError, OSError) as exc:
        raise AudioUnreadable(f"{path.name} is not a readable PCM WAV file ({exc})") from None
    values = _decode(raw, width)
    if channels > 1:
        values = [sum(values[i:i + channels]) / channels for i in range(0, len(values) - channels + 1, channels)]
    return Audio(rate, channels, values)


def _decode(raw: bytes, width: int) -> list[float]:
    if width == 1:
        return [(b - 128) / 128.0 for b in raw]
    if width == 2:
        data = array("h")
        data.frombytes(raw[: len(raw) // 2 * 2])
        return [v / 32768.0 for v in data]
    if width == 3:
        return [int.from_bytes(raw[i:i + 3], "little", signed=True) / 8388608.0 for i in range(0, len(raw) - 2, 3)]
    if width == 4:
        data = array("i")
        data.frombytes(raw[: len(raw) // 4 * 4])
        return [v / 2147483648.0 for v in data]
    raise AudioUnreadable(f"unsupported sample width {width}")


def to_db(value: float) -> float:
    return max(FLOOR_DB, 20 * math.log10(value)) if value > 0 else FLOOR_DB


def peak_db(samples: list[float]) -> float:
    return to_db(max((abs(s) for s in samples), default=0.0))


def rms_db(samples: list[float]) -> float:
    if not samples:
        return FLOOR_DB
    return to_db(math.sqrt(sum(s * s for s in samples) / len(samples)))


def frequency(samples: list[float], rate: int) -> float:
    """The dominant frequency (Hz) from upward zero crossings; 0 for silence."""
    crossings = [i for i in range(1, len(samples)) if samples[i - 1] < 0 <= samples[i]]
    if len(crossings) < 2:
        return 0.0
    return (len(crossings) - 1) * rate / (crossings[-1] - crossings[0])


def parse_range(target: str) -> tuple[str, float | None, float | None]:
    """``'song.wav'`` or ``'song.wav@1.5-2.0'`` → (path, start, end)."""
    path, _, span = target.partition("@")
    if not span:
        return path, None, None
    start, _, end = span.partition("-")
    return path, float(start), float(end)


# ---------------------------------------------------------------- labels (Audacity's text format)
def format_labels(labels: list[tuple[float, float, str]]) -> str:
    return "".join(f"{start:.6f}\t{end:.6f}\t{text}\n" for start, end, text in labels)


def read_labels(path: Path) -> list[list[Any]]:
    """[[start, end, text], ...] from a tab-separated label file (spectral lines skipped)."""
    rows: list[list[Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and not line.startswith("\\"):
            rows.append([round(float(parts[0]), 6), round(float(parts[1]), 6), parts[2] if len(parts) > 2 else ""])
    return rows


# ---------------------------------------------------------------- synthesis (task set-up)
def synthesize(spec: dict[str, Any]) -> bytes:
    """16-bit PCM WAV bytes from ``{"rate", "channels", "duration", "parts": [...]}``.

    Each part: ``{"kind": "sine"|"square"|"noise"|"click", "start", "end", "frequency", "amplitude",
    "seed"}``; parts are summed and clipped to -1..1; every channel carries the same signal.
    """
    rate, channels = int(spec.get("rate", 22050)), int(spec.get("channels", 1))
    total = int(round(float(spec["duration"]) * rate))
    signal = [0.0] * total
    for part in spec.get("parts", []):
        _add_part(signal, part, rate)
    frames = array("h", (int(max(-1.0, min(1.0, v)) * 32767) for v in signal for _ in range(channels)))
    return _wav_bytes(frames.tobytes(), rate, channels)


def _add_part(signal: list[float], part: dict[str, Any], rate: int) -> None:
    first = int(round(float(part.get("start", 0)) * rate))
    last = min(len(signal), int(round(float(part.get("end", len(signal) / rate)) * rate)))
    amplitude, kind = float(part.get("amplitude", 0.5)), part.get("kind", "sine")
    step = 2 * math.pi * float(part.get("frequency", 440)) / rate
    noise = random.Random(part.get("seed", 1))
    for i in range(first, last):
        if kind == "sine":
            signal[i] += amplitude * math.sin(step * (i - first))
        elif kind == "square":
            signal[i] += amplitude * (1.0 if math.sin(step * (i - first)) >= 0 else -1.0)
        elif kind == "noise":
            signal[i] += amplitude * noise.uniform(-1.0, 1.0)
        elif kind == "click":
            signal[i] += amplitude * (1.0 if (i - first) % 2 == 0 else -1.0)
        else:
            raise ValueError(f"unknown part kind {kind!r} (sine, square, noise, click)")


def _wav_bytes(pcm: bytes, rate: int, channels: int) -> bytes:
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1, channels, rate,
                         rate * channels * 2, channels * 2, 16, b"data", len(pcm))
    return header + pcm


# ---------------------------------------------------------------- waveform picture
def waveform_png(audio: Audio, labels: list[list[Any]], width: int = 480, height: int = 120) -> bytes:
    """A min/max waveform of the mix with label positions as red lines (RGB PNG, standard library)."""
    rows = [bytearray(b"\xf4\xf4\xf4" * width) for _ in range(height)]
    middle = height // 2
    per = max(1, len(audio.samples) // width)
    for x in range(min(width, max(1, len(audio.samples) // per))):
        chunk = audio.samples[x * per:(x + 1) * per] or [0.0]
        top = middle - int(max(chunk) * (middle - 1))
        bottom = middle - int(min(chunk) * (middle - 1))
        for y in range(max(0, top), min(height, bottom + 1)):
            rows[y][x * 3:x * 3 + 3] = b"\x32\x5a\xc8"
    duration = audio.duration or 1.0
    for start, _end, _text in labels:
        x = min(width - 1, int(float(start) / duration * width))
        for y in range(height):
            rows[y][x * 3:x * 3 + 3] = b"\xd0\x20\x20"
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + _png_chunk(b"IDAT", zlib.compress(raw, 6)) + _png_chunk(b"IEND", b""))


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
