"""Tool descriptions written from the action schemas, so a model needs no other documentation."""

from __future__ import annotations

import json
from typing import Any

from asil.mcp_server.policy import ServePolicy
from asil.protocol import ActionSchema

INSTRUCTIONS = (
    "ASIL serves the documents of one folder (the workspace) through their real applications. "
    "Name documents by their path inside the workspace, e.g. 'budget.ods'; the documents tool lists them. "
    "observe shows structured state (a window of it for large documents), act changes it and saves the file, "
    "validate checks an action without running it, schema gives every action with its parameters, "
    "render returns a picture of the current view."
)


def policy_note(policy: ServePolicy) -> str:
    if policy.read_only:
        return "This server is READ-ONLY: act accepts only navigate, done and infeasible."
    if policy.allow_destructive:
        return "Destructive functions (marked [destructive]) are allowed on this server; use them with care."
    return "Functions marked [destructive] are refused on this server (it runs without --allow-destructive)."


def observe_description(schemas: dict[str, ActionSchema]) -> str:
    return (
        "Observe a document: JSON with metadata, app_state (view, document, dirty), elements (each with a stable "
        "id such as 'Sheet1!B3', type, value, data_type and meta like formula or display), navigation (views, "
        "paging {offset, limit, total}) and a one-line summary. Large documents are windowed: pass view (e.g. a "
        "sheet name) and offset/limit (first row, number of rows) to page, or act with a navigate action. "
        f"Served apps: {_apps_line(schemas)}."
    )


def act_description(schemas: dict[str, ActionSchema], policy: ServePolicy) -> str:
    parts = [
        "Apply one action to a document, or a list of actions as one atomic batch (all or nothing). The document "
        "is saved after every successful call. An action is "
        '{"action_type": ..., "target": ..., "params": {...}}. The result has ok, status (ok | invalid | error), '
        "error {code, message, hint}, changed element ids and the new observation. An invalid action changes nothing.",
        policy_note(policy),
    ]
    parts += [app_guide(schema) for schema in schemas.values()]
    return "\n\n".join(parts)


def validate_description() -> str:
    return ("Check an action (same format as act, a list means a batch) against the document's current state and "
            "this server's policy without running it. Returns {valid: true} or {valid: false, error: {...}}.")


def schema_description(schemas: dict[str, ActionSchema]) -> str:
    return ("The full action schema of an app as JSON: action types, target format, the JSON Schema of every "
            f"function's params, examples and tips. Served apps: {_apps_line(schemas)}.")


def render_description() -> str:
    return ("A PNG picture of the document's current view, drawn by the real application (for Calc: the sheet "
            "window observe shows, with grid and row/column headers). Pass view/offset to move the window first.")


def documents_description() -> str:
    return "List the documents in the workspace that the served apps can open, with the app for each."


def app_guide(schema: ActionSchema) -> str:
    """Everything a model needs to act in one app: types, targets, functions, examples, tips."""
    lines = [f"## {schema.app}", f"action types: {', '.join(schema.action_types)}", f"target: {schema.target_format}"]
    if schema.set_value_params:
        lines.append(f"set_value params: {_signature(schema.set_value_params)}")
    if schema.functions:
        lines.append("functions (action_type invoke_function, target = the name; ? = optional):")
        for name, spec in schema.functions.items():
            mark = " [destructive]" if spec.destructive else ""
            lines.append(f"- {name}({_signature(spec.params)}){mark}: {spec.description}")
    if schema.navigate_params:
        lines.append(f"navigate params: {_signature(schema.navigate_params)}")
    lines.append("examples:")
    lines += [json.dumps(example.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False)
              for example in schema.examples]
    lines.append("tips:")
    lines += [f"- {tip}" for tip in schema.tips]
    return "\n".join(lines)


def _signature(params: dict[str, Any]) -> str:
    required = set(params.get("required", []))
    return ", ".join(name if name in required else f"{name}?" for name in params.get("properties", {}))


def _apps_line(schemas: dict[str, ActionSchema]) -> str:
    return ", ".join(schemas)
