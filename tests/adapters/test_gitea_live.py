"""Gitea against a LIVE server: runs only when ASIL_GITEA_URL and ASIL_GITEA_TOKEN are set.

No Gitea can be installed on the machine the adapter was built on, so there these tests are
reported as skipped. Point them at a real Gitea (a throw-away user's token with the repository
and issue write scopes; every run creates repositories named ``tracker-<hex>`` / ``asil-sample-<hex>``):

    ASIL_GITEA_URL=http://127.0.0.1:3000 ASIL_GITEA_TOKEN=... pytest tests/adapters/test_gitea_live.py
"""

from __future__ import annotations

import json

import pytest

from asil.adapters.check import check_adapter
from asil.adapters.gitea.adapter import GiteaAdapter
from asil.adapters.gitea.seed import live_tasks_root
from asil.apps.gitea import config_from
from asil.env import Env
from asil.evaluate.evaluator import evaluate_paths
from asil.evaluate.raw import raw_verdict
from asil.protocol import Action
from asil.runner.check import check_task
from asil.tasks import load_tasks, prepare_workspace
from asil.tasks.model import Task
from asil.workspace import Workspace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(config_from(None) is None, reason="needs a live Gitea: set ASIL_GITEA_URL and "
                       "ASIL_GITEA_TOKEN (no Gitea can be installed on this machine; not verified live here)"),
]
TASKS = load_tasks(root=live_tasks_root())


def test_the_server_is_ready_and_the_adapter_conforms(workspace: Workspace) -> None:
    assert GiteaAdapter.readiness().ready, GiteaAdapter.readiness().detail
    check_adapter("gitea", workspace)


def _agree(task: Task, workspace: Workspace, outcome: str | None) -> None:
    evaluation = evaluate_paths(task.evaluator.paths, workspace, outcome, None)
    for path, verdicts in zip(task.evaluator.paths, evaluation.paths, strict=True):
        for checkpoint, verdict in zip(path, verdicts.checkpoints, strict=True):
            assert raw_verdict(checkpoint, workspace, outcome, None, "gitea") == verdict.passed, (
                f"{task.id}: {checkpoint.type} {checkpoint.target}: evaluator {verdict.passed} ({verdict.actual!r})")


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_reference_succeeds_and_the_seeded_untouched_repository_fails(task: Task) -> None:
    check = check_task(task)  # the workspace builder seeds a fresh repository when a server is configured
    assert check.reference_success, check.detail
    assert not check.initial_success, check.detail


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_raw_validator_agrees_with_the_evaluator(task: Task) -> None:
    untouched = prepare_workspace(task)
    try:
        _agree(task, untouched, None)
    finally:
        untouched.cleanup()
    env = Env(task, budget=len(task.reference) + 2)
    env.reset()
    try:
        for action in task.reference:
            assert env.step(action).result.ok
        assert env.workspace is not None
        _agree(task, env.workspace, env.outcome)
    finally:
        env.close()


def test_a_failing_batch_leaves_the_repository_as_it_was(workspace: Workspace) -> None:
    workspace.write_bytes("r.gitea", json.dumps({"repository": {"name": "batch"}, "calls": [
        {"function": "create_issue", "params": {"title": "One"}}]}).encode())
    with GiteaAdapter(workspace, "r.gitea") as adapter:
        before = adapter.observe().model_dump_json(exclude={"metadata"})
        result = adapter.execute(Action(action_type="batch", params={"actions": [
            {"action_type": "invoke_function", "target": "create_label", "params": {"name": "x", "color": "#aaaaaa"}},
            {"action_type": "invoke_function", "target": "close_issue", "params": {"number": 1}},
            {"action_type": "invoke_function", "target": "add_labels", "params": {"number": 1, "labels": ["nope"]}},
        ]}))
        assert not result.ok and result.error is not None and "Batch action 3" in result.error.message
        assert adapter.observe().model_dump_json(exclude={"metadata"}) == before


def test_live_errors_are_clear_and_change_nothing(workspace: Workspace) -> None:
    workspace.write_bytes("r.gitea", json.dumps({"repository": {"name": "errors"}}).encode())
    with GiteaAdapter(workspace, "r.gitea") as adapter:
        before = adapter.observe().model_dump_json(exclude={"metadata"})
        result = adapter.execute(Action(action_type="invoke_function", target="close_issue", params={"number": 99}))
        assert result.status == "invalid" and result.error and "no issue or pull request #99" in result.error.message
        paged = adapter.execute(Action(action_type="navigate", params={"view": "labels", "limit": 5}))
        assert paged.ok and paged.observation and paged.observation.app_state.view == "labels"
        adapter.execute(Action(action_type="navigate", params={"view": "repository"}))
        assert adapter.observe().model_dump_json(exclude={"metadata"}) == before
