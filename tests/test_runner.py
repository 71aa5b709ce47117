"""The episode runner and its result directory, with the oracle agent on real LibreOffice."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from asil.agents import make_agent
from asil.contracts import MODELS
from asil.runner.bench import run_bench
from asil.runner.episode import run_episode
from asil.tasks import get_task


def _schema(name: str) -> dict:
    return MODELS[name].model_json_schema()


def test_oracle_episode_writes_the_result_directory(tmp_path: Path) -> None:
    task = get_task("calc-total-column")
    result = run_episode(task, make_agent("oracle"), tmp_path)
    folder = tmp_path / task.id
    assert result.success and result.score == 1.0 and result.termination == "done"
    lines = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    assert [line["step"] for line in lines] == [1, 2]
    assert lines[0]["action"]["target"] == "set_range" and lines[1]["action"]["action_type"] == "done"
    for line in lines:
        jsonschema.validate(line, _schema("trace_line"))
        assert line["observation_digest"].startswith("sha256:")
    saved = json.loads((folder / "result.json").read_text())
    jsonschema.validate(saved, _schema("result"))
    assert saved["steps"] == 2 and all(c["passed"] for c in saved["checkpoints"])
    assert (folder / "result.txt").read_text() == "1\n"


def test_a_run_wide_budget_replaces_the_task_s_own() -> None:
    task = get_task("calc-total-column")
    assert (task.step_budget(), task.step_budget(None), task.step_budget(3)) == (task.budget, task.budget, 3)


def test_step_budget_truncates_the_episode(tmp_path: Path) -> None:
    task = get_task("calc-total-column")
    result = run_episode(task, make_agent("oracle"), tmp_path, budget=1)
    # the one allowed step was the real work, so the state is right but the agent never said done
    assert result.termination == "budget" and result.steps == 1
    assert result.success


def test_full_observations_are_recorded_on_request(tmp_path: Path) -> None:
    task = get_task("calc-infeasible-macro")
    result = run_episode(task, make_agent("oracle"), tmp_path, full_observations=True)
    line = json.loads((tmp_path / task.id / "traj.jsonl").read_text().splitlines()[0])
    assert result.termination == "infeasible" and result.success
    assert line["observation"]["metadata"]["app"] == "calc"
    assert line["action"]["action_type"] == "infeasible"


def test_bench_summarizes_per_app(tmp_path: Path) -> None:
    tasks = [get_task("calc-total-column"), get_task("calc-infeasible-macro")]
    summary = run_bench(tasks, lambda: make_agent("oracle"), tmp_path)
    assert summary["apps"]["calc"]["tasks"] == 2 and summary["apps"]["calc"]["success_rate"] == 1.0
    assert json.loads((tmp_path / "summary.json").read_text()) == summary


def test_actions_route_by_app_and_unknown_apps_are_invalid(tmp_path: Path) -> None:
    from asil.env import Env
    from asil.protocol import Action

    env = Env(get_task("calc-total-column"))
    env.reset()
    try:
        routed = env.step(Action(app="calc", action_type="set_value", target="Orders!E1", params={"value": 1}))
        assert routed.result.ok and env.steps == 1
        wrong = env.step(Action(app="writer", action_type="set_value", target="x", params={}))
        assert wrong.result.status == "invalid" and "no app 'writer'" in wrong.result.error.message
        assert env.steps == 2
    finally:
        env.close()


def test_rendered_runs_keep_a_picture_of_every_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    task = get_task("calc-total-column")
    result = run_episode(task, make_agent("oracle"), tmp_path / "on", render=True)
    folder = tmp_path / "on" / task.id
    pictures = sorted(folder.glob("step_*.png"), key=lambda p: int(p.stem.split("_")[1]))
    assert [p.stem for p in pictures] == [f"step_{n}" for n in range(result.steps + 1)]
    first, last = (Image.open(p).convert("RGB").convert("L") for p in (pictures[0], pictures[-1]))
    assert first.size[0] > 200 and first.size[1] > 100
    assert min(first.getextrema()) < 128  # dark text and grid lines on a light page, not a blank image
    assert first.tobytes() != last.tobytes()  # the edits show
    info = json.loads((folder / "step_0.render.json").read_text())
    assert info["app"] == "calc" and info["bytes"] == pictures[0].stat().st_size
    monkeypatch.setenv("ASIL_DISABLE_RENDER", "1")
    run_episode(task, make_agent("oracle"), tmp_path / "off", render=True)
    assert not list((tmp_path / "off" / task.id).glob("step_*"))
