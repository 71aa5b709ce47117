"""Reading an XCF file's structure in Python: canvas size, mode and each layer's properties.

Only the header, the property lists and the layer headers are read (no pixel tiles), which is
enough for checkpoints on layers without starting GIMP. Layout per the XCF specification
(devel-docs/xcf.txt in GIMP's source): pointers are 64-bit from version 11 on.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

PROP_END, PROP_OPACITY, PROP_VISIBLE, PROP_OFFSETS = 0, 6, 8, 15
PROP_PARASITES, PROP_FLOAT_OPACITY, PROP_GROUP_ITEM, PROP_ITEM_PATH = 21, 33, 29, 30
MAX_LAYERS = 10_000


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


@dataclass
class XcfImage:
    width: int
    height: int
    mode: str
    layers: list[XcfLayer] = field(default_factory=list)  # top first, each group followed by its children


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
    if version >= 4:
        reader.u32()  # precision
    reader.properties()
    pointers = []
    while (pointer := reader.pointer()) != 0:
        pointers.append(pointer)
        if len(pointers) > MAX_LAYERS:
            raise XcfError("too many layers")
    image = XcfImage(width, height, {0: "RGB", 1: "GRAY", 2: "INDEXED"}.get(base, str(base)))
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
    for kind, payload in reader.properties():
        if kind == PROP_OPACITY:
            layer.opacity = round(struct.unpack(">I", payload[:4])[0] * 100 / 255, 1)
        elif kind == PROP_FLOAT_OPACITY:
            layer.opacity = round(struct.unpack(">f", payload[:4])[0] * 100, 4)
        elif kind == PROP_VISIBLE:
            layer.visible = struct.unpack(">I", payload[:4])[0] != 0
        elif kind == PROP_OFFSETS:
            layer.offset_x, layer.offset_y = struct.unpack(">ii", payload[:8])
        elif kind == PROP_GROUP_ITEM:
            layer.group = True
        elif kind == PROP_ITEM_PATH:
            layer.path = tuple(struct.unpack(f">{len(payload) // 4}I", payload[:len(payload) // 4 * 4]))
        elif kind == PROP_PARASITES:
            layer.text = _text_parasite(payload)
    return layer


def _text_parasite(payload: bytes) -> str | None:
    """The text of a text layer, from its 'gimp-text-layer' parasite (``(text "...")``)."""
    reader = _Reader(payload, 4)
    while reader.pos < len(payload):
        name = reader.string()
        reader.u32()  # flags
        body = reader.take(reader.u32())
        if name == "gimp-text-layer":
            match = re.search(rb'\(text "((?:[^"\\]|\\.)*)"\)', body)
            if match:
                return re.sub(r'\\(.)', r'\1', match.group(1).decode("utf-8", errors="replace"))
    return None
