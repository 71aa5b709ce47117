"""The GUI path against the real OBS Studio main window in a private 1280x800 Xvfb: recorded demonstrations
(real clicks and keystrokes) replayed through GuiEnv end in success under the task's unchanged evaluator and
the raw validator, on the scene collection OBS itself saved; the untouched OBS fails; the saved work is what
a restarted OBS shows."""

from __future__ import annotations

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.tasks import get_task
from tests.gui.demos import demos_of, disagreements, fills_the_screen, replay, solved

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("obs")


def test_obs_has_at_least_two_demonstrations_of_its_own_tasks() -> None:
    assert len(DEMOS) >= 2 and all(get_task(task_id).apps == ["obs"] for task_id in DEMOS)


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and "scene collection OBS itself saved" in note, note


def test_the_untouched_obs_fills_the_screen_and_fails_its_task() -> None:
    env = GuiEnv(get_task("obs-rename-break"))
    try:
        env.reset()
        assert fills_the_screen(env, "obs")
        evaluation = env.evaluate()
        assert not evaluation.success and disagreements(env, evaluation) == []
        assert env.sync_note is not None and env.sync_note.startswith("stored scenes.json")
    finally:
        env.close()


def test_a_restarted_obs_loads_what_the_sync_saved() -> None:
    env = GuiEnv(get_task("obs-remove-old-scene"))
    try:
        env.reset()
        replay(env, demonstration("obs-remove-old-scene") or [])
        env.restart()  # sync, then a new OBS process and config folder on the workspace's collection
        adapter = env.session.adapter  # type: ignore[union-attr]  # the OBS GUI session's own adapter
        listed = adapter.session.request("GetSceneList")
        assert sorted(scene["sceneName"] for scene in listed["scenes"]) == ["Break", "Main"]
        assert env.evaluate().success
    finally:
        env.close()
