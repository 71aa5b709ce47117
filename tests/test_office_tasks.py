"""The Writer and Impress suites: twenty tasks each, with an infeasible one and multi-path tasks."""

from __future__ import annotations

import pytest

from asil.tasks import load_tasks


@pytest.mark.parametrize("app", ["writer", "impress"])
def test_the_suite_has_twenty_varied_tasks(app: str) -> None:
    tasks = [t for t in load_tasks() if t.apps == [app]]
    assert len(tasks) >= 20
    assert sum(not t.feasible for t in tasks) >= 1
    assert sum(len(t.evaluator.paths) > 1 for t in tasks) >= 2
    functions = {a.target for t in tasks for a in t.reference if a.action_type == "invoke_function"}
    assert len(functions) >= 8  # the references exercise a real spread of the vocabulary
