"""Independent raw validators, one per app: a second read path that judges checkpoints from the
saved files without the adapter, failing closed. Tests run them beside the evaluator and require
the same verdict on every checkpoint of every task (reference end state and untouched state).

Each app's plugin record names its validator (``AppPlugin.validator``, ``"module:function"``): a
function ``raw_judge(checkpoint, workspace, outcome, answer) -> bool``. Generic checkpoints (outcome,
answer, files) are judged here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.plugins import APPS, plugin
from asil.registry import load_target
from asil.workspace import Workspace

RawJudge = Callable[[Checkpoint, Workspace, "str | None", "str | None"], bool]

GENERIC = ("outcome", "answer", "file_exists", "file_absent", "text_regex")


def raw_verdict(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None,
                default_app: str | None = None) -> bool:
    """The raw validator's verdict for one checkpoint (generic types here, app types by registry)."""
    if cp.type in GENERIC:
        return _generic(cp, workspace, outcome, answer)
    app = cp.app or default_app
    validator = plugin(app).validator if app is not None and app in APPS else None
    if validator is None:
        return False  # fail closed: no independent reader for this app
    judge: RawJudge = load_target(validator)
    return judge(cp, workspace, outcome, answer)


def _generic(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None) -> bool:
    path = Path(workspace.root, str(cp.target))
    actual: object
    try:
        if cp.type == "outcome":
            actual = outcome
        elif cp.type == "answer":
            actual = answer
        elif cp.type == "file_exists":
            actual = path.is_file()
        elif cp.type == "file_absent":
            actual = not path.exists()
        else:
            actual = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)
