"""Layer pixels of an XCF decoded in Python, and the image flattened as GIMP 2.10 composites it.

Tiles are 64x64, RLE (planar, per channel) or zlib (interleaved) compressed, per the XCF
specification. Only 8-bit RGB(A) and gray(A) layers are read. Flattening follows GIMP 2.10's
default for layers in *normal* mode: each visible layer, at its offsets and opacity, is put over
what lies below it with the union (Porter-Duff "over") rule, composited in linear light (GIMP
converts the 8-bit perceptual samples to linear RGB for the normal mode's composite space). A
layer group is flattened on its own first, then put over the layers below with its opacity. Other
modes and layer masks are refused (XcfError) rather than guessed. Pixels no layer covers are black and transparent.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from asil.adapters.gimp.xcf import XcfError, XcfImage, XcfLayer

TILE = 64
EIGHT_BIT = (0, 100, 150)  # GimpPrecision values of 8-bit integer samples (0 in XCF versions 4-6)
NORMAL_MODES = ("normal", "normal-legacy", "pass-through")
MAX_PIXELS = 16_000_000
TO_LINEAR = [(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in range(256)]


def to_srgb(linear: float) -> int:
    value = 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return min(255, max(0, round(value * 255)))


@dataclass
class Rgba:
    """Straight-alpha RGBA samples (0..255), row-major, ``width * height * 4`` of them."""

    width: int
    height: int
    samples: bytes


class _Pointers:
    def __init__(self, image: XcfImage):
        self.data, self.size = image.data, image.pointer_size

    def u32(self, at: int) -> int:
        return int(struct.unpack_from(">I", self.data, at)[0])

    def pointer(self, at: int) -> int:
        return int(struct.unpack_from(">Q" if self.size == 8 else ">I", self.data, at)[0])


def layer_pixels(image: XcfImage, layer: XcfLayer) -> Rgba:
    """The layer's own pixels as straight RGBA (gray is spread to R, G and B; no alpha means opaque)."""
    if layer.group or not layer.hierarchy:
        raise XcfError(f"the layer group {layer.name!r} has no pixels of its own")
    if image.precision not in EIGHT_BIT:
        raise XcfError("only 8-bit XCF images are read (this one has a higher precision)")
    if not 0 < layer.width * layer.height <= MAX_PIXELS:
        raise XcfError(f"the layer {layer.name!r} has an implausible size")
    at = _Pointers(image)
    try:
        width, height, bpp = at.u32(layer.hierarchy), at.u32(layer.hierarchy + 4), at.u32(layer.hierarchy + 8)
        level = at.pointer(layer.hierarchy + 12)
        if (width, height) != (layer.width, layer.height) or bpp not in (1, 2, 3, 4):
            raise XcfError(f"the layer {layer.name!r} has pixel data this reader does not understand")
        planes = _tiles(image, at, level + 8, width, height, bpp)
    except (struct.error, IndexError, zlib.error):
        raise XcfError(f"the pixels of layer {layer.name!r} are cut short or damaged") from None
    return Rgba(width, height, _to_rgba(planes, bpp))


