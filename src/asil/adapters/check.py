"""The conformance checker every registered adapter must pass (one parametrized test runs it).

It checks the contract, not the app: registration, schema, observation shape, that every
published example validates and runs, and that invalid actions change nothing. Where the app takes
``modify_file`` it checks that a successful one is saved at once and that one whose last operation fails
leaves the file byte-for-byte unchanged; where it takes ``api_call`` that the schema publishes the
allowlist and a request outside it is refused, changing nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.adapters.base import UNFORESEEN, Adapter
from asil.plugins import PATTERNS, adapter_class
from asil.protocol import Action, ActionResult, ActionSchema, Observation
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
        file = workspace.resolve(document) if document else None
        for example in schema.examples:
            error = adapter.validate_action(example)
            _expect(error is None, f"{name}: published example {example.model_dump()} is invalid: {error}")
            before_bytes = _bytes(file)
            result = adapter.execute(example)
            _expect(result.ok, f"{name}: published example {example.model_dump()} failed: {result.error}")
            _check_observation(name, cls.pattern, result.observation)
            if example.action_type == "modify_file":
                _check_saved(name, adapter, file, before_bytes)
        if "modify_file" in schema.action_types:
            _check_modify_file(name, adapter, schema, file)
        if "api_call" in schema.action_types:
            _check_api_call(name, adapter, schema)


def _bytes(file: Path | None) -> bytes | None:
    return file.read_bytes() if file is not None and file.is_file() else None


def _check_saved(name: str, adapter: Adapter, file: Path | None, before: bytes | None) -> None:
    """A modify_file that succeeded is on disk at once (one save), nothing left unsaved."""
    _expect(file is not None and _bytes(file) != before, f"{name}: a successful modify_file did not write the file")
    _expect(not adapter.observe().app_state.dirty, f"{name}: the document is dirty after a successful modify_file")


def _check_modify_file(name: str, adapter: Adapter, schema: ActionSchema, file: Path | None) -> None:
    """A modify_file whose last operation fails (when checked, and when applied) changes nothing at all."""
    kinds = schema.modify_file_params.get("$defs", {}).get("Operation", {}).get("properties", {}).get("op", {})
    _expect(bool(kinds.get("enum")), f"{name}: the schema must list modify_file's operation kinds")
    example = next((e for e in schema.examples if e.action_type == "modify_file"), None)
    _expect(example is not None, f"{name}: the schema needs a modify_file example")
    assert example is not None
    good: list[dict[str, Any]] = list(example.params["operations"])
    doomed = [{"op": "no_such_operation_xyz"}]
    if adapter.doomed_operation is not None:
        doomed.append(adapter.doomed_operation)
    for last in doomed:
        operations = [*good, last]
        before, before_bytes = _state(adapter), _bytes(file)
        result = adapter.execute(Action(action_type="modify_file", params={"operations": operations}))
        _expect(not result.ok and result.error is not None, f"{name}: modify_file with a failing {last} succeeded")
        assert result.error is not None
        prefix = f"Operation {len(operations)} ({last['op']})"
        _expect(result.error.message.startswith(prefix),
                f"{name}: a failed modify_file must say {prefix!r}, not {result.error.message!r}")
        _expect(_bytes(file) == before_bytes, f"{name}: a failed modify_file changed the file")
        _expect(_state(adapter) == before, f"{name}: a failed modify_file changed the document")


def _check_api_call(name: str, adapter: Adapter, schema: ActionSchema) -> None:
    """The schema publishes the allowlist; a request outside it is refused and changes nothing."""
    _expect(bool(schema.api_calls) and bool(schema.api_call_params), f"{name}: the schema must publish api_call")
    _expect(any(e.action_type == "api_call" for e in schema.examples), f"{name}: the schema needs an api_call example")
    refused = [{"request": "NoSuchRequestXyz"}]
    refused += [{"request": request} for request, spec in schema.api_calls.items() if spec.destructive][:1]
    for params in refused:  # outside the allowlist; destructive without consent
        before = _state(adapter)
        result = adapter.execute(Action(action_type="api_call", params=params))
        _expect(result.status == "invalid" and result.error is not None, f"{name}: api_call {params} was not refused")
        _expect(_state(adapter) == before, f"{name}: a refused api_call changed the state")
    if adapter.doomed_api_call is not None:
        before = _state(adapter)
        result = adapter.execute(Action(action_type="api_call", params=adapter.doomed_api_call))
        _expect(not result.ok and result.error is not None, f"{name}: {adapter.doomed_api_call} did not fail")
        _expect(_state(adapter) == before, f"{name}: a failed api_call changed the state")


def _check_observation(name: str, pattern: str, observation: Observation | None) -> None:
    _expect(isinstance(observation, Observation), f"{name}: observe() must return an Observation")
    assert observation is not None
    _expect(observation.metadata.app == name, f"{name}: metadata.app is {observation.metadata.app!r}")
    _expect(observation.metadata.source == SOURCE_OF_PATTERN[pattern], f"{name}: metadata.source mismatches pattern")
    ids = [e.id for e in observation.elements]
    _expect(len(ids) == len(set(ids)), f"{name}: element ids must be unique")
    _expect(bool(observation.summary), f"{name}: the observation needs a summary")
    Observation.model_validate_json(observation.model_dump_json())  # round-trips as JSON


def check_step(adapter: Adapter, action: Action) -> ActionResult:
    """Execute one action, perhaps a hostile one, and raise ConformanceError if a promise broke.

    The promises: ``execute`` never raises; its result is ok, invalid or error, and a refusal or a
    failure says why; an invalid or failed action changes neither the observable state nor the
    document on disk (byte for byte); the observation afterwards is well formed.
    """
    name = adapter.name
    before = _state(adapter)
    document = _document_bytes(adapter)
    try:
        result = adapter.execute(action)
    except Exception as exc:
        raise ConformanceError(f"{name}: execute raised {type(exc).__name__}: {exc} for {action.model_dump()}") from exc
    _expect(result.ok == (result.status == "ok"), f"{name}: ok={result.ok} but status={result.status!r}")
    _check_observation(name, adapter.pattern, result.observation)
    if not result.ok:
        _expect(result.error is not None and bool(result.error.message), f"{name}: {result.status} without a reason")
        assert result.error is not None
        # execute turned an exception no AsilError described into data: the safety net held, the adapter has a bug
        _expect(result.error.code != UNFORESEEN, f"{name}: {result.error.message} for {action.model_dump()}")
        assert result.observation is not None
        _expect(_document_bytes(adapter) == document,
                f"{name}: a {result.status} action changed the document on disk: {action.model_dump()}")
        after = result.observation.to_agent_dict()
        after["metadata"].pop("step")
        recorded = result.status == "error" and result.error.code in adapter.recorded_failures
        _expect(recorded or json.dumps(after, sort_keys=True) == before,
                f"{name}: a {result.status} action ({result.error.message}) changed the state "
                f"({_difference(json.loads(before), after)}): {action.model_dump()}")
    return result


def _difference(before: Any, after: Any, where: str = "") -> str:
    """Where two JSON values first differ, for the failure message."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                return _difference(before.get(key), after.get(key), f"{where}.{key}")
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if old != new:
                return _difference(old, new, f"{where}[{index}]")
    return f"{where or 'the observation'}: {json.dumps(before)[:120]} -> {json.dumps(after)[:120]}"


def _document_bytes(adapter: Adapter) -> bytes | None:
    """The document's bytes on disk (None when the adapter has none, or it is a folder)."""
    if adapter.document is None:
        return None
    path = adapter.workspace.resolve(adapter.document)
    return path.read_bytes() if path.is_file() else None
