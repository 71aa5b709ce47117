"""ASIL: agents operate real software through structured state and semantic actions.

Importing this package starts no application and imports no application bindings;
adapters load lazily by name (see ``asil.adapters.registry``).
"""

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
    "parse_action",
]
