"""Renders of draw.io pages by the real mxGraph engine in headless chromium: look at the pixels."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from asil.adapters.drawio.render import canvas_size, renderer_problem
from asil.agents import make_agent
from asil.runner.episode import run_episode
from asil.tasks import get_task

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(renderer_problem() is not None, reason=f"no draw.io renderer: {renderer_problem()}")]


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG such as chromium writes."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        header = body if kind == b"IHDR" else header
        chunks += [body] if kind == b"IDAT" else []
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and interlace == 0 and color in (2, 6)
    step = 4 if color == 6 else 3
    raw, stride, rows, prev = zlib.decompress(b"".join(chunks)), width * step, [], bytearray(width * step)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left, up = line[i - step] if i >= step else 0, prev[i]
            corner = prev[i - step] if i >= step else 0
            guess = (0, left, up, (left + up) // 2, _paeth(left, up, corner))[kind]
            line[i] = (line[i] + guess) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r[i] for i in range(len(r)) if i % step < 3) for r in rows]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def test_an_oracle_run_renders_every_step_with_mxgraph(tmp_path: Path) -> None:
    task = get_task("drawio-restyle-decision")
    result = run_episode(task, make_agent("oracle"), tmp_path, render=True)
    assert result.success
    folder = tmp_path / task.id
    shots = sorted(folder.glob("step_*.png"))
    assert [p.name for p in shots] == ["step_0.png", "step_1.png", "step_2.png"]
    info = json.loads((folder / "step_1.render.json").read_text())
    assert info["app"] == "drawio" and info["bytes"] > 1000
    first, after = read_png(shots[0]), read_png(shots[1])
    from asil.adapters.drawio.adapter import DrawioAdapter
    from asil.tasks import prepare_workspace

    workspace = prepare_workspace(task)
    try:
        expected = canvas_size(DrawioAdapter(workspace, "order.drawio").page())
    finally:
        workspace.cleanup()
    assert (first[0], first[1]) == expected
    pixels = b"".join(first[2])
    dark = sum(1 for i in range(0, len(pixels), 3) if max(pixels[i : i + 3]) < 100)
    assert 500 < dark < len(pixels) // 3 // 4, "the render is blank or black"  # outlines and text, not a fill
    yellow = bytes((0xFF, 0xF2, 0xCC))
    colours = [b"".join(after[2]), pixels]
    counts = [sum(1 for i in range(0, len(c), 3) if c[i : i + 3] == yellow) for c in colours]
    assert counts[0] > 1000 and counts[1] == 0, "the restyled diamond is yellow only after the action"
