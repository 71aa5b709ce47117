"""Kdenlive renders through the real melt: videos and frames, the render hook, hung and killed renders."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.apps.melt import check_loads, probe
from asil.env import Env
from asil.protocol import ActionResult
from asil.tasks import load_tasks
from asil.tasks.model import Task
from asil.workspace import Workspace
from tests.adapters.kdenlive_files import NEEDS_MELT, clip, fn, make_workspace, media_dir, spec
from tests.png import pixels, size

pytestmark = [pytest.mark.slow, NEEDS_MELT]
LONG = spec(tracks=[{"id": "V1", "clips": [clip("long", "color:#336699", 0, 0, 14999)]}])  # ten minutes


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return media_dir(tmp_path_factory)


@pytest.fixture
def ws(tmp_path: Path, media: Path) -> Workspace:
    return make_workspace(tmp_path / "ws", media)


def video(path: Path) -> tuple[int, int, float]:
    stream = next(s for s in probe(path)["streams"] if s["codec_type"] == "video")
    return int(stream["width"]), int(stream["height"]), float(stream["duration"])


def leftovers(ws: Workspace) -> list[str]:
    return [p.name for p in ws.root.rglob("*") if "asil-render" in p.name or p.suffix == ".mlt"]


def test_render_video_has_the_timeline_duration_and_profile_size(ws: Workspace) -> None:
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    assert adapter.execute(fn("render_video", path="out/all.mp4")).ok
    width, height, seconds = video(ws.root / "out" / "all.mp4")
    assert (width, height) == (160, 90) and abs(seconds - 110 / 25) < 0.05
    assert adapter.execute(fn("set_profile", width=96, height=54)).ok
    assert adapter.execute(fn("render_video", path="part.mp4", start=20, end=44)).ok
    width, height, seconds = video(ws.root / "part.mp4")
    assert (width, height) == (96, 54) and abs(seconds - 1.0) < 0.05
    assert leftovers(ws) == []


def test_render_frame_and_the_render_hook_write_pngs(ws: Workspace, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    assert adapter.execute(fn("render_frame", path="f.png", frame=70)).ok
    width, height, rows = pixels(ws.root / "f.png")
    red, green, blue = rows[height // 2][3 * (width // 2):3 * (width // 2) + 3]
    assert (width, height) == (160, 90) and blue > 200 and red < 60 and green < 60  # frame 70 is the blue clip
    snapshot = adapter.render(tmp_path / "snap.png")
    assert size(snapshot) == (320, 180)
    monkeypatch.chdir(tmp_path)  # the episode runner passes paths relative to its working folder
    assert size(adapter.render(Path("relative.png"))) == (320, 180) and (tmp_path / "relative.png").is_file()


def test_renders_are_refused_past_the_end_or_over_a_source(ws: Workspace) -> None:
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    result = adapter.execute(fn("render_frame", path="f.png", frame=110))
    assert result.status == "invalid" and result.error is not None and "0-109" in result.error.message
    before = (ws.root / "red.mp4").read_bytes()
    result = adapter.execute(fn("render_video", path="red.mp4"))
    assert result.status == "invalid" and result.error is not None and result.error.code == "bad_output"
    assert (ws.root / "red.mp4").read_bytes() == before


def test_a_hung_render_times_out_and_writes_nothing(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "slow", media, LONG)
    adapter = KdenliveAdapter(ws, "edit.kdenlive", render_timeout_s=0.5)
    started = time.monotonic()
    result = adapter.execute(fn("render_video", path="long.mp4"))
    assert time.monotonic() - started < 10
    assert result.status == "error" and result.error is not None and "within 0.5 s" in result.error.message
    assert not (ws.root / "long.mp4").exists() and leftovers(ws) == []
    assert adapter.melt.current is None and adapter.melt.runs == 1
    adapter.render_timeout_s = 60
    assert adapter.execute(fn("render_frame", path="ok.png", frame=3)).ok  # the next render gets a fresh melt


def test_a_killed_render_is_an_error_and_leaves_no_file(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "killed", media, LONG)
    adapter = KdenliveAdapter(ws, "edit.kdenlive", render_timeout_s=60)
    results: list[ActionResult] = []
    worker = threading.Thread(target=lambda: results.append(adapter.execute(fn("render_video", path="long.mp4"))))
    worker.start()
    deadline = time.monotonic() + 20
    while adapter.melt.current is None and time.monotonic() < deadline:
        time.sleep(0.01)
    running = adapter.melt.current
    assert running is not None
    time.sleep(0.3)
    os.kill(running.pid, signal.SIGKILL)  # melt crashes mid-render
    worker.join(30)
    assert results and results[0].status == "error" and results[0].error is not None
    assert "exit code -9" in results[0].error.message and results[0].observation is not None
    assert not (ws.root / "long.mp4").exists() and leftovers(ws) == []
    assert adapter.execute(fn("trim_clip", clip="long", out_frame=24)).ok  # the episode goes on
    assert adapter.execute(fn("render_video", path="short.mp4")).ok
    assert abs(video(ws.root / "short.mp4")[2] - 1.0) < 0.05


def test_close_stops_a_render_in_progress(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path / "closing", media, LONG)
    adapter = KdenliveAdapter(ws, "edit.kdenlive", render_timeout_s=60)
    results: list[ActionResult] = []
    worker = threading.Thread(target=lambda: results.append(adapter.execute(fn("render_video", path="long.mp4"))))
    worker.start()
    deadline = time.monotonic() + 20
    while adapter.melt.current is None and time.monotonic() < deadline:
        time.sleep(0.01)
    running = adapter.melt.current
    assert running is not None
    adapter.close()
    worker.join(30)
    assert not running.alive and results and results[0].status == "error"
    assert not (ws.root / "long.mp4").exists() and leftovers(ws) == []


KDENLIVE_TASKS = [t for t in load_tasks() if t.apps == ["kdenlive"] and t.feasible]


@pytest.mark.parametrize("task", KDENLIVE_TASKS, ids=lambda t: t.id)
def test_every_project_a_reference_solution_writes_loads_in_melt(task: Task) -> None:
    env = Env(task, budget=len(task.reference) + 1)
    env.reset()
    try:
        for action in task.reference:
            assert env.step(action).result.ok
        adapter = env.adapters["kdenlive"]
        adapter.save()
        assert isinstance(adapter, KdenliveAdapter)
        check_loads(adapter.path)
    finally:
        env.close()
