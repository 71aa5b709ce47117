"""SVG fixtures and a small stdlib PNG reader for the Inkscape adapter tests."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.protocol import Action, ActionResult
from asil.workspace import Workspace

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="{w}" height="{h}" '
        'viewBox="0 0 {w} {h}">\n')

DRAWING = HEAD.format(w=400, h=300) + """
  <g inkscape:groupmode="layer" id="bg" inkscape:label="Background">
    <rect id="paper" x="0" y="0" width="400" height="300" style="fill:#fafafa"/>
  </g>
  <g inkscape:groupmode="layer" id="art" inkscape:label="Art" transform="translate(10,20)">
    <rect x="10" y="10" width="50" height="30" style="fill:#ff0000;stroke:#000000;stroke-width:4"/>
    <circle cx="150" cy="100" r="25" fill="#0000ff"/>
    <g id="pair" transform="rotate(30,200,150)" style="fill:#00aa00">
      <ellipse id="egg" cx="200" cy="150" rx="30" ry="15"/>
      <path id="curve" d="M 180 200 C 200 160 240 240 260 200 Q 280 180 300 200 Z"/>
    </g>
    <text id="title" x="20" y="250" style="font-size:20px"><tspan>Hello</tspan> world</text>
    <line id="rule" x1="0" y1="280" x2="300" y2="280" style="stroke:#333333;stroke-width:2"/>
  </g>
</svg>
"""


def write_svg(workspace: Workspace, text: str, name: str = "drawing.svg") -> str:
    workspace.resolve(name).write_text(text, encoding="utf-8")
    return name


def open_drawing(workspace: Workspace, text: str = DRAWING) -> InkscapeAdapter:
    return InkscapeAdapter(workspace, write_svg(workspace, text))


def fn(adapter: InkscapeAdapter, name: str, **params: object) -> ActionResult:
    return adapter.execute(Action(action_type="invoke_function", target=name, params=dict(params)))


def big_svg(shapes: int) -> str:
    """A drawing of ``shapes`` rectangles in two layers (half of them without ids)."""
    rows = []
    for i in range(shapes):
        ident = f' id="s{i}"' if i % 2 == 0 else ""
        rows.append(f'<rect{ident} x="{i % 200 * 4}" y="{i // 200 * 4}" width="3" height="3" style="fill:#{i % 4096:03x}"/>')
    half = shapes // 2
    return (HEAD.format(w=800, h=800)
            + '<g inkscape:groupmode="layer" id="one" inkscape:label="One">' + "".join(rows[:half]) + "</g>"
            + '<g inkscape:groupmode="layer" id="two" inkscape:label="Two">' + "".join(rows[half:]) + "</g></svg>")


def png_pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered RGBA rows of an 8-bit RGBA PNG (what Inkscape writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert (depth, color) == (8, 6), "expected 8-bit RGBA"
    raw, stride, rows, prev = zlib.decompress(idat), width * 4, [], bytearray(width * 4)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - 4] if x >= 4 else 0
            up, corner = prev[x], prev[x - 4] if x >= 4 else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                best = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                line[x] = (line[x] + best) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows
