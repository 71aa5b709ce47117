"""The GUI path against the real LibreOffice in a private Xvfb: recorded demonstrations (real coordinates and
keystrokes) replayed through GuiEnv end in evaluator success, judged by the task's unchanged evaluator and its
raw validator; a wrong demonstration and the untouched program fail; refused actions change nothing; the work
survives a restart of LibreOffice because the sync saved it to the file."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from asil.agents import make_agent
from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.runner.episode import run_episode
from asil.tasks import get_task
from tests.gui.demos import demos_of, play, replay, shows_other_than, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("calc", "writer", "impress")


@pytest.fixture
def sales() -> Iterator[GuiEnv]:
    env = GuiEnv(get_task("calc-total-column"))
    env.reset()
    yield env
    env.close()


def test_demonstrations_cover_calc_writer_and_impress_twice() -> None:
    apps = [get_task(task_id).apps[0] for task_id in DEMOS]
    assert all(apps.count(app) >= 2 for app in ("calc", "writer", "impress")), apps


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and note.startswith("stored "), note


@pytest.mark.parametrize("task_id", ["calc-total-column", "impress-retitle"])
def test_the_untouched_program_fails_its_task(task_id: str) -> None:
    untouched(task_id)


def test_a_wrong_demonstration_ends_in_evaluator_failure() -> None:
    played = play("writer-retitle", [{"action": "key", "keys": "ctrl+Home End"}, {"action": "type", "text": " summary"}])
    assert not played.evaluation.success and played.disagreements == []


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("params", "message"), [
    ({"action": "left_click", "x": 1280, "y": 10},
     "A left_click action needs 'x', a pixel coordinate from 0 to 1279 on this 1280x800 screen, not 1280."),
    ({"action": "key", "keys": "ctrl+Hyper"},
     "Unknown key 'Hyper' in a key action; use names like Return, Tab, Escape, BackSpace, Delete, Home, End, Up, "
     "Down, Left, Right, Prior, Next, F1-F24 or one character, joined by + to modifiers ctrl, alt, shift, super."),
    ({"action": "fly"}, "Unknown GUI action 'fly'; valid actions are left_click, right_click, double_click, "
     "triple_click, mouse_move, drag, scroll, type, key, wait, screenshot, done, infeasible."),
    ({"action": "type", "text": ""}, 'A type action needs "text", a non-empty string of at most 2000 characters.'),
])
def test_refused_actions_name_what_is_wrong_and_change_nothing(sales: GuiEnv, params: dict[str, object],
                                                               message: str) -> None:
    assert sales.workspace is not None
    before_file, before_screen = digest(sales.workspace.root / "sales.ods"), sales.screen().png
    step = sales.step(params)
    assert step.status == "invalid" and step.error is not None and step.error.message == message
    assert step.screen.png == before_screen and digest(sales.workspace.root / "sales.ods") == before_file
    assert sales.steps == 1  # a refused step still costs one of the budget


@pytest.mark.parametrize("task_id", ["calc-total-column", "writer-retitle", "impress-subtitle-year"])
def test_the_work_survives_a_restart_of_libreoffice(task_id: str) -> None:
    env = GuiEnv(get_task(task_id))
    try:
        untouched = env.reset()
        replay(env, demonstration(task_id) or [])
        env.restart()  # sync, a new soffice process and profile, the same file
        assert shows_other_than(env, untouched.png)  # the new window shows the work, not the initial state
        assert env.evaluate().success
    finally:
        env.close()


def test_the_budget_truncates_a_gui_episode() -> None:
    env = GuiEnv(get_task("calc-total-column"), budget=2)
    try:
        env.reset()
        assert not env.step({"action": "screenshot"}).truncated
        last = env.step({"action": "mouse_move", "x": 5, "y": 5})
        assert last.truncated and last.reason == "budget"
    finally:
        env.close()


def test_the_gui_agent_runs_a_demonstration_and_keeps_every_screenshot(tmp_path: Path) -> None:
    result = run_episode(get_task("writer-retitle"), make_agent("gui", model="scripted"), tmp_path)
    assert result.success and result.termination == "done" and result.budget == 50
    folder = tmp_path / "writer-retitle"
    steps = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    assert [s["channel"] for s in steps] == ["gui"] * 3 and steps[-1]["action"]["action_type"] == "done"
    assert sorted(p.name for p in folder.glob("step_*.png")) == [f"step_{n}.png" for n in range(4)]
    assert result.metrics["gui"]["sync"].startswith("stored memo.odt")
    from tests.conftest import run_cli

    assert run_cli("report", str(tmp_path)).returncode == 0
    page = (tmp_path / "report.html").read_text()
    strip = page.split('<div class="strip">', 1)[1].split("</div>", 1)[0]
    assert [f"writer-retitle/step_{n}.png" in strip for n in range(4)] == [True] * 4
