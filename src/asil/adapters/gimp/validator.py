"""The independent raw validator for GIMP tasks: a second read path beside the checkpoints.

The checkpoints decode PNG/JPEG with Pillow and parse XCF structure in Python. Here instead:
PNG pixels come from a small zlib-based decoder of our own, JPEG sizes from the SOF marker,
and XCF layers from a *separate* one-shot ``gimp-console`` that loads the file and dumps it
with its own Scheme (sharing nothing with the adapter's helpers). Anything unreadable is a
failed checkpoint (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Any

from asil.adapters.gimp.imagemath import image_stat, ssim
from asil.apps.gimp import one_shot, scheme_string
from asil.apps.process import ProgramFailed
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint
from asil.evaluate.compare import compare
from asil.workspace import Workspace

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG color type -> samples per pixel
DUMP = """
(let* ((img (car (gimp-xcf-load 0 SOURCE SOURCE)))
       (port (open-output-file OUT))
       (put (lambda (x) (display x port))))
  (put "{\\"width\\":") (put (car (gimp-image-width img)))
  (put ",\\"height\\":") (put (car (gimp-image-height img)))
  (put ",\\"layers\\":[")
  (let loop ((ls (vector->list (cadr (gimp-image-get-layers img)))) (first #t))
    (if (pair? ls)
        (let* ((l (car ls)) (off (gimp-drawable-offsets l)))
          (if (not first) (put ","))
          (put "{\\"name\\":") (write (car (gimp-item-get-name l)) port)
          (put ",\\"width\\":") (put (car (gimp-drawable-width l)))
          (put ",\\"height\\":") (put (car (gimp-drawable-height l)))
          (put ",\\"offset_x\\":") (put (car off))
          (put ",\\"offset_y\\":") (put (cadr off))
          (put ",\\"opacity\\":") (put (car (gimp-layer-get-opacity l)))
          (put ",\\"visible\\":") (put (if (= 1 (car (gimp-item-get-visible l))) "true" "false"))
          (put ",\\"text\\":")
          (if (= 1 (car (gimp-item-is-text-layer l))) (write (car (gimp-text-layer-get-text l)) port) (put "null"))
          (put "}")
          (loop (cdr ls) #f))))
  (put "]}")
  (close-output-port port))
"""
_DUMPS: dict[str, dict[str, Any]] = {}


class RawImageError(Exception):
    """The file cannot be read with certainty."""


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the saved files; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawImageError, KeyError, ValueError, TypeError, IndexError, OSError, zlib.error,
            struct.error, ProgramFailed):
        return False
    default = CHECKPOINT_TYPES[cp.type].default_compare if cp.type in CHECKPOINT_TYPES else "exact"
    return compare(cp.compare or default, actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    def path(relative: str | None) -> Path:
        if not relative:
            raise RawImageError("no path")
        return Path(workspace.root, relative)

    if cp.type == "gimp_file_format":
        return sniff(path(cp.target))
    if cp.type == "gimp_image_size":
        return image_size(path(cp.target))
    if cp.type == "gimp_pixel_stats":
        return pixel_stats(path(cp.document), str(cp.target))
    if cp.type == "gimp_similarity":
        return similarity(path(cp.document), path(cp.target))
    layers = dump_xcf(path(cp.document))["layers"]
    if cp.type == "gimp_layer_names":
        return [layer["name"] for layer in layers]
    if cp.type == "gimp_layer_value":
        name, _, prop = str(cp.target).rpartition(".")
        (index,) = [i for i, layer in enumerate(layers) if layer["name"] == name]
        value = index if prop == "position" else layers[index][prop]
        return round(value, 4) if prop == "opacity" else value
    raise RawImageError(f"unknown checkpoint type {cp.type!r}")


def sniff(path: Path) -> str:
    head = path.read_bytes()[:9]
    if head.startswith(PNG_MAGIC[:8]):
        decode_png(path)
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        jpeg_size(path)
        return "JPEG"
    if head == b"gimp xcf ":
        dump_xcf(path)
        return "XCF"
    raise RawImageError("unknown format")


def image_size(path: Path) -> list[int]:
    kind = sniff(path)
    if kind == "PNG":
        width, height, _ = decode_png(path)
        return [width, height]
    if kind == "JPEG":
        return jpeg_size(path)
    data = dump_xcf(path)
    return [data["width"], data["height"]]


def pixel_stats(path: Path, target: str) -> float | list[float]:
    width, height, planes = decode_png(path)
    return image_stat(planes, width, height, target)


def similarity(path: Path, reference: Path) -> float:
    width, height, planes = decode_png(path)
    ref_width, ref_height, ref_planes = decode_png(reference)
    if (width, height) != (ref_width, ref_height):
        return 0.0
    return ssim(planes, ref_planes, width, height)


def decode_png(path: Path) -> tuple[int, int, list[list[int]]]:
    """Width, height and the R, G, B planes of an 8-bit, non-interlaced PNG."""
    data = path.read_bytes()
    if not data.startswith(PNG_MAGIC):
        raise RawImageError("not a PNG")
    pos, idat, palette = 8, b"", b""
    width = height = depth = color = interlace = -1
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    if depth != 8 or interlace != 0 or color not in CHANNELS:
        raise RawImageError("only 8-bit non-interlaced PNGs are read")
    samples = CHANNELS[color]
    raw = _unfilter(zlib.decompress(idat), width, height, samples)
    if color == 3:
        rgb = [palette[3 * i:3 * i + 3] for i in raw]
        return width, height, [[p[k] for p in rgb] for k in range(3)]
    if color in (0, 4):
        gray = list(raw[::samples])
        return width, height, [gray, gray, gray]
    return width, height, [list(raw[k::samples]) for k in range(3)]


def _unfilter(data: bytes, width: int, height: int, bpp: int) -> bytes:
    stride = width * bpp
    if len(data) < height * (stride + 1):
        raise RawImageError("truncated image data")
    out = bytearray()
    previous = bytearray(stride)
    for row in range(height):
        kind = data[row * (stride + 1)]
        line = bytearray(data[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                corner = previous[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, up, corner)) & 255
        out += line
        previous = line
    return bytes(out)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def jpeg_size(path: Path) -> list[int]:
    """[width, height] from the JPEG's start-of-frame marker."""
    data = path.read_bytes()
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            raise RawImageError("bad JPEG marker")
        marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return [width, height]
        pos += 2 + length
    raise RawImageError("no JPEG frame header")


def dump_xcf(path: Path) -> dict[str, Any]:
    """The XCF's canvas and layers as loaded by a fresh GIMP (cached by file content)."""
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if key not in _DUMPS:
        with tempfile.TemporaryDirectory(prefix="asil-gimp-raw-") as scratch:
            out = Path(scratch) / "dump.json"
            script = DUMP.replace("SOURCE", scheme_string(str(path))).replace("OUT", scheme_string(str(out)))
            one_shot(script, timeout_s=60)
            if not out.is_file():
                raise RawImageError("GIMP did not load the file")
            _DUMPS[key] = json.loads(out.read_text(encoding="utf-8"))
    return _DUMPS[key]
