"""The ASIL protocol: observations, actions, results and action schemas (pydantic v2).

These models are contracts (see DESIGN.md): their JSON Schemas are committed in
``schemas/`` and a test fails when the two drift apart.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = "1.0"

ActionType = Literal[
    "set_value",
    "invoke_function",
    "modify_file",
    "api_call",
    "navigate",
    "batch",
    "done",
    "infeasible",
]
CONTROL_ACTIONS = ("done", "infeasible")
Source = Literal["file", "script", "service"]
Status = Literal["ok", "invalid", "error"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Element(_Strict):
    """One addressable piece of application state (a cell, a shape, a message...)."""

    id: str = Field(description="Stable id, unchanged by edits elsewhere, e.g. 'Sheet1!B3'.")
    type: str
    label: str | None = None
    value: Any = None
    editable: bool = True
    data_type: str | None = None
    constraints: dict[str, Any] = Field(default_factory=dict)
    actions: list[str] = Field(default_factory=list)
    children: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)


class Metadata(_Strict):
    app: str
    source: Source
    protocol_version: str = PROTOCOL_VERSION
    step: int = 0


class AppState(_Strict):
    view: str | None = None
    active_document: str | None = None
    document_path: str | None = None
    dirty: bool = False
    details: dict[str, Any] = Field(default_factory=dict)


class Paging(_Strict):
    offset: int = Field(ge=0)
    limit: int = Field(ge=0)
    total: int = Field(ge=0)


class Navigation(_Strict):
    views: list[str] = Field(default_factory=list)
    paging: Paging | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class Observation(_Strict):
    """What an agent sees: the six fields of the ASIL observation."""

    metadata: Metadata
    app_state: AppState
    elements: list[Element] = Field(default_factory=list)
    environment: dict[str, Any] = Field(default_factory=dict)
    navigation: Navigation = Field(default_factory=Navigation)
    summary: str = ""

    def to_agent_dict(self) -> dict[str, Any]:
        """Compact JSON form for prompts: elements drop fields left at their defaults."""
        data = self.model_dump(mode="json", exclude={"elements"})
        data["elements"] = [e.model_dump(mode="json", exclude_defaults=True) for e in self.elements]
        return data

    def digest(self) -> str:
        """Identifies the observed state: equal digests mean nothing visible changed (the step counter aside)."""
        data = self.to_agent_dict()
        data["metadata"].pop("step", None)
        text = json.dumps(data, sort_keys=True)
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class Action(_Strict):
    """One semantic action. ``batch`` carries sub-actions in ``params.actions``."""

    action_type: ActionType
    target: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    app: str | None = Field(None, description="the application this action is for, in multi-app tasks; "
                            "the task's first app when omitted")

    @property
    def is_control(self) -> bool:
        return self.action_type in CONTROL_ACTIONS


class ActionError(_Strict):
    code: str
    message: str
    hint: str | None = None


class ActionResult(_Strict):
    ok: bool
    status: Status
    error: ActionError | None = None
    changed: list[str] = Field(default_factory=list)
    output: str | None = Field(None, description="text a channel printed (e.g. the bash channel's stdout)")
    observation: Observation | None = None
    latency_ms: float = 0.0


class FunctionSpec(_Strict):
    """One semantic function of an app: what it does and the JSON Schema of its params."""

    description: str
    params: dict[str, Any]
    destructive: bool = False


class ActionSchema(_Strict):
    """What an app accepts: action types, target format, functions, examples and tips."""

    app: str
    action_types: list[ActionType]
    target_format: str
    functions: dict[str, FunctionSpec] = Field(default_factory=dict)
    set_value_params: dict[str, Any] = Field(default_factory=dict)
    navigate_params: dict[str, Any] = Field(default_factory=dict)
    modify_file_params: dict[str, Any] = Field(
        default_factory=dict, description="JSON Schema of modify_file's params; its 'op' enum lists the operation kinds.")
    api_call_params: dict[str, Any] = Field(default_factory=dict, description="JSON Schema of api_call's params.")
    api_calls: dict[str, FunctionSpec] = Field(
        default_factory=dict, description="The allowlist of api_call: each request it may make, destructive ones marked.")
    examples: list[Action] = Field(default_factory=list)
    tips: list[str] = Field(default_factory=list)


class AsilError(Exception):
    """Base of the errors ASIL hands back as data; ``code`` is machine readable."""

    code = "error"

    def __init__(self, message: str, hint: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code:
            self.code = code

    def to_error(self) -> ActionError:
        return ActionError(code=self.code, message=self.message, hint=self.hint)


class InvalidAction(AsilError):
    """The action is malformed or not allowed; nothing was changed."""

    code = "invalid_action"


class ActionFailed(AsilError):
    """A valid action failed while running; the state was restored."""

    code = "action_failed"


class DocumentError(AsilError):
    """A document cannot be read (corrupted, wrong format, missing)."""

    code = "bad_document"


class AppUnavailable(AsilError):
    """The real application an adapter needs is missing or would not start."""

    code = "app_unavailable"


def bash_action(command: str, timeout_s: float = 30.0) -> Action:
    """How a step on the ``bash`` execution channel is recorded: an ``invoke_function`` of ``bash``."""
    return Action(action_type="invoke_function", target="bash", params={"command": command, "timeout_s": timeout_s})


def parse_action(data: Any) -> Action:
    """Parse a JSON string or dict into an Action, raising InvalidAction with one clear sentence."""
    from pydantic import ValidationError

    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InvalidAction(
                f"The action is not valid JSON ({exc.msg} at position {exc.pos}).",
                hint='Send an object like {"action_type": "set_value", "target": "Sheet1!A1", "params": {"value": 1}}.',
                code="malformed_json",
            ) from None
    if not isinstance(data, dict):
        raise InvalidAction(
            f"An action must be a JSON object, not {type(data).__name__}.",
            hint='Send {"action_type": ..., "target": ..., "params": {...}}.',
        )
    try:
        return Action.model_validate(data)
    except ValidationError as exc:
        raise InvalidAction(_describe(exc), hint=_ACTION_HINT) from None


_ACTION_HINT = (
    "action_type is one of set_value, invoke_function, modify_file, api_call, navigate, batch, "
    "done, infeasible; target is a string; params is an object."
)


def _describe(exc: Any) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "action"
    if first["type"] == "literal_error":
        return f"Unknown action_type {first.get('input')!r}."
    if first["type"] == "extra_forbidden":
        return f"Unknown field {where!r} in the action."
    return f"Bad field {where!r} in the action: {first['msg']}."
