"""Evaluator semantics on generic checkpoints (no application needed)."""

import pytest

from asil.evaluate import Checkpoint, evaluate_paths
from asil.evaluate.compare import COMPARATORS, compare
from asil.workspace import Workspace


@pytest.mark.parametrize(("name", "actual", "expected", "result"), [
    ("exact", 3, 3.0, True),
    ("exact", "3", 3, False),
    ("exact", True, 1, False),
    ("approx", 0.1 + 0.2, 0.3, True),
    ("approx", [[1.0000001, "a"]], [[1, "a"]], True),
    ("approx", 1.01, 1, False),
    ("normalized", "  Grand  TOTAL ", "grand total", True),
    ("normalized", "=sum( b2:b9 )", "=SUM(B2:B9)", True),
    ("normalized", "total", "totals", False),
    ("regex", "=SUM(B2:B9)", r"^=SUM\(B2:B\d+\)$", True),
    ("regex", None, ".*", False),
    ("contains", "Net profit margin", "PROFIT", True),
    ("contains", ["a", "b"], "b", True),
    ("contains", "abc", "d", False),
    ("range", 5, [1, 10], True),
    ("range", 11, [None, 10], False),
    ("range", "5", [1, 10], False),
    ("set", ["b", "a"], ["a", "b"], True),
    ("set", ["B", "a"], ["A", "b"], False),
    ("set", ["a"], ["a", "a"], False),
])
def test_comparators(name: str, actual: object, expected: object, result: bool) -> None:
    assert compare(name, actual, expected, 1e-6) is result


def test_score_is_best_weighted_share_and_success_needs_required_checkpoints(workspace: Workspace) -> None:
    workspace.write_bytes("report.txt", b"Total: 42\n")
    path_a = [
        Checkpoint(type="file_exists", target="report.txt", expected=True, weight=1),
        Checkpoint(type="text_regex", target="report.txt", expected=r"Total: 43", weight=3),
    ]
    path_b = [
        Checkpoint(type="text_regex", target="report.txt", expected=r"Total: \d+"),
        Checkpoint(type="file_exists", target="summary.txt", expected=True, required=False),
    ]
    result = evaluate_paths([path_a, path_b], workspace)
    assert [p.score for p in result.paths] == [0.25, 0.5]
    assert [p.success for p in result.paths] == [False, True]
    assert result.success and result.score == 0.5 and result.best_path == 1


def test_unreadable_state_fails_closed(workspace: Workspace) -> None:
    result = evaluate_paths([[
        Checkpoint(type="text_regex", target="missing.txt", expected="x"),
        Checkpoint(type="file_absent", target="../escape.txt", expected=True),
        Checkpoint(type="no_such_type", target="x", expected=1),
    ]], workspace)
    verdicts = result.checkpoints
    assert not result.success and result.score == 0
    assert "does not exist" in (verdicts[0].detail or "")
    assert "climbs out" in (verdicts[1].detail or "")
    assert "unknown checkpoint type" in (verdicts[2].detail or "")


def test_outcome_checkpoints_read_how_the_episode_ended(workspace: Workspace) -> None:
    path = [[Checkpoint(type="outcome", expected="infeasible")]]
    assert evaluate_paths(path, workspace, outcome="infeasible").success
    assert not evaluate_paths(path, workspace, outcome="done").success
    assert not evaluate_paths(path, workspace, outcome=None).success


def test_unknown_comparators_are_rejected_when_the_task_loads() -> None:
    with pytest.raises(ValueError, match="unknown comparator"):
        Checkpoint(type="cell_value", target="A1", expected=1, compare="fuzzy")


@pytest.mark.parametrize("pattern", ["(a+)+$", r"(\w+\s?)*done", "(?:x*)*y", "(ab{1,3})+"])
def test_a_regex_that_could_backtrack_without_end_is_refused_in_the_task_and_fails_closed(pattern: str) -> None:
    with pytest.raises(ValueError, match="repeats a group that itself repeats"):
        Checkpoint(type="text_regex", target="notes.txt", expected=pattern)
    assert COMPARATORS["regex"]("a" * 50 + "!", pattern, 0.0) is False


def test_safe_regexes_still_compile_and_match() -> None:
    checkpoint = Checkpoint(type="cell_formula", target="A1", expected=r"^=SUM\(B\d+:B\d+\)$", compare="regex")
    assert COMPARATORS["regex"]("=SUM(B1:B9)", checkpoint.expected, 0.0)
    with pytest.raises(ValueError, match="does not compile"):
        Checkpoint(type="text_regex", target="notes.txt", expected="(unclosed")
