"""The multi-app suite: tasks that move information between applications, and the Env routing actions to
the app each one names."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from asil.agents import make_agent
from asil.env import Env
from asil.evaluate.checkpoints import CHECKPOINT_TYPES
from asil.evaluate.raw import GENERIC
from asil.plugins import adapter_class
from asil.protocol import Action
from asil.runner.episode import run_episode
from asil.tasks import get_task, load_tasks
from asil.tasks.model import Task

MULTI = load_tasks(suite="multi")


def _acted_on(task: Task) -> set[str]:
    """The apps the reference routes actions to (an action without ``app`` goes to the first app)."""
    return {action.app or task.apps[0] for action in task.reference if not action.is_control}


def _written(task: Task) -> set[str]:
    """The apps whose documents the reference changes (navigate only reads)."""
    return {action.app or task.apps[0] for action in task.reference
            if not action.is_control and action.action_type != "navigate"}


LIVE_APPS = ("calc", "writer", "impress", "drawio", "inkscape", "jupyter", "blender", "gimp", "kdenlive", "audacity",
             "obs", "thunderbird", "nautilus", "codeserver")


def test_the_suite_has_the_papers_eighty_tasks_over_every_live_app() -> None:
    """ASIL paper §4.2: 80 multi-app tasks; here each live app in >= 4 of them, >= 15 app pairs, >= 10 over 3 apps."""
    assert len(MULTI) >= 80
    uses = Counter(app for task in MULTI for app in task.apps)
    assert all(uses[app] >= 4 for app in LIVE_APPS), uses
    pairs = {pair for task in MULTI for pair in combinations(sorted(task.apps), 2)}
    assert len(pairs) >= 15
    assert sum(len(task.apps) >= 3 for task in MULTI) >= 10


def test_the_suite_mixes_writes_infeasible_and_multi_path_tasks() -> None:
    # most tasks read one app and write another; these write to two or three
    assert sum(len(_written(task)) >= 2 for task in MULTI) >= 5
    assert any(not task.feasible for task in MULTI)
    assert sum(len(task.evaluator.paths) > 1 for task in MULTI) >= 2  # some accept more than one result
    assert any(len(task.apps) == 3 for task in MULTI)


@pytest.mark.parametrize("task", MULTI, ids=lambda t: t.id)
def test_every_task_spans_apps_and_its_reference_acts_on_two(task: Task) -> None:
    assert len(task.apps) >= 2 and len(set(task.apps)) == len(task.apps)
    assert _acted_on(task) <= set(task.apps)
    assert len(_acted_on(task)) >= 2, f"{task.id}: the reference acts only on {_acted_on(task)}"
    for path in task.evaluator.paths:
        for checkpoint in path:
            if checkpoint.type in GENERIC:
                continue
            # the raw-validator agreement test judges each checkpoint by its own app
            assert checkpoint.app in task.apps and checkpoint.document, f"{task.id}: {checkpoint.type}"
            assert task.document_for(checkpoint.app) == checkpoint.document


def test_every_checkpoint_type_used_is_registered() -> None:
    for app in {app for task in MULTI for app in task.apps}:
        adapter_class(app)  # importing an adapter registers its checkpoint types
    used = {cp.type for task in MULTI for path in task.evaluator.paths for cp in path}
    assert used <= set(CHECKPOINT_TYPES)


@pytest.mark.slow
def test_an_oracle_episode_acts_on_three_apps_and_the_observation_follows(tmp_path: Path) -> None:
    task = get_task("multi-conversion-three-apps")
    result = run_episode(task, make_agent("oracle"), tmp_path, full_observations=True)
    assert result.success and result.termination == "done"
    lines = [json.loads(line) for line in (tmp_path / task.id / "traj.jsonl").read_text().splitlines()]
    acted = [line["action"].get("app") for line in lines if line["action"]["action_type"] != "done"]
    assert acted == ["drawio", "inkscape"]
    seen = [line["observation"]["metadata"]["app"] for line in lines]
    # each observation shows the app acted on last: first the task's first app, then the one just used
    assert seen == ["calc", "drawio", "inkscape"]
    first = lines[0]["observation"]
    assert first["environment"]["other_apps"] == {"drawio": "funnel.drawio", "inkscape": "dashboard.svg"}
    assert "also in this task: drawio (funnel.drawio), inkscape (dashboard.svg)" in first["summary"]


def _digests(env: Env) -> dict[str, str]:
    assert env.workspace is not None
    return {name: hashlib.sha256((env.workspace.root / name).read_bytes()).hexdigest()
            for name in env.workspace.files()}


def test_an_action_for_an_app_outside_the_task_is_invalid_and_changes_nothing() -> None:
    task = get_task("multi-panel-size")  # drawio + inkscape
    env = Env(task)
    env.reset()
    try:
        before = _digests(env)
        for stranger in ("calc", "excel"):
            outcome = env.step(Action(action_type="invoke_function", target="relabel", app=stranger,
                                      params={"cell": "Panel", "label": "Main panel"}))
            error = outcome.result.error
            assert outcome.result.status == "invalid" and error is not None
            assert error.message == f"This task has no app {stranger!r}."
            assert error.hint == "Apps of this task: drawio, inkscape."
        assert env.steps == 2 and not env.finished  # rejected steps still count toward the budget
        for adapter in env.adapters.values():
            adapter.save()
        assert _digests(env) == before
    finally:
        env.close()


def test_actions_go_to_the_app_they_name_and_default_to_the_first() -> None:
    task = get_task("multi-panel-size")
    env = Env(task)
    first = env.reset()
    try:
        assert first.metadata.app == "drawio" and first.environment["other_apps"] == {"inkscape": "mockup.svg"}
        moved = env.step(Action(action_type="invoke_function", target="edit_element", app="inkscape",
                                params={"id": "panel", "attributes": {"width": 300}}))
        assert moved.result.ok and moved.result.observation is not None
        assert moved.result.observation.metadata.app == "inkscape"
        resized = env.step(Action(action_type="invoke_function", target="resize", params={"cell": "Panel",
                                                                                        "width": 300}))
        assert resized.result.ok and resized.result.observation is not None
        assert resized.result.observation.metadata.app == "drawio"
        # a drawio function sent to inkscape is refused by inkscape, naming what it accepts
        wrong = env.step(Action(action_type="invoke_function", target="resize", app="inkscape",
                                params={"cell": "Panel", "width": 10}))
        assert not wrong.result.ok and wrong.result.error is not None and "resize" in wrong.result.error.message
    finally:
        env.close()
