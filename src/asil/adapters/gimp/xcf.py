"""Reading an XCF file's structure in Python: canvas size, mode and each layer's properties.

The header, the property lists and the layer headers are read here; a layer's pixel tiles are
decoded only on demand (``asil.adapters.gimp.xcfpixels``). Layout per the XCF specification
(devel-docs/xcf.txt in GIMP's source): pointers are 64-bit from version 11 on.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

PROP_END, PROP_OPACITY, PROP_MODE, PROP_VISIBLE, PROP_OFFSETS = 0, 6, 7, 8, 15
PROP_COMPRESSION, PROP_PARASITES, PROP_TEXT_LAYER_FLAGS = 17, 21, 26
PROP_FLOAT_OPACITY, PROP_GROUP_ITEM, PROP_ITEM_PATH = 33, 29, 30
TEXT_MODIFIED = 2  # GIMP_TEXT_LAYER_XCF_MODIFIED: the pixels were changed by other tools (a scale, a paint)
MAX_LAYERS = 10_000
# GimpLayerMode (GIMP 2.10's enum, its numbers as stored in PROP_MODE); legacy modes are those of GIMP 2.8.
LAYER_MODES = dict(enumerate((
    "normal-legacy", "dissolve", "behind-legacy", "multiply-legacy", "screen-legacy", "overlay-legacy",
    "difference-legacy", "addition-legacy", "subtract-legacy", "darken-only-legacy", "lighten-only-legacy",
    "hsv-hue-legacy", "hsv-saturation-legacy", "hsl-color-legacy", "hsv-value-legacy", "divide-legacy",
    "dodge-legacy", "burn-legacy", "hardlight-legacy", "softlight-legacy", "grain-extract-legacy",
    "grain-merge-legacy", "color-erase-legacy", "overlay", "lch-hue", "lch-chroma", "lch-color", "lch-lightness",
    "normal", "behind", "multiply", "screen", "difference", "addition", "subtract", "darken-only", "lighten-only",
    "hsv-hue", "hsv-saturation", "hsl-color", "hsv-value", "divide", "dodge", "burn", "hardlight", "softlight",
    "grain-extract", "grain-merge", "vivid-light", "pin-light", "linear-light", "hard-mix", "exclusion",
    "linear-burn", "luma-darken-only", "luma-lighten-only", "luminance", "color-erase", "erase", "merge", "split",
    "pass-through")))


class XcfError(ValueError):
    """The file is not an XCF this reader understands (or it is cut short)."""


@dataclass
class XcfLayer:
    name: str
    width: int
    height: int
    offset_x: int = 0
    offset_y: int = 0
    opacity: float = 100.0
    visible: bool = True
    group: bool = False
    text: str | None = None
    parent: str | None = None  # the name of the layer group holding it; None at the top level
    position: int = 0  # its index among its siblings, 0 = top
    path: tuple[int, ...] = ()  # indices from the top level down (XCF's item path)
    mode: str = "normal"
    font: str | None = None  # a text layer's font, size (in its unit) and color; None on other layers
    font_size: float | None = None
    font_unit: str | None = None
    color: list[int] | None = None
    hierarchy: int = field(default=0, repr=False)  # where its pixel tiles start (0: none, a group)
    masked: bool = False  # it has a layer mask


@dataclass
class XcfImage:
    width: int
    height: int
    mode: str
    layers: list[XcfLayer] = field(default_factory=list)  # top first, each group followed by its children
    compression: int = 1  # 0 none, 1 RLE, 2 zlib (PROP_COMPRESSION)
    precision: int = 150  # GimpPrecision: 8-bit is 100 (linear) or 150 (perceptual) from XCF version 7 on
    version: int = 0
    data: bytes = field(default=b"", repr=False)
    pointer_size: int = field(default=4, repr=False)

    def layer(self, name: str) -> XcfLayer | None:
        return next((layer for layer in self.layers if layer.name == name), None)


class _Reader:
    def __init__(self, data: bytes, pointer_size: int):
        self.data, self.pos, self.pointer_size = data, 0, pointer_size

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise XcfError("the file is cut short")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def u32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def pointer(self) -> int:
        return int(struct.unpack(">Q" if self.pointer_size == 8 else ">I", self.take(self.pointer_size))[0])

    def string(self) -> str:
        length = self.u32()
        return self.take(length)[:-1].decode("utf-8", errors="replace") if length else ""

    def properties(self) -> list[tuple[int, bytes]]:
        found: list[tuple[int, bytes]] = []
        while True:
            kind, length = self.u32(), self.u32()
            if kind == PROP_END:
                return found
            found.append((kind, self.take(length)))


def is_xcf(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(9) == b"gimp xcf "


def read_xcf(path: Path) -> XcfImage:
    """The structure of the XCF at ``path``; XcfError when it is not a readable XCF."""
    data = path.read_bytes()
    if not data.startswith(b"gimp xcf ") or len(data) < 14 or data[13] != 0:
        raise XcfError(f"{path.name} is not an XCF file")
    tag = data[9:13]
    version = 0 if tag == b"file" else int(tag[1:]) if tag[:1] == b"v" and tag[1:].isdigit() else -1
    if version < 0:
        raise XcfError(f"{path.name} has an unknown XCF version {tag!r}")
    reader = _Reader(data, 8 if version >= 11 else 4)
    reader.pos = 14
    width, height, base = reader.u32(), reader.u32(), reader.u32()
    precision = reader.u32() if version >= 4 else 150
    compression = next((payload[0] for kind, payload in reader.properties() if kind == PROP_COMPRESSION and payload), 0)
    pointers = []
    while (pointer := reader.pointer()) != 0:
        pointers.append(pointer)
        if len(pointers) > MAX_LAYERS:
            raise XcfError("too many layers")
    image = XcfImage(width, height, {0: "RGB", 1: "GRAY", 2: "INDEXED"}.get(base, str(base)), [], compression,
                     precision, version, data, reader.pointer_size)
    for pointer in pointers:
        reader.pos = pointer
        image.layers.append(_layer(reader))
    _place(image.layers)
    return image


def _place(layers: list[XcfLayer]) -> None:
    """Parent and position of each layer: children carry an item path, top-level layers count in file order."""
    top = 0
    for layer in layers:
        if len(layer.path) <= 1:
            layer.path, top = (top,), top + 1
    by_path = {layer.path: layer for layer in layers}
    for layer in layers:
        if len(layer.path) > 1:
            parent = by_path.get(layer.path[:-1])
            if parent is None:
                raise XcfError(f"layer {layer.name!r} names a missing group")
            layer.parent = parent.name
        layer.position = layer.path[-1]


def _layer(reader: _Reader) -> XcfLayer:
    width, height = reader.u32(), reader.u32()
    reader.u32()  # pixel type
    layer = XcfLayer(reader.string(), width, height)
    text_flags = 0
    for kind, payload in reader.properties():
        if kind == PROP_OPACITY:
            layer.opacity = round(struct.unpack(">I", payload[:4])[0] * 100 / 255, 1)
        elif kind == PROP_FLOAT_OPACITY:
            layer.opacity = round(struct.unpack(">f", payload[:4])[0] * 100, 4)
        elif kind == PROP_VISIBLE:
            layer.visible = struct.unpack(">I", payload[:4])[0] != 0
        elif kind == PROP_OFFSETS:
            layer.offset_x, layer.offset_y = struct.unpack(">ii", payload[:8])
        elif kind == PROP_MODE:
            number = struct.unpack(">I", payload[:4])[0]
            layer.mode = LAYER_MODES.get(number, str(number))
        elif kind == PROP_TEXT_LAYER_FLAGS:
            text_flags = struct.unpack(">I", payload[:4])[0]
        elif kind == PROP_GROUP_ITEM:
            layer.group = True
        elif kind == PROP_ITEM_PATH:
            layer.path = tuple(struct.unpack(f">{len(payload) // 4}I", payload[:len(payload) // 4 * 4]))
        elif kind == PROP_PARASITES:
            _text_parasite(payload, layer)
    if text_flags & TEXT_MODIFIED:
        # GIMP itself no longer treats it as a text layer (gimp_item_is_text_layer: the pixels were changed
        # after the text was set, e.g. by scale_image); the parasite only keeps the old text for re-editing.
        layer.text = layer.font = layer.font_size = layer.font_unit = layer.color = None
    layer.hierarchy = reader.pointer()
    layer.masked = reader.pointer() != 0
    return layer


def _text_parasite(payload: bytes, layer: XcfLayer) -> None:
    """Text, font, size and color of a text layer, from its 'gimp-text-layer' parasite (S-expressions)."""
    reader = _Reader(payload, 4)
    while reader.pos < len(payload):
        name = reader.string()
        reader.u32()  # flags
        body = reader.take(reader.u32()).decode("utf-8", errors="replace")
        if name != "gimp-text-layer":
            continue
        if text := re.search(r'\(text "((?:[^"\\]|\\.)*)"\)', body):
            layer.text = re.sub(r"\\(.)", r"\1", text.group(1))
        if font := re.search(r'\(font "((?:[^"\\]|\\.)*)"\)', body):
            layer.font = re.sub(r"\\(.)", r"\1", font.group(1))
        if size := re.search(r"\(font-size ([0-9.eE+-]+)\)", body):
            layer.font_size = round(float(size.group(1)), 4)
        if unit := re.search(r"\(font-size-unit ([a-z-]+)\)", body):
            layer.font_unit = unit.group(1)
        if color := re.search(r"\(color \(color-rgba? ([0-9.eE+-]+) ([0-9.eE+-]+) ([0-9.eE+-]+)", body):
            layer.color = [round(float(value) * 255) for value in color.groups()]
