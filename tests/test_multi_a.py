"""The multi-a batch of the multi suite: GIMP, Impress, Writer, Blender, Audacity, Kdenlive and OBS together and
with Calc, draw.io and Inkscape. Whether each reference really succeeds (and each untouched state really fails)
is proved by tests/test_tasks.py on the real programs (`-k multi-a-`); this file checks the batch's shape."""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath

import pytest

from asil.tasks import load_tasks
from asil.tasks.model import Task

BATCH = [task for task in load_tasks(suite="multi") if task.id.startswith("multi-a-")]
CREATIVE_AND_OFFICE = ("gimp", "impress", "writer", "blender", "audacity", "kdenlive", "obs")
EXISTING = ("calc", "drawio", "inkscape")
OTHER_BATCH = ("thunderbird", "nautilus", "codeserver", "jupyter")


def _acted_on(task: Task) -> set[str]:
    """The apps the reference sends actions to (navigate included: reading the source app is part of the task)."""
    return {action.app or task.apps[0] for action in task.reference if not action.is_control}


def test_the_batch_covers_its_apps_and_shapes() -> None:
    assert len(BATCH) >= 29
    uses = Counter(app for task in BATCH for app in task.apps)
    assert all(uses[app] >= 5 for app in CREATIVE_AND_OFFICE), uses
    assert set(uses) <= set(CREATIVE_AND_OFFICE + EXISTING), set(uses) & set(OTHER_BATCH)
    assert sum(len(task.apps) >= 3 for task in BATCH) >= 5
    assert any(not task.feasible and task.reference[-1].action_type == "infeasible" for task in BATCH)
    assert sum(len(task.evaluator.paths) > 1 for task in BATCH) >= 2
    assert all(task.budget == 15 and task.suite == "multi" for task in BATCH)


@pytest.mark.parametrize("task", BATCH, ids=lambda t: t.id)
def test_every_setup_file_lives_in_the_folder_of_its_app(task: Task) -> None:
    """The workspace rule: ``<app>/<file>``, so two apps never share a path or a default file name."""
    for item in task.setup.files:
        folder = PurePosixPath(item.path).parts[0]
        assert folder in task.apps and len(PurePosixPath(item.path).parts) >= 2, f"{task.id}: {item.path}"
    for app in task.apps:
        document = task.document_for(app)
        assert document is not None and PurePosixPath(document).parts[0] == app, f"{task.id}: {app} opens {document}"


@pytest.mark.parametrize("task", BATCH, ids=lambda t: t.id)
def test_the_reference_acts_on_two_apps_and_every_path_judges_a_destination(task: Task) -> None:
    acted = _acted_on(task)
    assert acted <= set(task.apps) and len(acted) >= 2, f"{task.id}: the reference acts only on {acted}"
    # the first app is where the information comes from: each way to succeed judges another app's state
    for path in task.evaluator.paths:
        assert {checkpoint.app for checkpoint in path} - {None, task.apps[0]}, f"{task.id}: {path}"
