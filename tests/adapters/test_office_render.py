"""Renders of Writer and Impress states come from the real LibreOffice and show the document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.agents.base import make_agent
from asil.runner.episode import run_episode
from asil.tasks import load_tasks
from tests.adapters.office_helpers import png_stats


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["writer-insert-schedule", "impress-closing-slide"])
def test_an_oracle_run_renders_every_step(task_id: str, tmp_path: Path) -> None:
    task = next(t for t in load_tasks() if t.id == task_id)
    result = run_episode(task, make_agent("oracle"), tmp_path, render=True)
    assert result.success, result.checkpoints
    folder = tmp_path / task_id
    pictures = sorted(folder.glob("step_*.png"))
    assert pictures, "no renders were written"
    for picture in pictures:
        width, height, ink = png_stats(picture)
        assert 300 <= width <= 2000 and 200 <= height <= 2000
        assert 0.001 < ink < 0.5, f"{picture.name} looks blank or solid ({ink:.4f} dark)"
        info = json.loads(picture.with_suffix(".render.json").read_text())
        assert info["app"] == task.apps[0] and info["bytes"] == picture.stat().st_size
