"""Renders of an oracle run: real nbconvert HTML shot by headless Chromium, checked pixel by pixel."""

from __future__ import annotations

import json
import shutil
import struct
import zlib
from pathlib import Path

import pytest

from asil.adapters.jupyter.render import HEIGHT, WIDTH
from asil.agents.oracle import OracleAgent
from asil.runner.episode import run_episode
from asil.tasks import load_tasks

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium (scripts/install-system.sh)")]


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered rows of an 8-bit RGB/RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6)
    channels = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytes(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = bytes(line)
    return width, height, rows


def test_an_oracle_run_renders_each_step_as_a_real_screenshot(tmp_path: Path) -> None:
    task = next(t for t in load_tasks(app="jupyter") if t.id == "jupyter-run-notebook")
    result = run_episode(task, OracleAgent(), tmp_path, render=True)
    assert result.success
    folder = tmp_path / task.id
    shots = sorted(folder.glob("step_*.png"))
    assert [p.name for p in shots] == ["step_0.png", "step_1.png", "step_2.png"]
    info = json.loads((folder / "step_1.render.json").read_text())
    assert info["app"] == "jupyter" and info["bytes"] == (folder / "step_1.png").stat().st_size
    width, height, rows = decode_png((folder / "step_1.png").read_bytes())
    assert (width, height) == (WIDTH, HEIGHT)
    top = rows[: height // 3]
    colours = {row[i:i + 3] for row in top[::4] for i in range(0, len(row), 12)}
    dark = sum(1 for row in top for i in range(0, len(row), 3) if sum(row[i:i + 3]) < 200)
    assert len(colours) > 20 and dark > 500  # text and syntax colours, not a blank page
    before, after = (folder / "step_0.png").read_bytes(), (folder / "step_1.png").read_bytes()
    assert before != after  # the run added outputs, and the render shows them
