"""The conformance checker every registered adapter must pass (one parametrized test runs it).

It checks the contract, not the app: registration, schema, observation shape, that every
published example validates and runs, and that invalid actions change nothing.
"""

from __future__ import annotations

import json

from asil.adapters.base import Adapter
from asil.plugins import PATTERNS, adapter_class
from asil.protocol import Action, ActionSchema, Observation
from asil.workspace import Workspace

SOURCE_OF_PATTERN = {"file": "file", "script": "script", "service": "service"}
BAD_ACTIONS = [
    Action(action_type="invoke_function", target="no_such_function_xyz", params={}),
    Action(action_type="set_value", target="\x00nowhere", params={"value": 1}),
    Action(action_type="batch", params={"actions": [{"action_type": "bogus"}]}),
]


class ConformanceError(AssertionError):
    pass


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def _state(adapter: Adapter) -> str:
    """The observable state, without the step counter (which every action advances)."""
    data = adapter.observe().to_agent_dict()
    data["metadata"].pop("step")
    return json.dumps(data, sort_keys=True)


def check_adapter(name: str, workspace: Workspace) -> None:
    """Raise ConformanceError describing the first broken promise of adapter ``name``."""
    cls = adapter_class(name)
    _expect(cls.name == name, f"class registered as {name!r} says its name is {cls.name!r}")
    _expect(cls.pattern in PATTERNS, f"{name}: pattern {cls.pattern!r} is not one of {PATTERNS}")
    schema = cls.action_schema()
    _expect(isinstance(schema, ActionSchema) and schema.app == name, f"{name}: schema() is not its ActionSchema")
    _expect(bool(schema.examples) and bool(schema.tips), f"{name}: the schema needs examples and tips")
    _expect(set(schema.action_types) >= {"done", "infeasible"}, f"{name}: done/infeasible must be accepted")
    document = cls.create_sample(workspace)
    with cls(workspace, document) as adapter:
        _check_observation(name, cls.pattern, adapter.observe())
        for bad in BAD_ACTIONS:
            before = _state(adapter)
            _expect(adapter.validate_action(bad) is not None, f"{name}: accepted invalid action {bad}")
            result = adapter.execute(bad)
            _expect(result.status == "invalid" and result.error is not None, f"{name}: {bad} was not invalid")
            _expect(_state(adapter) == before, f"{name}: an invalid action changed the state")
        for example in schema.examples:
            error = adapter.validate_action(example)
            _expect(error is None, f"{name}: published example {example.model_dump()} is invalid: {error}")
            result = adapter.execute(example)
            _expect(result.ok, f"{name}: published example {example.model_dump()} failed: {result.error}")
            _check_observation(name, cls.pattern, result.observation)


def _check_observation(name: str, pattern: str, observation: Observation | None) -> None:
    _expect(isinstance(observation, Observation), f"{name}: observe() must return an Observation")
    assert observation is not None
    _expect(observation.metadata.app == name, f"{name}: metadata.app is {observation.metadata.app!r}")
    _expect(observation.metadata.source == SOURCE_OF_PATTERN[pattern], f"{name}: metadata.source mismatches pattern")
    ids = [e.id for e in observation.elements]
    _expect(len(ids) == len(set(ids)), f"{name}: element ids must be unique")
    _expect(bool(observation.summary), f"{name}: the observation needs a summary")
    Observation.model_validate_json(observation.model_dump_json())  # round-trips as JSON
