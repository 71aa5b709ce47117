"""``api_call`` for service apps: a request in the program's own API vocabulary, checked against an allowlist.

Each app declares an :class:`ApiAllowlist` of :class:`ApiRequest` entries: the request's name as the
program knows it (an obs-websocket request type, a D-Bus method, a VS Code configuration call ...), a
strict model of its data, whether it only reads, and whether it is destructive. The schema publishes the
allowlist (``api_calls``) and the shape of the action (``api_call_params``). A request outside the
allowlist is refused with one sentence naming what is allowed; a destructive request needs
``"destructive": true``; the data is checked before the program sees anything.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import Field

from asil.adapters.functions import Vocabulary
from asil.adapters.params import NoParams, Params, parse_params
from asil.protocol import Action, ActionType, FunctionSpec, InvalidAction

H = TypeVar("H")
RESPONSE_CHARS = 4000  # an api_call's answer is returned in ActionResult.output, cut to this length


class ApiCall(Params):
    request: str = Field(description="The request's name in the program's own API (see api_calls in the schema).")
    data: dict[str, Any] = Field(default_factory=dict, description="The request's data, as that API names it.")
    destructive: bool = Field(False, description="Must be true for requests api_calls marks destructive: they "
                              "cannot be undone.")


@dataclass(frozen=True)
class ApiRequest(Generic[H]):
    """One request api_call may make.

    Attributes:
        name: the request as the program's API names it.
        description: one sentence for the agent.
        data: the strict model of its data.
        reads: it only reads (nothing is changed, nothing needs saving or undoing).
        destructive: it loses what cannot be restored.
        handler: what the adapter runs for it; the adapter decides its signature.
    """

    name: str
    description: str
    data: type[Params] = NoParams
    reads: bool = False
    destructive: bool = False
    handler: H | None = None

    def spec(self) -> FunctionSpec:
        what = "Reads only. " if self.reads else ""
        return FunctionSpec(description=what + self.description, params=self.data.model_json_schema(),
                            destructive=self.destructive)

    def require_handler(self) -> H:
        if self.handler is None:
            raise TypeError(f"the api_call request {self.name!r} was declared without a handler")
        return self.handler


@dataclass
class ApiAllowlist(Generic[H]):
    """The requests an app's api_call may make, in the order the schema lists them.

    Args:
        app: how refusals name the app ("OBS").
        api: what the requests are ("obs-websocket requests").
    """

    app: str
    api: str
    requests: dict[str, ApiRequest[H]] = field(default_factory=dict)

    def add(self, request: ApiRequest[H]) -> None:
        self.requests[request.name] = request

    def extend(self, requests: Iterable[ApiRequest[H]]) -> None:
        for request in requests:
            self.add(request)

    def specs(self) -> dict[str, FunctionSpec]:
        return {name: request.spec() for name, request in self.requests.items()}

    def check(self, action: Action) -> tuple[ApiRequest[H], Any]:
        """The allowed request and its checked data; InvalidAction with one sentence otherwise."""
        call = parse_params(ApiCall, action.params, "api_call")
        if action.target not in (None, "", call.request):
            raise InvalidAction(f"The api_call target {action.target!r} differs from its request {call.request!r}.",
                                hint="Leave the target out or repeat the request's name.")
        request = self.requests.get(call.request)
        if request is None:
            raise InvalidAction(f"{call.request!r} is not allowed: {self.app}'s api_call makes only these "
                                f"{self.api}: {', '.join(self.requests)}.", code="not_allowed",
                                hint="The schema's api_calls lists each with its data.")
        if request.destructive and not call.destructive:
            raise InvalidAction(f"{call.request} is destructive (it cannot be undone), so api_call makes it only "
                                'with "destructive": true.', code="needs_consent",
                                hint="Add \"destructive\": true to the params if that is really wanted.")
        return request, parse_params(request.data, call.data, call.request)


def response_text(answer: Any) -> str:
    """An answer as the JSON text ActionResult.output carries (cut to RESPONSE_CHARS)."""
    return json.dumps(answer, sort_keys=True, default=str)[:RESPONSE_CHARS]


def with_api(vocabulary: Vocabulary, specs: Mapping[str, FunctionSpec], *, examples: Sequence[dict[str, Any]],
             tips: Sequence[str], params: type[Params] = ApiCall) -> Vocabulary:
    """``vocabulary`` taking api_call too: its params model, the allowlist ``specs``, and examples and tips."""
    types: tuple[ActionType, ...] = (*(t for t in vocabulary.action_types if t not in ("api_call", "done", "infeasible")),
                                     "api_call", "done", "infeasible")
    return dataclasses.replace(
        vocabulary, action_types=types, api_call_params=params,
        api_calls=dict(specs), examples=[*vocabulary.examples, *examples], tips=[*vocabulary.tips, *tips])
