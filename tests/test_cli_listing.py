"""`asil tasks list` keeps one task per line; `tasks check` names a checkpoint without a target by its type only."""

from __future__ import annotations

import json
from pathlib import Path

from asil.cli import one_line
from asil.evaluate.evaluator import CheckpointVerdict
from asil.runner.check import failed_checkpoint
from asil.tasks import get_task
from tests.conftest import run_cli


def test_one_line_folds_newlines_and_cuts_with_an_ellipsis() -> None:
    assert one_line("Fix the cell:\n\n  print(x)\tthen save.", 70) == "Fix the cell: print(x) then save."
    assert one_line("a" * 80, 10) == "aaaaaaa..." and len(one_line("b " * 60, 70)) == 70


def test_tasks_list_prints_one_line_per_task_even_with_newlines_in_the_instruction(tmp_path: Path) -> None:
    task = json.loads((get_task("calc-total-column").source_dir / "calc-total-column.json").read_text())  # type: ignore[operator]
    task["instruction"] = "First line of the request.\nSecond line\n\nwith a blank line before it."
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / "calc-total-column.json").write_text(json.dumps(task))
    listed = run_cli("tasks", "list", "--tasks-dir", str(tasks_dir))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [listed.stdout.strip()]
    assert "First line of the request. Second line with a blank" in listed.stdout


def test_a_failed_checkpoint_without_a_target_is_named_by_its_type() -> None:
    untargeted = CheckpointVerdict(type="obs_program_scene", target=None, passed=False, required=True, weight=1.0,
                                   actual="Main")
    targeted = untargeted.model_copy(update={"type": "cell_value", "target": "Sheet1!B2", "actual": 3,
                                             "detail": "expected 4"})
    assert failed_checkpoint(untargeted) == "obs_program_scene: got 'Main'"
    assert failed_checkpoint(targeted) == "cell_value Sheet1!B2: got 3 (expected 4)"
