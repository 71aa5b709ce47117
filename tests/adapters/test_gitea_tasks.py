"""The 20 Gitea tasks, checked without a server: they load as Tasks, only from their own folder,
and every seed call and reference action passes the adapter's schema and validation.

Whether each reference really succeeds and each untouched seeded repository really fails can
only be shown on a live Gitea: tests/adapters/test_gitea_live.py runs `check_task` on all of
them when ASIL_GITEA_URL and ASIL_GITEA_TOKEN are set.
"""

from __future__ import annotations

from typing import Any

import pytest

from asil.adapters.gitea import actions as act
from asil.adapters.gitea.adapter import GiteaAdapter
from asil.adapters.gitea.plans import FUNCTIONS
from asil.adapters.gitea.routes import check_api_call
from asil.adapters.gitea.seed import live_tasks_root, parse_seed
from asil.evaluate.checkpoints import CHECKPOINT_TYPES
from asil.protocol import Action
from asil.tasks import load_tasks, prepare_workspace
from asil.tasks.model import Task

TASKS = load_tasks(root=live_tasks_root())


def test_twenty_tasks_one_infeasible_several_with_two_success_paths() -> None:
    assert len(TASKS) == 20
    assert all(t.id.startswith("gitea-") and t.apps == ["gitea"] and t.suite == "live" for t in TASKS)
    assert sum(not t.feasible for t in TASKS) == 1
    assert sum(len(t.evaluator.paths) > 1 for t in TASKS) >= 2


def test_the_default_loader_does_not_load_them() -> None:
    assert not [t for t in load_tasks() if "gitea" in t.apps]


def _check_static(action: Action) -> None:
    """What the adapter checks before any request: function, params, api_call route and body."""
    if action.action_type == "api_call":
        check_api_call(action.params)
    elif action.action_type == "batch":
        for raw in act.parse_params(act.VOCABULARY.batch_model, action.params, "batch").actions:
            member = Action.model_validate(raw)
            _check_static(member)
            assert FUNCTIONS[str(member.target)].require_handler().undo is not None, "batch members must be undoable"
    elif action.action_type == "invoke_function":
        name = str(action.target)
        act.parse_params(FUNCTIONS[name].params, action.params, name)
    else:
        assert action.is_control


def _seeded_names(seed: dict[str, Any]) -> tuple[set[str], int]:
    labels = {c["params"]["name"] for c in seed["calls"] if c["function"] == "create_label"}
    numbered = sum(c["function"] in ("create_issue", "open_pull_request") for c in seed["calls"])
    return labels, numbered


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_seed_reference_and_checkpoints_are_valid(task: Task) -> None:
    (item,) = task.setup.files
    assert item.kind == "gitea_seed" and item.path.endswith(".gitea")
    parse_seed(item.content, task.id)
    assert task.document_for("gitea") == item.path
    labels, numbered = _seeded_names(item.content)
    for action in task.reference:
        _check_static(action)
        members = [Action.model_validate(a) for a in action.params["actions"]] if action.action_type == "batch" \
            else [action]
        for member in members:  # references name only labels and numbers that exist by then
            if member.target == "create_label":
                labels.add(member.params["name"])
            for name in member.params.get("labels", []):
                assert name in labels, f"{task.id}: label {name!r} does not exist yet"
            assert member.params.get("number", 0) <= numbered, f"{task.id}: no #{member.params.get('number')}"
    for path in task.evaluator.paths:
        for checkpoint in path:
            assert checkpoint.type in CHECKPOINT_TYPES, checkpoint.type


def test_building_a_task_workspace_places_the_checked_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASIL_GITEA_URL", raising=False)  # no server: only the seed file is placed
    workspace = prepare_workspace(TASKS[0])
    try:
        adapter = GiteaAdapter(workspace, "repo.gitea")
        assert adapter.seed is not None and adapter.seed.repository.name == "tracker" and adapter.repo is None
    finally:
        workspace.cleanup()
