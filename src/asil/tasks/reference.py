"""Steps of a task's reference solution on the bash channel.

A reference may run a shell command where an agent could: a task file writes such a step as
``{"channel": "bash", "command": "...", "timeout_s": 30}`` among its actions. It is played exactly like
an agent's bash step (``Env.dispatch("bash", ...)``: confined to the workspace by the sandbox, documents
saved before it and reopened after it). Everything that reads a reference without playing it sees the
step as traces record bash steps, an ``invoke_function`` of ``bash`` (``asil.protocol.bash_action``), so
counting, auditing and exporting code needs no second case.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, GetJsonSchemaHandler, Tag, model_serializer, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from asil.protocol import Action, ActionResult

DEFAULT_TIMEOUT_S = 30.0  # the bash channel's own default (Env's bash channel)
MAX_TIMEOUT_S = 600.0
WRITTEN_FIELDS = ("channel", "command", "timeout_s")


class ShellStep(Action):
    """A reference step on the bash channel (see the module docstring for its written form)."""

    channel: Literal["bash"] = "bash"

    @model_validator(mode="before")
    @classmethod
    def _from_written_form(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "action_type" in data:  # the recorded form (a copy of a step): checked like the written one
            if (data.get("action_type"), data.get("target")) != ("invoke_function", "bash"):
                raise ValueError("a bash step is recorded as an invoke_function of 'bash'")
            params = data.get("params")
            data = {"channel": data.get("channel"), **(params if isinstance(params, dict) else {})}
        if data.get("channel") != "bash":
            raise ValueError("the only channel a reference step names is 'bash' (ASIL actions are written without one)")
        unknown = sorted(set(data) - set(WRITTEN_FIELDS))
        if unknown:
            raise ValueError(f"a bash step has only the fields {', '.join(WRITTEN_FIELDS)}, not {', '.join(unknown)}")
        command = data.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ValueError("a bash step needs 'command', a non-empty shell command")
        timeout = data.get("timeout_s", DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT_S:
            raise ValueError(f"a bash step's 'timeout_s' is a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}")
        return {"action_type": "invoke_function", "target": "bash", "channel": "bash",
                "params": {"command": command, "timeout_s": float(timeout)}}

    @model_serializer
    def _written_form(self) -> dict[str, Any]:
        return {"channel": "bash", "command": self.command, "timeout_s": self.timeout_s}

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        # Task files hold the written form, so that is what the schema describes.
        return {"title": "ShellStep", "type": "object", "additionalProperties": False,
                "description": "A reference step run on the bash channel, confined like an agent's shell.",
                "required": ["channel", "command"],
                "properties": {"channel": {"const": "bash", "type": "string"},
                               "command": {"type": "string", "minLength": 1},
                               "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TIMEOUT_S,
                                             "default": DEFAULT_TIMEOUT_S}}}

    @property
    def command(self) -> str:
        return str(self.params["command"])

    @property
    def timeout_s(self) -> float:
        return float(self.params.get("timeout_s", DEFAULT_TIMEOUT_S))


def reference_channel(step: Action) -> str:
    """The execution channel a reference step is played on: ``bash`` for a ShellStep, else ``api``."""
    return "bash" if isinstance(step, ShellStep) else "api"


def _written_channel(value: Any) -> str:
    if isinstance(value, dict):
        return "bash" if "channel" in value else "api"
    return reference_channel(value)


# One item of a task's ``reference``: an ASIL action, or a bash step when it names a channel.
ReferenceStep = Annotated[Annotated[ShellStep, Tag("bash")] | Annotated[Action, Tag("api")],
                          Discriminator(_written_channel)]


def describe_failed_step(index: int, step: Action, result: ActionResult) -> str:
    """One sentence on a reference step that did not succeed, naming its channel and what went wrong."""
    error = result.error
    what = error.message if error else "no error was given"
    if isinstance(step, ShellStep):
        hint = f" stderr: {error.hint}" if error and error.hint else ""
        return f"reference step {index} (bash: {step.command[:80]!r}) was {result.status}: {what}{hint}"
    return f"reference action {index} was {result.status}: {what}"


__all__ = ["ReferenceStep", "ShellStep", "describe_failed_step", "reference_channel"]
