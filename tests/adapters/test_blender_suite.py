"""The Blender task suite's shape (the tasks themselves are proven sound by tests/test_tasks.py)."""

from __future__ import annotations

from asil.tasks import load_tasks


def test_the_blender_suite_has_twenty_tasks_with_an_infeasible_one_and_several_paths() -> None:
    tasks = load_tasks(suite="core", app="blender")  # the multi suite mixes apps
    assert len(tasks) >= 20
    assert sum(not t.feasible for t in tasks) == 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    renders = [t for t in tasks if any(a.target == "render_frame" for a in t.reference)]
    assert len(renders) == 1  # rendering is the slow part: keep it to one tiny render
    assert all(f.kind == "blend" for t in tasks for f in t.setup.files)
