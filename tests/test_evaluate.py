"""Evaluator semantics on generic checkpoints (no application needed)."""

import pytest

from asil.evaluate import Checkpoint, evaluate_paths
from asil.evaluate import compare as comparing
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, EvalContext, checkpoint_type
from asil.evaluate.compare import COMPARATORS, check_regex, compare, judge_value
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
    assert compare("regex", "a" * 50 + "!", pattern, 0.0) is False
    passed, why = judge_value("regex", "a" * 50 + "!", pattern, 0.0)
    assert not passed and why is not None and "repeats a group that itself repeats" in why


def test_safe_regexes_still_compile_and_match() -> None:
    checkpoint = Checkpoint(type="cell_formula", target="A1", expected=r"^=SUM\(B\d+:B\d+\)$", compare="regex")
    assert COMPARATORS["regex"]("=SUM(B1:B9)", checkpoint.expected, 0.0)
    with pytest.raises(ValueError, match="does not compile"):
        Checkpoint(type="text_regex", target="notes.txt", expected="(unclosed")


# (a|aa)+$ has no nested repeat, so the static check lets it through, yet on a long run of "a" and a
# final "!" a backtracking engine tries every way to split the run: exponential time.
SLOW = r"^(a|aa)+$"


def test_a_pathological_regex_is_stopped_and_fails_its_checkpoint_with_a_reason(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    check_regex(SLOW)  # not refused statically: only the time limit catches it
    monkeypatch.setattr(comparing, "REGEX_TIMEOUT_S", 0.2)
    workspace.write_bytes("notes.txt", ("a" * 60 + "!").encode())
    result = evaluate_paths([[Checkpoint(type="text_regex", target="notes.txt", expected=SLOW),
                              Checkpoint(type="file_exists", target="notes.txt", expected=True, required=False)]],
                            workspace)
    slow, other = result.checkpoints
    assert slow.passed is False and "was stopped after 0.2 s on 61 characters" in (slow.detail or "")
    assert other.passed is True  # the other checkpoint is still judged
    assert compare("regex", "a" * 60 + "!", SLOW, 0.0) is False  # raw validators fail closed too
    assert compare("regex", "aaaa", SLOW, 0.0) is True  # a short subject is still judged normally


def test_an_exception_inside_one_checkpoint_fails_only_that_checkpoint(workspace: Workspace) -> None:
    @checkpoint_type("broken_reader_for_test")
    def broken(ctx: EvalContext, cp: Checkpoint) -> object:
        return {"x": 1}["y"]  # a reader's bug

    @comparing.comparator("broken_comparator_for_test")
    def broken_compare(actual: object, expected: object, tolerance: float) -> bool:
        raise TypeError("cannot compare these")

    try:
        workspace.write_bytes("notes.txt", b"hello")
        result = evaluate_paths([[
            Checkpoint(type="broken_reader_for_test", expected=1),
            Checkpoint(type="text_regex", target="notes.txt", expected="hel+o", compare="broken_comparator_for_test"),
            Checkpoint(type="text_regex", target="notes.txt", expected="hel+o"),
        ]], workspace)
    finally:
        CHECKPOINT_TYPES.remove("broken_reader_for_test")
        COMPARATORS.remove("broken_comparator_for_test")
    reader, comparison, fine = result.checkpoints
    assert not reader.passed and reader.detail == "Reading the checkpoint failed: KeyError: 'y'."
    assert not comparison.passed and "raised TypeError: cannot compare these" in (comparison.detail or "")
    assert fine.passed and fine.detail is None
