"""The raw validator's own pixel path: ffmpeg decodes PNG/JPEG, and its own arithmetic measures them.

The checkpoints decode with Pillow and measure with ``imagemath``; nothing here is shared with
them, so a bug in either path shows up as a disagreement in tests/test_tasks.py. The sizes come
from the files' own headers (PNG IHDR, JPEG start-of-frame) and must match what ffmpeg decodes.
Statistics use running sums (sum, sum of squares, cross products) rather than two passes.
"""

from __future__ import annotations

import math
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DECODE_TIMEOUT_S = 30.0
MAX_PIXELS = 64_000_000
TARGET = re.compile(r"^(mean|min|max|std|edge|chroma)(?::(red|green|blue))?(?:@(\d+),(\d+),(\d+),(\d+))?$")
CHANNEL = {"red": 0, "green": 1, "blue": 2}
BLOCK = 8
K1, K2 = 0.01, 0.03  # the usual SSIM constants, for 8-bit samples


class RawImageError(Exception):
    """The file cannot be read with certainty."""


@dataclass(frozen=True)
class Pixels:
    """An 8-bit RGB image: ``rgb`` holds width * height * 3 samples, row-major."""

    width: int
    height: int
    rgb: bytes

    def samples(self, channel: int, x: int, y: int, w: int, h: int) -> list[int]:
        row = self.width * 3
        return [value for top in range(y, y + h)
                for value in self.rgb[top * row + x * 3 + channel:top * row + (x + w) * 3:3]]


def header_size(path: Path) -> tuple[str, int, int]:
    """('PNG' or 'JPEG', width, height) from the file's own header."""
    data = path.read_bytes()
    if data.startswith(PNG_MAGIC) and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return "PNG", width, height
    if data.startswith(b"\xff\xd8\xff"):
        return ("JPEG", *_jpeg_frame(data))
    raise RawImageError("neither PNG nor JPEG")


def _jpeg_frame(data: bytes) -> tuple[int, int]:
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            raise RawImageError("bad JPEG marker")
        marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return width, height
        pos += 2 + length
    raise RawImageError("no JPEG frame header")


def decode(path: Path) -> Pixels:
    """The image's RGB samples as ffmpeg decodes them (alpha dropped, not composited)."""
    _, width, height = header_size(path)
    if not 0 < width * height <= MAX_PIXELS:
        raise RawImageError("implausible image size")
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RawImageError("ffmpeg is not installed")
    done = subprocess.run([ffmpeg, "-v", "error", "-nostdin", "-i", str(path), "-frames:v", "1",
                           "-sws_flags", "accurate_rnd+full_chroma_int", "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                          capture_output=True, timeout=DECODE_TIMEOUT_S, check=False)
    if done.returncode != 0 or len(done.stdout) != width * height * 4:
        raise RawImageError("ffmpeg could not decode the image at its header's size")
    rgba = done.stdout
    rgb = bytearray(width * height * 3)
    for k in range(3):
        rgb[k::3] = rgba[k::4]
    return Pixels(width, height, bytes(rgb))


def statistic(image: Pixels, target: str) -> float | list[float]:
    """``stat[:channel][@x,y,w,h]``: the same statistics the checkpoints define, computed afresh."""
    match = TARGET.match(target)
    if match is None:
        raise RawImageError(f"unreadable statistic {target!r}")
    stat, channel = match.group(1), match.group(2)
    x, y, w, h = [int(v) for v in match.groups()[2:]] if match.group(3) else [0, 0, image.width, image.height]
    if w < 1 or h < 1 or x + w > image.width or y + h > image.height:
        raise RawImageError("region outside the image")
    planes = [image.samples(k, x, y, w, h) for k in range(3)]
    if stat == "chroma":
        red, green, blue = planes
        spread = sum(max(r, g, b) - min(r, g, b) for r, g, b in zip(red, green, blue, strict=True))
        return round(spread / (w * h), 3)
    values = [_plane_statistic(stat, plane, w) for plane in planes]
    return values[CHANNEL[channel]] if channel else values


def _plane_statistic(stat: str, plane: list[int], width: int) -> float:
    if stat == "min":
        return float(min(plane))
    if stat == "max":
        return float(max(plane))
    if stat == "edge":
        return float(max((abs(plane[i + 1] - plane[i]) for i in range(len(plane) - 1) if (i + 1) % width),
                         default=0))
    count, total, squares = len(plane), sum(plane), sum(v * v for v in plane)
    if stat == "mean":
        return round(total / count, 3)
    return round(math.sqrt(max(0.0, squares / count - (total / count) ** 2)), 3)


def structural_similarity(first: Pixels, second: Pixels) -> float:
    """Mean SSIM over whole 8x8 tiles (one tile when the image is smaller) and the three channels."""
    if (first.width, first.height) != (second.width, second.height):
        return 0.0
    tile_w, tile_h = min(BLOCK, first.width), min(BLOCK, first.height)
    scores = []
    for channel in range(3):
        for y in range(0, first.height - tile_h + 1, tile_h):
            for x in range(0, first.width - tile_w + 1, tile_w):
                scores.append(_tile(first.samples(channel, x, y, tile_w, tile_h),
                                    second.samples(channel, x, y, tile_w, tile_h)))
    return round(sum(scores) / len(scores), 4)


def _tile(a: list[int], b: list[int]) -> float:
    n = len(a)
    sa, sb = sum(a), sum(b)
    saa, sbb, sab = sum(v * v for v in a), sum(v * v for v in b), sum(p * q for p, q in zip(a, b, strict=True))
    ma, mb = sa / n, sb / n
    va, vb, cov = saa / n - ma * ma, sbb / n - mb * mb, sab / n - ma * mb
    c1, c2 = (K1 * 255) ** 2, (K2 * 255) ** 2
    return (2 * ma * mb + c1) * (2 * cov + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
