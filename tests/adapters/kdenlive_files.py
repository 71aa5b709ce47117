"""Small media clips (made once per test session by ffmpeg) and MLT projects for the Kdenlive tests."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.kdenlive.builders import media_clip, project_xml
from asil.protocol import Action
from asil.workspace import Workspace

NEEDS_MELT = pytest.mark.skipif(shutil.which("melt") is None or shutil.which("ffmpeg") is None,
                                reason="needs melt and ffmpeg (scripts/install-system.sh)")
MEDIA = {"red.mp4": {"color": "red", "seconds": 2}, "blue.mp4": {"color": "blue", "seconds": 2}}


def clip(cid: str, source: str, start: int, first: int, last: int, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "source": source, "start": start, "in": first, "out": last, **extra}


def spec(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "profile": {"width": 160, "height": 90, "fps_num": 25, "fps_den": 1},
        "tracks": [{"id": "V1", "clips": [clip("red", "red.mp4", 0, 0, 49), clip("blue", "blue.mp4", 60, 0, 49)]},
                   {"id": "V2", "clips": [clip("white", "color:white", 10, 0, 24)]}],
    }
    base.update(changes)
    return base


def media_dir(factory: pytest.TempPathFactory) -> Path:
    folder = factory.getbasetemp() / "kdenlive-media"
    folder.mkdir(exist_ok=True)
    for name, content in MEDIA.items():
        if not (folder / name).is_file():
            media_clip(content, folder / name)
    return folder


def make_workspace(root: Path, media: Path, project: dict[str, Any] | None = None,
                   name: str = "edit.kdenlive") -> Workspace:
    ws = Workspace(root)
    for file in media.iterdir():
        shutil.copyfile(file, ws.root / file.name)
    (ws.root / name).write_bytes(project_xml(project or spec()))
    return ws


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)
