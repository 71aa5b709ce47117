"""Parameter models for semantic functions: strict pydantic, one clear sentence on bad input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from asil.protocol import FunctionSpec, InvalidAction


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class NoParams(Params):
    """A function that takes no parameters."""


def finish_tip(extra: str = "") -> str:
    """The schema tip every app gives on ending an episode; ``extra`` narrows "cannot be done" (e.g. "in OBS")."""
    where = f" {extra}" if extra else ""
    return ('Finish with {"action_type": "done"}, or {"action_type": "infeasible", "params": {"reason": ...}} '
            f"when the request cannot be done{where}.")


def parse_params(model: type[Params], params: dict[str, Any], what: str) -> Any:
    """Validate params against a model; raise InvalidAction naming the field and what is valid."""
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        first = exc.errors()[0]
        parts = [str(p) for p in first["loc"] if not _is_type_tag(p)]
        where = ".".join(parts) or "params"
        allowed = ", ".join(model.model_fields)
        if len(parts) < len(first["loc"]):  # a union: name the field, not pydantic's member tag
            message = f"Parameter {where!r} of {what} has the wrong type ({first['msg'].removeprefix('Input should be ')})."
        elif first["type"] == "extra_forbidden":
            message = f"{what} does not take the parameter {where!r}."
        elif first["type"] == "missing":
            message = f"{what} needs the parameter {where!r}."
        elif not first["loc"]:  # a check across several parameters (a model validator)
            message = f"The parameters of {what} are wrong: {first['msg'].removeprefix('Value error, ')}."
        else:
            message = f"Parameter {where!r} of {what} is wrong: {first['msg']}."
        raise InvalidAction(message, hint=f"Parameters of {what}: {allowed or 'none'}.", code="bad_params") from None


def _is_type_tag(part: object) -> bool:
    return isinstance(part, str) and (part in {"float", "int", "str", "bool", "none"} or "[" in part)


Functions = Mapping[str, tuple[type[Params], str, bool]]  # name -> (params model, description, destructive)


def parse_function(app: str, functions: Functions, name: str | None, params: dict[str, Any]) -> Any:
    """The parsed params of the function ``name``; InvalidAction naming the known functions otherwise."""
    if name is None or name not in functions:
        raise InvalidAction(f"Unknown {app} function {name!r}.", hint=f"Functions: {', '.join(functions)}.",
                            code="unknown_function")
    return parse_params(functions[name][0], params, name)


def function_specs(functions: Functions) -> dict[str, FunctionSpec]:
    return {name: FunctionSpec(description=text, params=model.model_json_schema(), destructive=destructive)
            for name, (model, text, destructive) in functions.items()}
