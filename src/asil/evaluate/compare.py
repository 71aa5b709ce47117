"""Comparators: how a checkpoint's actual value is held against its expected value."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import regex as regex_engine

from asil.registry import Registry

Comparator = Callable[[Any, Any, float], bool]
COMPARATORS: Registry[Comparator] = Registry("comparator")
comparator = COMPARATORS.register


class ComparisonFailed(Exception):
    """A comparator could not judge (an unsafe or too slow regex): the checkpoint fails with this sentence."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _squash(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"\s+", "", value).casefold()
    if isinstance(value, list):
        return [_squash(v) for v in value]
    return value


@comparator("exact")
def exact(actual: Any, expected: Any, tolerance: float) -> bool:
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(exact(a, e, tolerance) for a, e in zip(actual, expected, strict=False))
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(exact(actual[k], expected[k], tolerance) for k in expected)
    if _is_number(actual) and _is_number(expected):
        return bool(actual == expected)
    return type(actual) is type(expected) and bool(actual == expected)


@comparator("approx")
def approx(actual: Any, expected: Any, tolerance: float) -> bool:
    """Numbers within ``tolerance`` (absolute); lists element by element; other values exactly."""
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(approx(a, e, tolerance) for a, e in zip(actual, expected, strict=False))
    if _is_number(actual) and _is_number(expected):
        return math.isfinite(actual) and abs(actual - expected) <= tolerance
    return exact(actual, expected, tolerance)


@comparator("normalized")
def normalized(actual: Any, expected: Any, tolerance: float) -> bool:
    """Case- and whitespace-insensitive text comparison (numbers compare approximately)."""
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(normalized(a, e, tolerance) for a, e in zip(actual, expected, strict=False))
    if isinstance(actual, str) and isinstance(expected, str):
        return bool(_squash(actual) == _squash(expected))
    return approx(actual, expected, tolerance)


# A quantified group that itself holds a quantifier, e.g. (a+)+ or (\w+\s?)*: a backtracking regex engine can
# take exponential time on such patterns, so a task regex that has one is refused, not run.
NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*(?:[+*]|\{\d*,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,\d*\})")
REGEX_SUBJECT_LIMIT = 1_000_000  # characters searched at most
# The static check above cannot catch every slow pattern ((a|aa)+$ is one it lets through), so every search
# also runs under the `regex` package's time limit: no checkpoint can hang an episode or `asil tasks check`.
REGEX_TIMEOUT_S = 2.0


def check_regex(pattern: str) -> None:
    """Raise ValueError naming the problem if ``pattern`` does not compile or could backtrack without end."""
    try:
        regex_engine.compile(pattern)
    except regex_engine.error as exc:
        raise ValueError(f"the regex {pattern!r} does not compile ({exc})") from None
    if NESTED_QUANTIFIER.search(pattern):
        raise ValueError(f"the regex {pattern!r} repeats a group that itself repeats (like (a+)+), which can "
                         "take exponential time; quantify the inner part once")


@comparator("regex")
def regex(actual: Any, expected: Any, tolerance: float) -> bool:
    """``expected`` is found in ``actual``; an unsafe pattern, or one slower than REGEX_TIMEOUT_S, fails the check."""
    if not isinstance(actual, str) or not isinstance(expected, str):
        return False
    try:
        check_regex(expected)
    except ValueError as exc:
        raise ComparisonFailed(f"The checkpoint fails: {exc}.") from None
    subject = actual[:REGEX_SUBJECT_LIMIT]
    try:
        return regex_engine.search(expected, subject, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        raise ComparisonFailed(
            f"The checkpoint fails: the regex {expected!r} was stopped after {REGEX_TIMEOUT_S:g} s on "
            f"{len(subject)} characters (it backtracks too much); write it without nested or overlapping repeats."
        ) from None


@comparator("contains")
def contains(actual: Any, expected: Any, tolerance: float) -> bool:
    if isinstance(actual, str) and isinstance(expected, str):
        return _squash(expected) in _squash(actual)
    if isinstance(actual, list):
        return any(exact(item, expected, tolerance) for item in actual)
    return False


@comparator("range")
def numeric_range(actual: Any, expected: Any, tolerance: float) -> bool:
    """``expected`` is ``[low, high]`` (inclusive); either end may be null."""
    if not _is_number(actual) or not isinstance(expected, list) or len(expected) != 2:
        return False
    low, high = expected
    return (low is None or actual >= low) and (high is None or actual <= high)


@comparator("set")
def set_equal(actual: Any, expected: Any, tolerance: float) -> bool:
    if not isinstance(actual, list) or not isinstance(expected, list):
        return False
    return sorted(map(repr, actual)) == sorted(map(repr, expected))


def judge_value(name: str, actual: Any, expected: Any, tolerance: float) -> tuple[bool, str | None]:
    """Whether ``actual`` passes against ``expected``, and why not when the comparator could not judge.

    Fails closed: a comparator that raises fails the check with the reason, never the whole evaluation.
    """
    try:
        return bool(COMPARATORS[name](actual, expected, tolerance)), None
    except ComparisonFailed as exc:
        return False, str(exc)
    except Exception as exc:  # a comparator's bug or a value it did not expect costs this check only
        return False, f"The checkpoint fails: the {name!r} comparison raised {type(exc).__name__}: {exc}."


def compare(name: str, actual: Any, expected: Any, tolerance: float) -> bool:
    return judge_value(name, actual, expected, tolerance)[0]
