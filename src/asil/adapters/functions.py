"""The declarative spine of an adapter: its function table and its action vocabulary.

An app function is declared once, as an :class:`AppFunction` in the app's :class:`FunctionTable`:
its name, parameter model, what it acts on, whether it is destructive, whether a batch may hold
it, its handler (the app's planner or applier), examples and tips. A :class:`Vocabulary` adds the
rest of what an agent is told (action types, target format, set_value and navigate parameters,
general examples and tips). From the two the :class:`~asil.adapters.base.Adapter` base class derives
the published :class:`~asil.protocol.ActionSchema`, the "unknown function" error with its
suggestions, parameter validation, batch membership and the "unsupported action" error; an adapter
writes by hand only what is really its own (reading state, applying an operation).

This is a public data structure: generated adapters (interface profiles compiled by the
ASILization pipeline) produce exactly these two objects. Example::

    FUNCTIONS = FunctionTable("calc")
    FUNCTIONS.add(AppFunction("delete_rows", RowSpan, "Delete rows starting at a row.", destructive=True,
                              acts_on="rows", handler=plan_delete_rows))
    VOCABULARY = Vocabulary(app="calc", action_types=("set_value", "invoke_function", "batch", "done", "infeasible"),
                            target_format="set_value: a cell like Sheet1!B3; invoke_function: a function name")
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar

from pydantic import Field

from asil.adapters.batch import EDITS, batch_member, in_batch
from asil.adapters.modify import modify_params, modify_schema
from asil.adapters.params import Params, finish_tip, parse_params
from asil.protocol import Action, ActionSchema, ActionType, FunctionSpec, InvalidAction
from asil.registry import Registry

H = TypeVar("H")
T = TypeVar("T")
CONTROL = ("done", "infeasible")


@dataclass(frozen=True)
class AppFunction(Generic[H]):
    """One semantic function of an app.

    Attributes:
        name: what ``invoke_function`` names as its target.
        params: the strict pydantic model of its parameters.
        description: one sentence for the agent.
        destructive: it loses data that cannot be restored from the app (shown in the schema).
        acts_on: the kind of element it changes ("cells", "sheet", "file", "scene"), for readers and tools.
        batch: whether a batch may hold it (saving, exporting or running a job cannot be rolled back).
        handler: the app's planner or applier for it; the adapter decides its signature.
        examples: example actions that call it, appended to the vocabulary's examples in the schema.
        tips: tips specific to it, appended to the vocabulary's tips.
    """

    name: str
    params: type[Params]
    description: str
    destructive: bool = False
    acts_on: str = ""
    batch: bool = True
    handler: H | None = None
    examples: tuple[dict[str, Any], ...] = ()
    tips: tuple[str, ...] = ()

    def spec(self) -> FunctionSpec:
        return FunctionSpec(description=self.description, params=self.params.model_json_schema(),
                            destructive=self.destructive)

    def parse(self, params: dict[str, Any]) -> Any:
        """The validated params; InvalidAction naming the bad field and the valid ones otherwise."""
        return parse_params(self.params, params, self.name)

    def require_handler(self) -> H:
        """The handler; a function declared without one (run by the adapter itself) here is a bug in the table."""
        if self.handler is None:
            raise TypeError(f"the function {self.name!r} was declared without a handler")
        return self.handler


class UnknownFunction(InvalidAction):
    code = "unknown_function"


class FunctionTable(Registry[AppFunction[H]]):
    """An app's functions by name, in declaration order (the schema lists them in that order).

    Args:
        app: how error messages name the app ("calc", "GIMP", "notebook").
    """

    def __init__(self, app: str, functions: Iterable[AppFunction[H]] = ()):
        super().__init__(f"{app} function", error=UnknownFunction)
        self.app = app
        for function in functions:
            self.add(function.name, function)

    def function(self, name: str, params: type[Params], description: str, **options: Any) -> Callable[[H], H]:
        """Decorator: declare a function whose handler is the decorated callable."""

        def wrap(handler: H) -> H:
            self.add(name, AppFunction(name, params, description, handler=handler, **options))
            return handler

        return wrap

    def require(self, name: str | None) -> AppFunction[H]:
        """The function ``name``; an error listing the functions (closest first) otherwise."""
        if name is None or name not in self:
            close = difflib.get_close_matches(name or "", self.names(), n=3, cutoff=0.6)
            suggestion = f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            raise UnknownFunction(f"Unknown {self.app} function {name!r}.",
                                  hint=f"{suggestion}Functions: {', '.join(self.names())}.")
        return self[name]

    def parse(self, name: str | None, params: dict[str, Any]) -> tuple[AppFunction[H], Any]:
        """The function and its validated params."""
        function = self.require(name)
        return function, function.parse(params)

    def specs(self) -> dict[str, FunctionSpec]:
        return {name: self[name].spec() for name in self.names()}

    def batch_excluded(self) -> tuple[str, ...]:
        return tuple(name for name in self.names() if not self[name].batch)

    def examples(self) -> list[dict[str, Any]]:
        return [example for name in self.names() for example in self[name].examples]

    def tips(self) -> list[str]:
        return [tip for name in self.names() for tip in self[name].tips]


class NoNavigate(Params):
    """Apps whose whole state fits one observation take no navigate params."""


def navigate_page(max_limit: int) -> type[Params]:
    """The common navigate params: a page of the element list (``offset``, ``limit`` up to ``max_limit``)."""

    class Navigate(Params):
        offset: Annotated[int, Field(ge=0)] | None = None
        limit: Annotated[int, Field(ge=1, le=max_limit)] | None = None

    return Navigate


def batch_params(max_actions: int) -> type[Params]:
    """The batch params: a list of member actions (raw dicts, each parsed as an Action)."""

    class Batch(Params):
        actions: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=max_actions)]

    return Batch


EVERY_ACTION_TYPE: tuple[ActionType, ...] = ("set_value", "invoke_function", "navigate", "batch", "done", "infeasible")
# A file-backed app's action types: the common ones and modify_file (its operations applied atomically, one save).
FILE_ACTION_TYPES: tuple[ActionType, ...] = ("set_value", "invoke_function", "modify_file", "navigate", "batch",
                                             "done", "infeasible")
MODIFY_FILE_TIP = ("modify_file applies a list of operations to the document in one step, all or nothing, with one "
                   "save: {\"operations\": [{\"op\": FUNCTION, \"params\": {...}}, {\"op\": \"set_value\", "
                   "\"target\": ID, \"params\": {...}}]}. Each operation is checked exactly like that function or "
                   "set_value; if one fails, the file is unchanged and the error names it (index and kind).")
FINISH_EXAMPLE = {"action_type": "done", "params": {"answer": "optional text answer"}}


@dataclass(frozen=True)
class Vocabulary:
    """What an app accepts beyond its functions; with the function table it is the published schema.

    Attributes:
        app: the app's name.
        target_format: how targets are written, per action type.
        action_types: the action types it takes (``done`` and ``infeasible`` included).
        set_value_params, navigate_params: the params models of those action types (when taken).
        batch_members: the action types a batch may hold.
        batch_hint: what the agent is told when a batch holds something else.
        max_batch: the most actions a batch may hold.
        examples, tips: shown to the agent before the functions' own.
        finish: how the closing tip narrows "cannot be done" ("in OBS"); the schema always ends with
            an example of ``done`` and that tip (``asil.adapters.params.finish_tip``).
        api_call_params, api_calls: a service app's api_call params model and its allowlist as published
            (``asil.adapters.api.with_api`` sets both). modify_file's params and operation kinds are derived
            from the function table (``asil.adapters.modify``).
    """

    app: str
    target_format: str
    action_types: tuple[ActionType, ...] = EVERY_ACTION_TYPE
    set_value_params: type[Params] | None = None
    navigate_params: type[Params] | None = None
    batch_members: tuple[str, ...] = EDITS
    batch_hint: str = "Put only set_value and invoke_function actions in a batch."
    max_batch: int = 200
    examples: Sequence[dict[str, Any]] = ()
    tips: Sequence[str] = ()
    finish: str = ""
    api_call_params: type[Params] | None = None
    api_calls: Mapping[str, FunctionSpec] = field(default_factory=dict)
    batch_model: type[Params] = field(init=False)
    modify_model: type[Params] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch_model", batch_params(self.max_batch))
        object.__setattr__(self, "modify_model", modify_params(self.max_batch))

    def schema(self, functions: FunctionTable[Any]) -> ActionSchema:
        return ActionSchema(
            app=self.app,
            action_types=list(self.action_types),
            target_format=self.target_format,
            functions=functions.specs(),
            set_value_params=self.set_value_params.model_json_schema() if self.set_value_params else {},
            navigate_params=self.navigate_params.model_json_schema() if self.navigate_params else {},
            modify_file_params=modify_schema(self, functions) if "modify_file" in self.action_types else {},
            api_call_params=self.api_call_params.model_json_schema() if self.api_call_params else {},
            api_calls=dict(self.api_calls),
            examples=[Action.model_validate(e) for e in [*self.examples, *functions.examples(), FINISH_EXAMPLE]],
            tips=[*self.tips, *functions.tips(), finish_tip(self.finish)],
        )

    def require_type(self, action: Action) -> None:
        """InvalidAction (unsupported_action) for an action type this app does not take."""
        if action.action_type not in self.action_types:
            raise InvalidAction(f"The {self.app} adapter does not support {action.action_type} actions.",
                                hint=f"Use {', '.join(self.action_types)}.", code="unsupported_action")

    def parse_navigate(self, action: Action) -> Any:
        return parse_params(self.navigate_params or NoNavigate, action.params, "navigate")

    def parse_set_value(self, action: Action) -> Any:
        return parse_params(self.set_value_params or NoNavigate, action.params, "set_value")

    def members(self, action: Action, functions: FunctionTable[Any], parse: Callable[[Action], T]) -> list[T]:
        """``parse`` the action itself, or each member of a batch in order; a member's error names its place."""
        if action.action_type != "batch":
            return [parse(action)]
        parsed = []
        for index, member in enumerate(self.batch(action, functions), start=1):
            try:
                parsed.append(parse(member))
            except InvalidAction as exc:
                raise in_batch(exc, index) from None
        return parsed

    def invocations(self, action: Action, functions: FunctionTable[H]) -> list[tuple[AppFunction[H], Any]]:
        """(function, parsed params) of an invoke_function action, or of each member of a batch of them."""
        self.require_type(action)
        return self.members(action, functions, lambda member: functions.parse(member.target, member.params))

    def batch(self, action: Action, functions: FunctionTable[Any]) -> list[Action]:
        """The members of a batch action, each parsed and allowed here; errors name the member's place."""
        raws = parse_params(self.batch_model, action.params, "batch").actions
        members = []
        for index, raw in enumerate(raws, start=1):
            try:
                members.append(batch_member(raw, hint=self.batch_hint, excluded=functions.batch_excluded(),
                                            allowed=self.batch_members))
            except InvalidAction as exc:
                raise in_batch(exc, index) from None
        return members
