"""The hard suite's multi-app group (src/asil/tasks/hard/multi/, written by scripts/make_hard_multi_tasks.py): its
shape. Whether each reference really succeeds on the real programs (and each untouched state really fails) is
proved by `asil tasks check --tasks-dir src/asil/tasks/hard/multi` and, once the suite is wired in, by the hard
suite's own test; this file checks the group's counts, coverage and workspace rule without starting an app."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from asil.protocol import Action
from asil.tasks.loader import load_task_file
from asil.tasks.model import Task

FOLDER = Path(str(resources.files("asil.tasks").joinpath("hard", "multi")))  # package data, like the suites
GROUP = [load_task_file(path) for path in sorted(FOLDER.glob("*.json"))]
LIVE_APPS = ("calc", "writer", "impress", "drawio", "inkscape", "jupyter", "blender", "gimp", "kdenlive", "audacity",
             "obs", "thunderbird", "nautilus", "codeserver")


def _meaningful(action: Action | dict[str, Any]) -> int:
    """How many meaningful actions: every non-control action but a read-only navigate; a batch counts its members."""
    kind = action.action_type if isinstance(action, Action) else action["action_type"]
    if kind == "batch":
        params = action.params if isinstance(action, Action) else action["params"]
        return sum(_meaningful(member) for member in params["actions"])
    return 0 if kind in ("navigate", "done", "infeasible") else 1


def _acted_on(task: Task) -> set[str]:
    """The apps the reference changes something in (navigates only read, so they do not count here)."""
    return {action.app or task.apps[0] for action in task.reference if _meaningful(action)}


def test_the_group_has_thirty_hard_multi_app_tasks() -> None:
    assert len(GROUP) == 30
    assert all(task.id.startswith("hard-multi-") and task.suite == "hard" for task in GROUP)
    assert len({task.id for task in GROUP}) == 30
    assert all(len(task.apps) >= 2 for task in GROUP)


def test_every_live_app_is_in_three_tasks_and_ten_tasks_span_three_apps() -> None:
    uses = Counter(app for task in GROUP for app in task.apps)
    assert set(uses) == set(LIVE_APPS), set(LIVE_APPS) ^ set(uses)
    assert min(uses.values()) >= 3, uses
    assert sum(len(task.apps) >= 3 for task in GROUP) >= 10


@pytest.mark.parametrize("task", GROUP, ids=lambda t: t.id)
def test_the_reference_needs_six_to_fifteen_meaningful_actions_on_two_apps(task: Task) -> None:
    count = sum(_meaningful(action) for action in task.reference)
    assert 6 <= count <= 15, f"{task.id}: {count} meaningful actions"
    acted = _acted_on(task)
    assert acted <= set(task.apps) and len(acted) >= 2, f"{task.id}: the reference acts only on {acted}"
    # within the paper's budget of steps (a batch is one step), or the task says why it needs more
    assert len(task.reference) <= task.budget or task.budget_reason, task.id


@pytest.mark.parametrize("task", GROUP, ids=lambda t: t.id)
def test_every_path_judges_three_required_checkpoints_across_two_apps(task: Task) -> None:
    for path in task.evaluator.paths:
        required = [checkpoint for checkpoint in path if checkpoint.required]
        assert len(required) >= 3, f"{task.id}: {len(required)} required checkpoints"
        assert len({checkpoint.app for checkpoint in required} - {None}) >= 2, f"{task.id}: one app judged"


@pytest.mark.parametrize("task", GROUP, ids=lambda t: t.id)
def test_every_setup_file_lives_in_the_folder_of_its_app(task: Task) -> None:
    """The workspace rule: ``<app>/<file>`` (Nautilus's file tree is its folder), so no two apps share a path."""
    for item in task.setup.files:
        parts = PurePosixPath(item.path).parts
        assert parts[0] in task.apps, f"{task.id}: {item.path}"
        assert len(parts) >= 2 or item.kind == "file_tree", f"{task.id}: {item.path}"
    for app in task.apps:
        document = task.document_for(app)
        assert document is not None and PurePosixPath(document).parts[0] == app, f"{task.id}: {app} opens {document}"
