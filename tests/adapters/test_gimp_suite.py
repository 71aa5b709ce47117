"""The GIMP task suite's shape (the tasks themselves are proven sound by tests/test_tasks.py)."""

from __future__ import annotations

from asil.tasks import load_tasks


def test_the_gimp_suite_has_twenty_tasks_with_an_infeasible_one_and_several_paths() -> None:
    tasks = load_tasks(suite="core", app="gimp")  # the multi suite mixes apps
    assert len(tasks) >= 20
    assert sum(not t.feasible for t in tasks) == 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    assert all(f.kind == "image" for t in tasks for f in t.setup.files)
    kinds = {f.path.rsplit(".", 1)[-1] for t in tasks for f in t.setup.files}
    assert kinds == {"png", "xcf"}  # flattened photos and layered documents both covered
