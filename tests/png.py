"""A minimal PNG reader (standard library only) for checking screenshots: 8-bit RGB/RGBA, not interlaced."""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from pathlib import Path


def size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes)."""
    data = path.read_bytes()
    pos, idat = 8, b""
    header: tuple[int, ...] = ()
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, "unsupported PNG layout"
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        previous = line
        rows.append(bytes(line[i] for i in range(stride) if channels == 3 or i % 4 != 3))
    return width, height, rows


def colour_counts(path: Path, colours: list[str]) -> Counter[str]:
    """How many pixels have exactly each of the given #rrggbb colours."""
    wanted = {bytes.fromhex(c.lstrip("#")): c for c in colours}
    counts: Counter[str] = Counter()
    _, _, rows = pixels(path)
    for row in rows:
        for x in range(0, len(row), 3):
            hit = wanted.get(row[x:x + 3])
            if hit:
                counts[hit] += 1
    return counts
