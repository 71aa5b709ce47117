"""The multi-b batch of the multi suite: Thunderbird, Nautilus, code-server and Jupyter combined with the
office, diagram and media apps. The real soundness and raw-validator checks of these tasks run in
tests/test_tasks.py (``-k multi-b-``); this file checks the batch's shape: each app keeps its files in its
own folder, each reference acts on two apps or more, and the batch covers the apps it was written for."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from pathlib import PurePosixPath

import pytest

from asil.plugins import app_names, plugin
from asil.tasks import load_tasks
from asil.tasks.model import SetupFile, Task

BATCH = [task for task in load_tasks(suite="multi") if task.id.startswith("multi-b-")]
CARRIED = ("thunderbird", "nautilus", "codeserver", "jupyter")  # the apps this batch is written for


def _acted_on(task: Task) -> set[str]:
    """The apps the reference routes actions to (an action without ``app`` goes to the first app)."""
    return {action.app or task.apps[0] for action in task.reference if not action.is_control}


def _owners(item: SetupFile) -> set[str]:
    """The apps that may own a set-up file: the app whose builder makes its kind, or that opens its type."""
    if item.kind not in ("text", "asset"):
        return {name for name in app_names() if item.kind in plugin(name).builders}
    suffix = PurePosixPath(item.path).suffix.lower()
    by_type = {name for name in app_names() if suffix and suffix in plugin(name).extensions}
    return by_type or set(app_names())  # a plain file (README, .env, .toml) may sit in any app's folder


def test_the_batch_has_at_least_29_tasks_on_the_paper_budget() -> None:
    assert len(BATCH) >= 29
    assert len({task.id for task in BATCH}) == len(BATCH)
    assert all(task.suite == "multi" and task.budget == 15 for task in BATCH)


@pytest.mark.parametrize("task", BATCH, ids=lambda t: t.id)
def test_every_setup_file_lives_in_the_folder_of_the_app_that_owns_it(task: Task) -> None:
    for item in task.setup.files:
        folder = PurePosixPath(item.path).parts[0]
        # a file inside the folder, or the folder itself for a builder that makes a tree (Nautilus's file_tree)
        assert len(PurePosixPath(item.path).parts) >= 2 or item.path == folder, f"{task.id}: {item.path}"
        assert folder in task.apps, f"{task.id}: {item.path} is in no folder of the task's apps"
        assert folder in _owners(item), f"{task.id}: {item.path} ({item.kind}) does not belong to {folder}"
    opened = {app: task.document_for(app) for app in task.apps}
    for app, document in opened.items():
        assert document is None or PurePosixPath(document).parts[0] == app, f"{task.id}: {app} opens {document}"
    named = [document for document in opened.values() if document is not None]
    assert len(named) == len(set(named)), f"{task.id}: two apps open the same file"


@pytest.mark.parametrize("task", BATCH, ids=lambda t: t.id)
def test_the_reference_acts_on_two_apps_or_more(task: Task) -> None:
    assert len(set(task.apps)) == len(task.apps) >= 2
    assert _acted_on(task) <= set(task.apps)
    assert len(_acted_on(task)) >= 2, f"{task.id}: the reference acts only on {_acted_on(task)}"
    assert task.feasible == (task.reference[-1].action_type != "infeasible")


def test_the_batch_covers_its_apps_pairs_and_three_app_tasks() -> None:
    uses = Counter(app for task in BATCH for app in task.apps)
    for app in CARRIED:
        assert uses[app] >= 6, f"{app} is in only {uses[app]} tasks"
    pairs = {pair for task in BATCH for pair in combinations(sorted(task.apps), 2)}
    assert len(pairs) >= 8
    assert sum(len(task.apps) >= 3 for task in BATCH) >= 5
    assert any(not task.feasible for task in BATCH)
    assert sum(len(task.evaluator.paths) > 1 for task in BATCH) >= 2
    # the carried apps meet the office and diagram apps, not only each other
    partners = {app for task in BATCH if set(CARRIED) & set(task.apps) for app in task.apps}
    assert {"calc", "writer", "drawio", "inkscape"} <= partners
    assert all(uses[app] >= 2 for app in ("calc", "writer", "drawio", "inkscape"))
