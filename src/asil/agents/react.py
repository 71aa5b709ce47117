"""The ReAct baseline: one model call per step over the task, the full history and the observation."""

from __future__ import annotations

import base64
import json
from typing import Any

from pydantic import ValidationError

from asil.agents.base import Decision
from asil.agents.llm_agent import FeedsBackUnusableReplies, ModelClient
from asil.agents.prompting import action_json_schema, compact_json, observation_changes, render, schema_text
from asil.llm.base import Message
from asil.llm.parse import DecisionParseError
from asil.llm.scripted import ScriptedProvider
from asil.protocol import Action, ActionResult, ActionSchema, Observation
from asil.tasks.model import Task

PROMPTS = "asil.agents"
OBSERVATION_MODES = ("full", "changes")


def parse_action_reply(data: dict[str, Any]) -> Action:
    raw = data.get("action")
    if not isinstance(raw, dict):
        raise DecisionParseError("The reply has no 'action' object.", hint='{"thought": ..., "action": {...}}')
    try:
        return Action.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise DecisionParseError(f"The action is malformed at {where!r}: {first['msg']}.") from None


def reply_schema(schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """The JSON Schema of a ReAct reply, for servers that constrain decoding to it (``--constrained``)."""
    return {"type": "object", "required": ["thought", "action"],
            "properties": {"thought": {"type": "string"}, "action": action_json_schema(schemas, ("done", "infeasible"))}}


def system_prompt(schemas: dict[str, ActionSchema], detail: str = "full") -> str:
    """ReAct's system prompt for these apps (SFT export writes the same prompt the agent sends)."""
    return render(PROMPTS, "react_system.md", schema=schema_text(schemas, detail))


def user_prompt(instruction: str, entries: list[str], observation: str, left_out: int = 0) -> str:
    """ReAct's user turn: the task, the history entries shown (``left_out`` older ones not), the observation."""
    history = (f"({left_out} earlier steps not shown)\n" if left_out else "") + "\n".join(entries)
    return render(PROMPTS, "react_user.md", instruction=instruction, history=history or "(none yet)",
                  observation=observation)


def user_prompt_changes(instruction: str, start: str, entries: list[str]) -> str:
    """ReAct's user turn with ``observations="changes"``: the first observation once, then each action with
    what it changed. Every step only appends to the prompt, so the server reuses its cache of the rest."""
    return render(PROMPTS, "react_user_changes.md", instruction=instruction, start=start,
                  history="\n".join(entries) or "(none yet)")


def changes_text(changes: dict[str, Any], observation: dict[str, Any]) -> str:
    """An entry's tail: what changed, or the whole new observation when that is shorter."""
    if not changes:
        return "; nothing visible changed"
    shown, whole = compact_json(changes), compact_json(observation)
    return f"; now: {whole}" if len(whole) <= len(shown) else f"; changed: {shown}"


def history_entry(number: int, action: Action, status: str, error: str | None = None) -> str:
    """One line of ReAct's history: the action as sent and how it went (status, and the error's message)."""
    shown = action.model_dump(mode="json", exclude_defaults=True)
    outcome = status + (f" ({error})" if error else "")
    return f"{number}. {json.dumps(shown)} -> {outcome}"


def reply_text(thought: str, action: Action) -> str:
    """A ReAct reply as the agent parses it: one JSON object with the thought and the action."""
    return json.dumps({"thought": thought, "action": action.model_dump(mode="json", exclude_defaults=True)},
                      ensure_ascii=False)


def _check_reply(data: dict[str, Any]) -> None:
    parse_action_reply(data)


def scripted_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """What the ``scripted`` provider replies to a ReAct call: the next reference action (or the ending)."""
    step = script.next_actions(context, fault)
    action = {"action_type": step} if isinstance(step, str) else step[0]
    return {"thought": "Next step of the plan.", "action": action}


class ReActAgent(FeedsBackUnusableReplies):
    """Plain and honest: the whole history goes into every prompt.

    A reply that cannot be used becomes a history entry (the error and the raw reply, quoted briefly), so the
    model sees its mistake on the next step; ``stall_cutoff`` unusable replies in a row end the episode as
    ``stall_cutoff`` instead of repeating the same reply until the budget is gone.
    """

    name = "react"

    def __init__(self, model: str = "scripted", stall_cutoff: int = 3, history_window: int = 30,
                 observations: str = "full", hybrid_vision: bool = False, schema_detail: str = "full",
                 **options: Any):
        if observations not in OBSERVATION_MODES:
            raise ValueError(f"observations must be one of {', '.join(OBSERVATION_MODES)}, not {observations!r}.")
        schema_text({}, schema_detail)  # refuses an unknown detail now, not at the first task
        self.schema_detail = schema_detail  # "compact": fewer prompt tokens for small local models
        self.client = ModelClient.from_options(model, **options)
        # "changes": the first observation, then what each action changed (cheap to re-read on a slow server)
        self.observations = observations
        self.hybrid_vision = hybrid_vision  # the runner hands over the app's render of each state (see_render())
        self.picture: str | None = None  # the latest render, as a data URL
        self.pictures_sent = 0
        self.stall_cutoff = stall_cutoff
        self.history_window = history_window  # newest history entries in a prompt; fewer if the context is short
        self.reply_schema: dict[str, Any] = {}
        self.parse_failures = 0  # in a row
        self.parse_errors = 0  # in the episode
        self.task: Task | None = None
        self.system = ""
        self.history: list[str] = []
        self.changes: list[str] = []  # with observations="changes": each history entry's observation change
        self.start: dict[str, Any] | None = None  # the first observation, and the last one seen
        self.seen: dict[str, Any] = {}
        self.succeeded: list[dict[str, Any]] = []
        self._pending: Action | None = None

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self.task = task
        self.client.bind(task)
        self.system = system_prompt(schemas, self.schema_detail)
        self.reply_schema = reply_schema(schemas)
        self.history, self.changes, self.succeeded, self._pending = [], [], [], None
        self.start, self.seen = None, {}
        self.parse_failures = self.parse_errors = self.pictures_sent = 0
        self.picture = None

    def see_render(self, picture: bytes | None) -> None:
        """Hybrid vision: the app's render (PNG) of the state the next observation describes, or None."""
        self.picture = "data:image/png;base64," + base64.b64encode(picture).decode() if picture else None

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        assert self.task is not None
        self._remember(last)
        self._see(observation.to_agent_dict())
        if (stop := self._stalled()) is not None:
            return stop  # type: ignore[no-any-return]
        shown = compact_json(self.seen)
        window = [self.history_window]

        def shorter(_: list[Message]) -> list[Message] | None:  # the context is short: halve the history shown
            if window[0] == 0:
                return None
            window[0] //= 2
            return self._messages(shown, window[0])

        self.pictures_sent += self.hybrid_vision and self.picture is not None
        data = self._reply("react", self._messages(shown, window[0]), {"succeeded": self.succeeded},
                                   check=_check_reply, schema=self.reply_schema, shorten=shorter)
        if isinstance(data, Decision):
            return data
        self._pending = parse_action_reply(data)
        return Decision(action=self._pending, thought=str(data.get("thought", "")),
                        tokens=self.client.take_tokens())

    def _messages(self, observation: str, keep: int) -> list[Message]:
        assert self.task is not None
        entries = self.history[-keep:] if keep else []
        if self.observations == "changes" and len(entries) == len(self.history) and self.start is not None:
            shown = [entry + change for entry, change in zip(entries, self.changes, strict=True)]
            user: Any = user_prompt_changes(self.task.instruction, compact_json(self.start), shown)
        else:
            user = user_prompt(self.task.instruction, entries, observation, len(self.history) - len(entries))
        if self.hybrid_vision and self.picture is not None:  # the observation's image part, beside its JSON
            user = [{"type": "text", "text": user}, {"type": "image_url", "image_url": {"url": self.picture}}]
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def _see(self, now: dict[str, Any]) -> None:
        """Record the observation; with observations="changes", the last history entry gets what changed."""
        if self.start is None:
            self.start = now
        change = changes_text(observation_changes(self.seen, now), now)
        while len(self.changes) < len(self.history):  # one new entry per step (an unusable reply's: no change)
            self.changes.append(change)
            change = ""
        self.seen = now

    def _remember(self, last: ActionResult | None) -> None:
        if self._pending is None or last is None:
            return
        self.history.append(history_entry(len(self.history) + 1, self._pending, last.status,
                                          last.error.message if last.error else None))
        if last.ok:
            self.succeeded.append(self._pending.model_dump(mode="json"))
        self._pending = None

    def metrics(self, termination: str) -> dict[str, Any]:
        return {"model_calls": self.client.usage.as_dict(), "tokens": self.client.usage.totals(),
                "repairs": self.client.repairs, "parse_errors": self.parse_errors,
                "shortened_prompts": self.client.shortenings,
                **({"pictures_sent": self.pictures_sent} if self.hybrid_vision else {})}
