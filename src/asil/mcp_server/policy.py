"""What a served workspace allows: read-only mode and the destructive-action gate.

Destructiveness comes from the app's action schema (``FunctionSpec.destructive``), so a new
adapter declares its dangerous functions once and every server honours them, inside batches too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from asil.protocol import Action, ActionSchema, InvalidAction, parse_action

# Actions that move the view or end the conversation; they never change a document.
VIEW_ONLY = frozenset({"navigate", "done", "infeasible"})


class Refused(InvalidAction):
    """The server's policy forbids the action; nothing was changed."""

    code = "refused"


@dataclass(frozen=True)
class ServePolicy:
    read_only: bool = False
    allow_destructive: bool = False


def destructive_functions(action: Action, schema: ActionSchema) -> list[str]:
    """Names of the destructive functions (or api_call requests) an action would run, looking inside batches
    and modify_file operations."""
    if action.action_type == "invoke_function":
        spec = schema.functions.get(action.target or "")
        return [str(action.target)] if spec is not None and spec.destructive else []
    if action.action_type == "modify_file":
        kinds = [op.get("op") for op in _sub_actions(action.params.get("operations")) if isinstance(op, dict)]
        return [str(kind) for kind in kinds if (spec := schema.functions.get(str(kind))) is not None and spec.destructive]
    if action.action_type == "api_call":
        request = str(action.params.get("request") or "")
        spec = schema.api_calls.get(request)
        return [request] if spec is not None and spec.destructive else []
    if action.action_type == "batch":
        found: list[str] = []
        for raw in _sub_actions(action.params.get("actions")):
            try:
                sub = parse_action(raw)
            except InvalidAction:
                continue  # the adapter refuses the malformed sub-action with its own message
            found += destructive_functions(sub, schema)
        return found
    return []


def _sub_actions(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def enforce(policy: ServePolicy, action: Action, schema: ActionSchema) -> None:
    """Raise Refused if the policy forbids the action."""
    if policy.read_only and action.action_type not in VIEW_ONLY:
        raise Refused(f"This server is read-only (--read-only), so {action.action_type} actions are refused.",
                      hint="Only navigate, done and infeasible work here; observe, validate and render are open.",
                      code="read_only")
    names = sorted(set(destructive_functions(action, schema)))
    if names and not policy.allow_destructive:
        verb = "is a destructive function" if len(names) == 1 else "are destructive functions"
        raise Refused(f"{', '.join(names)} {verb}, and this server was started without --allow-destructive.",
                      hint="Reach the goal without it (e.g. clear_range instead of delete_rows), or ask the user "
                      "to restart the server with --allow-destructive.", code="destructive_refused")