def _tiles(image: XcfImage, at: _Pointers, first: int, width: int, height: int, bpp: int) -> bytearray:
    """The layer's interleaved samples (bpp per pixel), tile by tile left to right, top to bottom."""
    out = bytearray(width * height * bpp)
    columns, rows = -(-width // TILE), -(-height // TILE)
    pointers = [at.pointer(first + i * at.size) for i in range(columns * rows + 1)]
    for index in range(columns * rows):
        left, top = index % columns * TILE, index // columns * TILE
        w, h = min(TILE, width - left), min(TILE, height - top)
        start, end = pointers[index], pointers[index + 1] or len(image.data)
        tile = _tile(image.data[start:end], image.compression, w * h, bpp)
        for row in range(h):
            begin = ((top + row) * width + left) * bpp
            out[begin:begin + w * bpp] = tile[row * w * bpp:(row + 1) * w * bpp]
    return out


def _tile(chunk: bytes, compression: int, count: int, bpp: int) -> bytes:
    if compression == 0:
        return chunk[:count * bpp]
    if compression == 2:
        return zlib.decompress(chunk)[:count * bpp]
    if compression != 1:
        raise XcfError(f"unknown XCF tile compression {compression}")
    planes, pos = [], 0
    for _ in range(bpp):
        plane, pos = _rle_plane(chunk, pos, count)
        planes.append(plane)
    interleaved = bytearray(count * bpp)
    for channel, plane in enumerate(planes):
        interleaved[channel::bpp] = plane
    return bytes(interleaved)


def _rle_plane(chunk: bytes, pos: int, count: int) -> tuple[bytes, int]:
    """One channel of an RLE tile: 0..126 short run, 127 long run, 128 long literal, 129..255 short literal."""
    out = bytearray()
    while len(out) < count:
        n = chunk[pos]
        pos += 1
        if n <= 127:
            length = n + 1
            if n == 127:
                length, pos = chunk[pos] * 256 + chunk[pos + 1], pos + 2
            out += bytes([chunk[pos]]) * length
            pos += 1
        else:
            length = 256 - n
            if n == 128:
                length, pos = chunk[pos] * 256 + chunk[pos + 1], pos + 2
            out += chunk[pos:pos + length]
            pos += length
    if len(out) != count:
        raise XcfError("an RLE tile overruns its size")
    return bytes(out), pos


def _to_rgba(samples: bytearray, bpp: int) -> bytes:
    pixels = len(samples) // bpp
    if bpp == 4:
        return bytes(samples)
    out = bytearray(b"\xff" * (pixels * 4))
    if bpp == 3:
        for channel in range(3):
            out[channel::4] = samples[channel::3]
    else:  # gray, gray + alpha
        for channel in range(3):
            out[channel::4] = samples[0::bpp]
        if bpp == 2:
            out[3::4] = samples[1::2]
    return bytes(out)


def layer_color(image: XcfImage, layer: XcfLayer) -> list[float] | None:
    """Mean R, G, B of the layer's pixels weighted by alpha (its fill color when flat); None when all transparent."""
    rgba = layer_pixels(image, layer).samples
    alpha = rgba[3::4]
    total = sum(alpha)
    if total == 0:
        return None
    return [round(sum(v * a for v, a in zip(rgba[channel::4], alpha, strict=True)) / total, 3) for channel in range(3)]


def flatten(image: XcfImage) -> Rgba:
    """The composite of the visible layers on the canvas, as GIMP shows (and exports) it."""
    if not 0 < image.width * image.height <= MAX_PIXELS:
        raise XcfError("the canvas has an implausible size")
    top_level = [layer for layer in image.layers if layer.parent is None]
    linear, alpha = _composite(image, top_level)
    out = bytearray(image.width * image.height * 4)
    for index, a in enumerate(alpha):
        if a > 0:
            base = index * 4
            out[base:base + 3] = bytes(to_srgb(linear[c][index] / a) for c in range(3))
            out[base + 3] = min(255, round(a * 255))
    return Rgba(image.width, image.height, bytes(out))


def _composite(image: XcfImage, siblings: list[XcfLayer]) -> tuple[list[list[float]], list[float]]:
    """Premultiplied linear R, G, B and alpha of ``siblings`` (top first) over transparency, canvas-sized."""
    count = image.width * image.height
    color, alpha = [[0.0] * count for _ in range(3)], [0.0] * count
    for layer in reversed(siblings):  # bottom first
        if not layer.visible or layer.opacity <= 0:
            continue
        if layer.mode not in NORMAL_MODES:
            raise XcfError(f"the layer {layer.name!r} uses the {layer.mode!r} mode; only normal layers are flattened")
        if layer.masked:
            raise XcfError(f"the layer {layer.name!r} has a layer mask, which this flattening does not apply")
        opacity = layer.opacity / 100
        if layer.group:
            children = [child for child in image.layers if child.parent == layer.name]
            source, source_alpha = _composite(image, children)
            _over(color, alpha, source, source_alpha, opacity, range(count))
        else:
            _put_layer(image, layer, color, alpha, opacity)
    return color, alpha


def _over(color: list[list[float]], alpha: list[float], source: list[list[float]], source_alpha: list[float],
          opacity: float, pixels: range) -> None:
    for i in pixels:
        a = source_alpha[i] * opacity
        if a > 0:
            keep = 1 - a
            for c in range(3):
                color[c][i] = source[c][i] * opacity + color[c][i] * keep
            alpha[i] = a + alpha[i] * keep


def _put_layer(image: XcfImage, layer: XcfLayer, color: list[list[float]], alpha: list[float], opacity: float) -> None:
    rgba = layer_pixels(image, layer).samples
    x0, y0 = max(0, layer.offset_x), max(0, layer.offset_y)
    x1, y1 = min(image.width, layer.offset_x + layer.width), min(image.height, layer.offset_y + layer.height)
    for y in range(y0, y1):
        row = (y - layer.offset_y) * layer.width - layer.offset_x
        for x in range(x0, x1):
            source = (row + x) * 4
            a = rgba[source + 3] / 255 * opacity
            if a <= 0:
                continue
            i, keep = y * image.width + x, 1 - a
            for c in range(3):
                color[c][i] = TO_LINEAR[rgba[source + c]] * a + color[c][i] * keep
            alpha[i] = a + alpha[i] * keep
