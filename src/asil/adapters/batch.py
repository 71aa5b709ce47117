"""What the adapters' batches share: which members a batch may hold, and how a member's failure reads.

A batch is all or nothing, so it holds only edits the adapter can undo together: set_value and
invoke_function, minus the functions an app cannot roll back (saving, exporting, running a task).
A member's error names its place ("Batch action 3: ...") and, where the adapter knows, what became
of the rest.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeVar

from asil.protocol import Action, AsilError, InvalidAction, parse_action

EDITS = ("set_value", "invoke_function")
E = TypeVar("E", bound=AsilError)


def batch_member(raw: dict[str, Any], *, hint: str, excluded: Collection[str] = (),
                 allowed: Collection[str] = EDITS) -> Action:
    """Parse one member; refuse, naming it, an action type or function a batch cannot hold."""
    sub = parse_action(raw)
    if sub.action_type not in allowed or (sub.target in excluded and sub.action_type == "invoke_function"):
        what = sub.target if sub.action_type == "invoke_function" else sub.action_type
        raise InvalidAction(f"A batch cannot contain {what}.", hint=hint)
    return sub


def in_batch(exc: E, index: int, outcome: str = "") -> E:
    """``exc`` as the failure of the batch's ``index``-th member, of the same class (callers tell a lost
    program from a refusal by class); ``outcome`` says what became of the batch."""
    message = f"Batch action {index}: {exc.message}" + (f" {outcome}" if outcome else "")
    numbered = type(exc).__new__(type(exc))  # not __init__: some errors take extra arguments (an HTTP status)
    numbered.__dict__.update(exc.__dict__)
    numbered.args, numbered.message = (message,), message
    return numbered
