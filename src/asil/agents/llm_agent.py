"""What every model-driven agent shares: a provider, usage accounting, and one repair round."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asil.llm.base import LLMReply, Message, Provider, Usage
from asil.llm.parse import DecisionParseError, extract_json
from asil.llm.providers import make_provider
from asil.tasks.model import Task

REPAIR_PROMPT = ("Your last reply could not be used: {error} Reply again with only the JSON object in the "
                 "format asked for, with no other text.")
Check = Callable[[dict[str, Any]], None]  # raises DecisionParseError when a parsed reply is unusable


class ModelClient:
    """Calls a provider, accounts tokens per call kind, and repairs an unusable reply once."""

    def __init__(self, provider: Provider):
        self.provider = provider
        self.usage = Usage()
        self.pending_tokens: dict[str, int] = {}  # tokens of calls not yet attributed to a decision
        self.repairs = 0

    @classmethod
    def from_options(cls, model: str = "scripted", **options: Any) -> ModelClient:
        return cls(make_provider(model, **options))

    def bind(self, task: Task) -> None:
        self.provider.bind(task)
        self.usage = Usage()
        self.repairs = 0

    def ask(self, kind: str, messages: list[Message], context: dict[str, Any] | None = None,
            check: Check | None = None) -> dict[str, Any]:
        """The reply as a JSON object; raises DecisionParseError if the repair round fails too."""
        reply = self.provider.complete(messages, kind, context)
        self._count(kind, reply)
        try:
            return _checked(reply.text, check)
        except DecisionParseError as exc:
            self.repairs += 1
            repair = messages + [{"role": "assistant", "content": reply.text},
                                 {"role": "user", "content": REPAIR_PROMPT.format(error=exc.message)}]
            second = self.provider.complete(repair, "repair", {**(context or {}), "for_kind": kind})
            self._count("repair", second)
            return _checked(second.text, check)


    def _count(self, kind: str, reply: LLMReply) -> None:
        self.usage.add(kind, reply)
        self.pending_tokens["prompt"] = self.pending_tokens.get("prompt", 0) + reply.prompt_tokens
        self.pending_tokens["completion"] = self.pending_tokens.get("completion", 0) + reply.completion_tokens

    def take_tokens(self) -> dict[str, int]:
        """Tokens of every call since the last decision (each call is counted in exactly one step)."""
        taken, self.pending_tokens = self.pending_tokens, {}
        return taken


def _checked(text: str, check: Check | None) -> dict[str, Any]:
    data = extract_json(text)
    if check is not None:
        check(data)
    return data
