"""ASIL: agents operate real software through structured state and semantic actions.

Importing this package starts no application and imports no application bindings or optional
extras (MCP, Gymnasium); adapters load lazily by name (see ``asil.plugins``) and the
functions below import what they need when called.

    >>> import asil
    >>> asil.parse_action('{"action_type": "done"}').is_control
    True
"""

import sys
import types

from asil.api import evaluate, get_task, load_tasks, open, run_episode
from asil.protocol import (
    PROTOCOL_VERSION,
    Action,
    ActionResult,
    ActionSchema,
    Element,
    Observation,
    parse_action,
)

__version__ = "0.1.0"

__all__ = [
    "PROTOCOL_VERSION",
    "Action",
    "ActionResult",
    "ActionSchema",
    "Element",
    "Observation",
    "__version__",
    "evaluate",
    "get_task",
    "load_tasks",
    "open",
    "parse_action",
    "run_episode",
]


class _Package(types.ModuleType):
    """``asil.evaluate`` is the public function. Importing the subpackage ``asil.evaluate`` would
    rebind the attribute to that module; keep the function (the subpackage stays importable by name)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "evaluate" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
