"""Renders of an oracle run: the render hook's small Cycles snapshot, checked pixel by pixel."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asil.agents.oracle import OracleAgent
from asil.runner.episode import run_episode
from asil.tasks import load_tasks
from tests.png import pixels

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("blender") is None, reason="needs blender (scripts/install-system.sh)")]


def test_an_oracle_run_renders_each_step_from_the_scene_camera(tmp_path: Path) -> None:
    task = next(t for t in load_tasks(app="blender") if t.id == "blender-move-cube")
    result = run_episode(task, OracleAgent(), tmp_path, render=True)
    assert result.success
    folder = tmp_path / task.id
    shots = sorted(folder.glob("step_*.png"))
    assert [p.name for p in shots][:2] == ["step_0.png", "step_1.png"]
    info = json.loads((folder / "step_1.render.json").read_text())
    assert info["app"] == "blender" and info["bytes"] == (folder / "step_1.png").stat().st_size
    width, height, rows = pixels(folder / "step_1.png")
    assert (width, height) == (160, 120)
    colours = {row[i:i + 3] for row in rows[::3] for i in range(0, len(row), 9)}
    lit = sum(1 for row in rows for i in range(0, len(row), 3) if sum(row[i:i + 3]) > 120)
    assert len(colours) > 50 and lit > 2000  # a lit floor and objects, not a blank frame
    assert (folder / "step_0.png").read_bytes() != (folder / "step_1.png").read_bytes()  # the cube moved
