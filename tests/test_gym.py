"""The Gymnasium environment: Gymnasium's own checker, rewards from the evaluator, errors as data."""

from __future__ import annotations

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import asil.gym
from asil.plugins import app_names
from asil.tasks import get_task, load_tasks

pytestmark = pytest.mark.slow


def first_task_of(app: str) -> str:
    """The app's first feasible single-app task (multi-app tasks sort among them by id)."""
    return next(task.id for task in load_tasks(app=app) if task.feasible and task.apps == [app])


APPS_WITH_TASKS = [app for app in app_names() if load_tasks(app=app)]  # gitea's tasks need a live server


def test_every_app_but_gitea_has_built_in_tasks() -> None:
    assert set(app_names()) - set(APPS_WITH_TASKS) == {"gitea"}


@pytest.mark.parametrize("app", APPS_WITH_TASKS)
def test_check_env_passes_for_a_task_of_each_app(app: str) -> None:
    env = gymnasium.make(asil.gym.ENV_ID, task_id=first_task_of(app))
    try:
        check_env(env.unwrapped)  # warnings are errors in this test suite, so it must be clean too
    finally:
        env.close()


def test_reference_actions_earn_the_evaluator_score_as_terminal_reward() -> None:
    task = get_task("calc-total-column")
    env = gymnasium.make("asil/Task-v0", task_id=task.id)
    try:
        observation, info = env.reset(seed=7)
        assert json.loads(observation)["metadata"]["app"] == "calc" and info["instruction"] == task.instruction
        assert "set_range" in info["schemas"]["calc"]["functions"]
        for action in task.reference:
            observation, reward, terminated, truncated, info = env.step(action.model_dump_json())
            assert (reward, terminated, truncated, info["status"]) == (0.0, False, False, "ok")
        observation, reward, terminated, truncated, info = env.step({"action_type": "done"})
        assert (reward, terminated, truncated, info["success"]) == (1.0, True, False, True)
        assert json.loads(observation)["app_state"]["document_path"] == "sales.ods"
        after = env.step('{"action_type": "done"}')
        assert after[2] is True and after[4]["error"]["code"] == "episode_over"
    finally:
        env.close()


def test_bad_actions_are_steps_with_errors_and_the_budget_truncates() -> None:
    env = asil.gym.TaskEnv(task_id="calc-total-column", budget=3)
    try:
        env.reset()
        cases = ["{not json", '{"action_type": "set_value", "target": "Nope!A1", "params": {"value": 1}}', 42]
        codes = []
        for action in cases:
            _, reward, terminated, truncated, info = env.step(action)
            codes.append(info["error"]["code"])
        assert codes == ["malformed_json", "no_sheet", "invalid_action"]
        assert (terminated, truncated, info["reason"], info["success"]) == (False, True, "budget", False)
        assert reward == info["score"] < 1.0
        observation, info = env.reset(options={"task_id": "calc-sort-scores"})
        assert info["task_id"] == "calc-sort-scores" and env.observation_space.contains(observation)
    finally:
        env.close()
