"""One fuzz step against a real app: the conformance checker's promises plus the committed JSON Schemas and
the workspace boundary. Shared by tests/fuzz/ and benchmarks/fuzz_soak.py."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import HealthCheck, settings

from asil.adapters.base import Adapter
from asil.adapters.check import ConformanceError, check_step
from asil.protocol import ActionResult, InvalidAction, parse_action
from tests.fuzz.strategies import ESCAPE_NAME

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"

# The suite's budget: bounded, reproducible (derandomized, no example database), no per-example deadline
# (a real program's first call can take seconds). benchmarks/fuzz_soak.py runs many more.
FUZZ = settings(max_examples=20, deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
# Apps whose every action costs a second or more get fewer examples in the suite.
EXAMPLES = {"default": 20, "audacity": 12, "thunderbird": 12, "gimp": 15}


def examples_for(app: str) -> int:
    return EXAMPLES.get(app, EXAMPLES["default"])


@cache
def committed_schema(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    validator: jsonschema.protocols.Validator = jsonschema.Draft202012Validator(schema)
    return validator


def _json_safe(value: Any) -> Any:
    """NaN and infinities as JSON writes them (null), so the JSON Schema sees what a client would."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    return value


def escaped(adapter: Adapter) -> list[Path]:
    """Files a path trick would have made outside the workspace."""
    outside = [adapter.workspace.root.parent, Path("/tmp")]
    return [p for folder in outside for p in folder.glob(f"{ESCAPE_NAME}*")]


def fuzz_step(adapter: Adapter, raw: dict[str, Any]) -> ActionResult | None:
    """Run one drawn action (None when it is not even an Action); raise ConformanceError on a broken promise."""
    try:
        action = parse_action(raw)
    except InvalidAction:
        return None  # refused before it reaches the adapter, as every client's parse_action does
    result = check_step(adapter, action)
    errors = sorted(committed_schema("action_result").iter_errors(_json_safe(result.model_dump(mode="json"))),
                    key=str)
    if errors:
        raise ConformanceError(f"{adapter.name}: the result breaks schemas/action_result.schema.json: {errors[0].message}")
    if escaped(adapter):
        raise ConformanceError(f"{adapter.name}: {raw} wrote outside the workspace: {escaped(adapter)}")
    return result


def still_answers(adapter: Adapter) -> None:
    """The program is alive and answering: a fresh observation that the committed schema accepts."""
    observation = adapter.observe()
    errors = list(committed_schema("observation").iter_errors(_json_safe(observation.model_dump(mode="json"))))
    if errors or observation.metadata.app != adapter.name:
        raise ConformanceError(f"{adapter.name}: the last observation is not well formed: {errors[:1]}")
