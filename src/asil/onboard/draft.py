"""The model-assisted path: write paths drafted from prose evidence, in the profile's declarative form.

When a profile's evidence includes prose (``evidence.prose``, a text file describing what users do),
a model reads the prose and the reviewed format description or
OpenAPI operations, and answers with write paths that only *choose*: attributes the format marks
writable (``sets``), or ``operation`` ids of the OpenAPI document. The model never sets resources,
code, templates or XPaths; every drafted entry is marked ``origin: model``, the merged profile must
pass the schema, and the audit refuses a drafted entry that carries anything else. The draft is
printed for review before it is compiled.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from asil.llm.base import Provider
from asil.onboard.profile import ProfileError, schema_errors

DRAFT_KIND = "onboard_draft"
ALLOWED_KEYS = {"name", "description", "kind", "element", "sets", "operation", "destructive", "example"}


def choices(profile: dict[str, Any], base: Path) -> dict[str, Any]:
    """What the model may choose from: writable attributes per element kind, or OpenAPI operation ids."""
    evidence = profile["evidence"]
    if evidence["kind"] == "xml-format":
        kinds = evidence["format"]["kinds"]
        return {"attributes": {kind: sorted(n for n, a in spec["attributes"].items() if "format" in a)
                               for kind, spec in kinds.items()}}
    if evidence["kind"] == "openapi":
        doc = yaml.safe_load((base / evidence["openapi"]).read_text(encoding="utf-8"))
        ops = [op["operationId"] for methods in doc.get("paths", {}).values() for op in methods.values()
               if isinstance(op, dict) and "operationId" in op]
        return {"operations": sorted(ops)}
    raise ProfileError("Only xml-format and openapi evidence can be drafted from prose.",
                       hint="Write a script runtime's statement templates yourself; a model may not.")


def prompt(profile: dict[str, Any], prose: str, options: dict[str, Any]) -> list[dict[str, str]]:
    form = ('{"write_paths": [{"name": "snake_case", "description": "one sentence", "kind": "set" | "delete" '
            '(xml) or omit (openapi), "element": "an element kind", "sets": {"attribute": {"type": "string"}} (xml set) '
            'or "operation": "an operation id" (openapi), "destructive": true | false, "example": {params}}]}')
    system = ("You turn documentation of an application's interface into ASIL write paths. Answer with one JSON "
              f"object only, of this form: {form}. Choose only from: {json.dumps(options)}. Mark every operation "
              "that deletes or overwrites data destructive.")
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Application: {profile['title']} ({profile['pattern']}).\n\n{prose}"}]


def _json_object(text: str) -> dict[str, Any]:
    found = re.search(r"\{.*\}", text, re.S)
    try:
        data = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("write_paths"), list):
        raise ProfileError("The model's draft is not a JSON object with a 'write_paths' list.",
                           hint="Try again, or write the write paths yourself.")
    return data


def draft_profile(profile: dict[str, Any], base: Path, provider: Provider) -> dict[str, Any]:
    """The profile with model-drafted write paths (each ``origin: model``) after its reviewed ones, validated."""
    evidence = profile["evidence"]
    if "prose" not in evidence:
        raise ProfileError("The profile has no prose evidence to draft from.", hint="Set evidence.prose to a text file.")
    prose = (base / evidence["prose"]).read_text(encoding="utf-8")
    options = choices(profile, base)
    reply = provider.complete(prompt(profile, prose, options), DRAFT_KIND, context={"choices": options})
    drafted = []
    for item in _json_object(reply.text)["write_paths"]:
        if not isinstance(item, dict):
            raise ProfileError("A drafted write path is not an object.")
        # Keys outside the declarative choices are kept, so the audit can refuse them by name.
        drafted.append({**item, "origin": "model"})
    reviewed = profile.get("write_paths", [])
    taken = {w["name"] for w in reviewed}
    merged = {**profile, "write_paths": [*reviewed, *(d for d in drafted if d.get("name") not in taken)]}
    errors = schema_errors(merged)
    if errors:
        raise ProfileError(f"The model's draft does not follow the interface-profile schema: {errors[0]}.")
    return merged


def scripted_reply(provider: object, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """The ``scripted`` provider's draft: one ``set`` write path per writable attribute (a stand-in model)."""
    attributes = context.get("choices", {}).get("attributes", {})
    paths = [{"name": f"set_{kind}_{name}", "description": f"Set the {name} of a {kind}.", "kind": "set",
              "element": kind, "sets": {name: {"type": "string"}}, "destructive": False}
             for kind, names in attributes.items() for name in names]
    return {"write_paths": paths}
