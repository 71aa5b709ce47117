"""The hard suite's office, developer and files-mail groups: their size and how hard each task is.

Each group is loaded task file by task file (``loader.load_task_file``) from
``src/asil/tasks/hard/<group>/``. Whether each reference really succeeds and each untouched state
really fails is proven by ``asil tasks check --tasks-dir`` and by the hard suite's own soundness test,
not here: these tests read the task files only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.protocol import Action
from asil.tasks.bands import meaningful_actions as counted_actions
from asil.tasks.loader import load_task_file, task_files
from asil.tasks.model import DEFAULT_BUDGET, Task

HARD_ROOT = Path(__file__).resolve().parent.parent / "src" / "asil" / "tasks" / "hard"
# The ASIL paper's Appendix A composition of these three groups of the 80-task hard suite.
GROUP_SIZES = {"office": 12, "developer": 8, "files-mail": 6}
GROUP_APPS = {"office": {"calc", "writer", "impress", "drawio"}, "developer": {"codeserver", "jupyter"},
              "files-mail": {"nautilus", "thunderbird"}}
MIN_ACTIONS, MAX_ACTIONS = 6, 15
MIN_REQUIRED_CHECKPOINTS = 3


def group_tasks(group: str) -> list[Task]:
    return [load_task_file(path) for path in task_files(HARD_ROOT / group)]


def meaningful_actions(actions: list[Action]) -> int:
    """Actions that change something: a batch counts its members; done, infeasible and the read-only
    navigate do not count (the suite's one rule, ``asil.tasks.bands.meaningful_actions``)."""
    return len(counted_actions(actions))


ALL = [(group, task) for group in GROUP_SIZES for task in group_tasks(group)]


def test_meaningful_actions_counts_batch_members_and_skips_control_and_navigate() -> None:
    actions = [Action.model_validate(a) for a in [
        {"action_type": "navigate", "target": "Sheet1", "params": {}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "A"}},
            {"action_type": "invoke_function", "target": "add_sheet", "params": {"name": "B"}}]}},
        {"action_type": "set_value", "target": "Sheet1!A1", "params": {"value": 1}},
        {"action_type": "done", "params": {}}]]
    assert meaningful_actions(actions) == 3


@pytest.mark.parametrize("group", GROUP_SIZES)
def test_each_group_has_its_share_of_the_hard_suite(group: str) -> None:
    tasks = group_tasks(group)
    assert len(tasks) == GROUP_SIZES[group], [t.id for t in tasks]
    assert all(t.suite == "hard" for t in tasks)
    assert all(len(t.apps) == 1 and t.apps[0] in GROUP_APPS[group] for t in tasks), [t.apps for t in tasks]


def test_every_group_covers_each_of_its_apps_and_ids_are_unique() -> None:
    for group, apps in GROUP_APPS.items():
        assert {t.apps[0] for t in group_tasks(group)} == apps
    ids = [task.id for _, task in ALL]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(("group", "task"), ALL, ids=lambda v: v.id if isinstance(v, Task) else v)
def test_the_reference_needs_six_to_fifteen_meaningful_actions(group: str, task: Task) -> None:
    count = meaningful_actions(task.reference)
    assert MIN_ACTIONS <= count <= MAX_ACTIONS, f"{task.id}: {count} meaningful actions"


@pytest.mark.parametrize(("group", "task"), ALL, ids=lambda v: v.id if isinstance(v, Task) else v)
def test_every_success_path_checks_the_deliverable_with_three_or_more_required_checkpoints(group: str,
                                                                                            task: Task) -> None:
    for path in task.evaluator.paths:
        required = [cp for cp in path if cp.required]
        assert len(required) >= MIN_REQUIRED_CHECKPOINTS, f"{task.id}: {len(required)} required checkpoints"
        assert len({(cp.type, cp.target) for cp in required}) > 1, f"{task.id} checks one field only"


@pytest.mark.parametrize(("group", "task"), ALL, ids=lambda v: v.id if isinstance(v, Task) else v)
def test_the_reference_fits_the_budget_and_a_longer_budget_says_why(group: str, task: Task) -> None:
    assert task.feasible
    assert len(task.reference_steps()) <= task.budget, f"{task.id}: the reference takes more steps than its budget"
    assert task.budget == DEFAULT_BUDGET or (task.budget > DEFAULT_BUDGET and task.budget_reason)
