"""What model-driven agents show a model: compact action schemas and observations, and templates."""

from __future__ import annotations

import base64
import json
from importlib import resources
from string import Template
from typing import Any

from asil.protocol import ActionSchema, Observation

SCHEMA_DETAILS = ("full", "compact")


def schema_text(schemas: dict[str, ActionSchema], detail: str = "full") -> str:
    """Each app's actions in a few lines: functions with their parameters, examples, tips.

    ``detail="compact"`` keeps the functions (name, parameters, one-line description) and two examples and drops
    the other examples and the tips: about a third of the tokens, for small local models whose server reads
    ~150-300 prompt tokens a second (docs/agents.md)."""
    if detail not in SCHEMA_DETAILS:
        raise ValueError(f"schema detail must be one of {', '.join(SCHEMA_DETAILS)}, not {detail!r}.")
    parts = [_app_text(app, schema, detail == "compact") for app, schema in schemas.items()]
    if len(schemas) > 1:  # multi-app tasks: Env.step routes each action by its "app" field
        parts.insert(0, f"This task uses several apps ({', '.join(schemas)}): give every action an \"app\" field "
                        f"naming the app it acts on, e.g. {{\"app\": \"{next(iter(schemas))}\", \"action_type\": ...}}; "
                        "without it the action goes to the first app.")
    return "\n\n".join(parts)


def _app_text(app: str, schema: ActionSchema, compact: bool) -> str:
    lines = [f"App {app}: action types {', '.join(schema.action_types)}. Targets: {schema.target_format}."]
    if schema.set_value_params:
        lines.append(f"- set_value params: {_params(schema.set_value_params)}")
    if compact and schema.functions:
        lines.append("invoke_function targets (name {params}: what it does):")
        lines += [f"- {name} {_params(spec.params)}: {spec.description}" for name, spec in schema.functions.items()]
    else:
        lines += [f"- invoke_function {name}: {spec.description} params: {_params(spec.params)}"
                  for name, spec in schema.functions.items()]
    lines.append("Examples:")
    lines += ["  " + e.model_dump_json(exclude_defaults=True) for e in schema.examples[: 2 if compact else None]]
    if not compact:
        lines.append("Tips:")
        lines += [f"  - {tip}" for tip in schema.tips]
    return "\n".join(lines)


def _params(json_schema: dict[str, Any]) -> str:
    required = set(json_schema.get("required", []))
    fields = []
    for name in json_schema.get("properties", {}):
        fields.append(f"{name}{'' if name in required else '?'}")
    return "{" + ", ".join(fields) + "}"


def observation_text(observation: Observation) -> str:
    return compact_json(observation.to_agent_dict())


def state_text(observation: Observation) -> str:
    """The observation without its step counter: the same state gives the same text, so a prompt that puts it
    before what changes every step keeps a local server's prompt cache over it while the state stands still."""
    data = observation.to_agent_dict()
    data["metadata"].pop("step", None)
    return compact_json(data)


def compact_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def observation_changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What changed from one observation (``to_agent_dict``) to the next: elements by id (new and changed ones
    in full, removed ones by id) and every other field whose value changed. The step counter is no change.
    An empty dict means nothing visible changed."""
    changes: dict[str, Any] = {}
    old = {e["id"]: e for e in before.get("elements", [])}
    new = {e["id"]: e for e in after.get("elements", [])}
    changed = [e for key, e in new.items() if old.get(key) != e]
    if changed:
        changes["elements"] = changed
    removed = [key for key in old if key not in new]
    if removed:
        changes["removed_elements"] = removed
    for field in after.keys() - {"elements"}:
        was, now = before.get(field), after[field]
        if field == "metadata":
            was, now = {**(was or {}), "step": 0}, {**now, "step": 0}
        if was != now:
            changes[field] = now
    return changes


def render(package: str, name: str, **values: Any) -> str:
    """Fill a prompt template shipped as package data (``$name`` placeholders)."""
    text = resources.files(package).joinpath("prompts", name).read_text(encoding="utf-8")
    return Template(text).substitute({k: str(v) for k, v in values.items()})


def action_json_schema(schemas: dict[str, ActionSchema], extra_types: tuple[str, ...] = ()) -> dict[str, Any]:
    """One action's JSON Schema (its type limited to the apps' action types), for constrained decoding."""
    types = sorted({t for schema in schemas.values() for t in schema.action_types} | set(extra_types))
    properties: dict[str, Any] = {"action_type": {"type": "string", "enum": types},
                                  "target": {"type": ["string", "null"]}, "params": {"type": "object"}}
    if len(schemas) > 1:  # multi-app tasks route each action by its "app"
        properties["app"] = {"type": "string", "enum": sorted(schemas)}
    return {"type": "object", "required": ["action_type"], "properties": properties}


def image_part(png: bytes) -> dict[str, Any]:
    """An OpenAI chat content part holding a PNG picture (a screenshot, or an app's render)."""
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}
