"""Independent raw validators, one per app: a second read path that judges checkpoints from the
saved files without the adapter, failing closed. Tests run them beside the evaluator and require
the same verdict on every checkpoint of every task (reference end state and untouched state).

Each app registers ``"module:function"``; the function is ``raw_judge(checkpoint, workspace,
outcome, answer) -> bool``. Generic checkpoints (outcome, answer, files) are judged here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint
from asil.evaluate.compare import compare
from asil.workspace import Workspace

RawJudge = Callable[[Checkpoint, Workspace, "str | None", "str | None"], bool]

RAW_VALIDATORS: dict[str, str] = {
    "blender": "asil.adapters.blender.validator:raw_judge",
    "kdenlive": "asil.adapters.kdenlive.validator:raw_judge",
    "gimp": "asil.adapters.gimp.validator:raw_judge",
    "calc": "asil.adapters.calc.validator:raw_judge",
    "codeserver": "asil.adapters.codeserver.validator:raw_judge",
    "drawio": "asil.adapters.drawio.validator:raw_judge",
    "inkscape": "asil.adapters.inkscape.validator:raw_judge",
    "jupyter": "asil.adapters.jupyter.validator:raw_judge",
    "writer": "asil.adapters.writer.validator:raw_judge",
    "impress": "asil.adapters.impress.validator:raw_judge",
    "obs": "asil.adapters.obs.validator:raw_judge",
    "gitea": "asil.adapters.gitea.validator:raw_judge",
    "nautilus": "asil.adapters.nautilus.validator:raw_judge",
    "audacity": "asil.adapters.audacity.validator:raw_judge",
    "thunderbird": "asil.adapters.thunderbird.validator:raw_judge",
}
GENERIC = ("outcome", "answer", "file_exists", "file_absent", "text_regex")


def raw_verdict(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None,
                default_app: str | None = None) -> bool:
    """The raw validator's verdict for one checkpoint (generic types here, app types by registry)."""
    if cp.type in GENERIC:
        return _generic(cp, workspace, outcome, answer)
    app = cp.app or default_app
    if app not in RAW_VALIDATORS:
        return False  # fail closed: no independent reader for this app
    module, _, name = RAW_VALIDATORS[app].partition(":")
    judge: RawJudge = getattr(importlib.import_module(module), name)
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
    return compare(cp.compare or CHECKPOINT_TYPES[cp.type].default_compare, actual, cp.expected, cp.tolerance)
