"""The checkpoint types of every generated app, read through its adapter (the generated read paths).

* ``profile_field``: target ``type/id.field`` (``object/O2.label``), the field's value;
* ``profile_exists``: target ``type/id``, whether that element exists;
* ``profile_count``: target ``type``, how many elements of that type there are.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.generated.bundle import load_bundle
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require
from asil.protocol import Element


def split_target(target: str) -> tuple[str, str]:
    """``type/id.field`` -> (``type/id``, ``field``)."""
    element, dot, field = target.rpartition(".")
    if not dot or "/" not in element:
        raise CheckpointUnreadable(f"the target {target!r} is not 'type/id.field'")
    return element, field


def _elements(ctx: EvalContext, cp: Checkpoint) -> list[Element]:
    app = require(cp.app, "app")
    document = cp.document or load_bundle(app).document
    return ctx.adapter(app, document).observe().elements


@checkpoint_type("profile_field")
def read_field(ctx: EvalContext, cp: Checkpoint) -> Any:
    element_id, field = split_target(require(cp.target, "target"))
    for element in _elements(ctx, cp):
        if element.id == element_id:
            values = element.value if isinstance(element.value, dict) else {}
            if field not in values:
                raise CheckpointUnreadable(f"{element_id} has no field {field!r}")
            return values[field]
    raise CheckpointUnreadable(f"there is no element {element_id!r}")


@checkpoint_type("profile_exists")
def read_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    target = require(cp.target, "target")
    return any(element.id == target for element in _elements(ctx, cp))


@checkpoint_type("profile_count")
def read_count(ctx: EvalContext, cp: Checkpoint) -> int:
    kind = require(cp.target, "target")
    return sum(element.type == kind for element in _elements(ctx, cp))
