"""The OBS tasks with two success paths really accept the second path too (and a wrong answer fails)."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from asil.env import Env
from asil.protocol import Action
from asil.tasks import load_tasks

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("obs") is None or shutil.which("Xvfb") is None,
                                 reason="needs obs-studio and xvfb (scripts/install-system.sh)")]

TASKS = {t.id: t for t in load_tasks() if t.apps == ["obs"]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def test_the_obs_suite_has_twenty_tasks_with_an_infeasible_one_and_two_ways() -> None:
    assert len(TASKS) >= 20
    assert any(not t.feasible for t in TASKS.values())
    assert sum(len(t.evaluator.paths) > 1 for t in TASKS.values()) >= 2


@pytest.mark.parametrize(("task_id", "actions", "success"), [
    ("obs-silence-music", [fn("set_audio", input="Music", volume_db=-100)], True),
    ("obs-drop-sponsor", [fn("set_visibility", scene="Main", source="Sponsor", visible=False)], True),
    ("obs-drop-sponsor", [fn("set_visibility", scene="Main", source="Title", visible=False)], False),
], ids=["mute-by-volume", "hide-sponsor", "hide-wrong-item"])
def test_other_paths(task_id: str, actions: list[Action], success: bool) -> None:
    env = Env(TASKS[task_id], budget=len(actions) + 1)
    env.reset()
    try:
        for action in [*actions, Action(action_type="done")]:
            assert env.step(action).result.ok
        assert env.evaluate().success is success
    finally:
        env.close()
