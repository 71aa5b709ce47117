"""What every model-driven agent shares: a provider, usage accounting, and one repair round."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, Provider, Usage, estimate_tokens, prompt_text, report_call
from asil.llm.parse import DecisionParseError, extract_json
from asil.llm.providers import make_provider
from asil.tasks.model import Task

REPAIR_PROMPT = ("Your last reply could not be used: {error} Reply again with only the JSON object in the "
                 "format asked for, with no other text.")
TRUNCATED_HINT = ("Raise the completion cap (--answer-tokens, --thinking-budget) or ask for a shorter reply; "
                  "a repair round would resend the cut-off text and could overflow the context.")
QUOTE_CHARS = 240  # how much of an unusable reply is quoted back to the model and into the trace thought
Check = Callable[[dict[str, Any]], None]  # raises DecisionParseError when a parsed reply is unusable


def quote_reply(text: str, limit: int = QUOTE_CHARS) -> str:
    """A short, one-line quotation of a raw model reply."""
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[:limit] + "...", ensure_ascii=False)


def parse_feedback(exc: DecisionParseError) -> str:
    """What the model is told on its next call about a reply of its own that could not be used."""
    return (f"PARSE ERROR: your previous reply could not be used: {exc.message} It was: {quote_reply(exc.reply)}. "
            "Reply with exactly one JSON object in the format asked for.")


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
        """The reply as a JSON object; raises DecisionParseError (with the raw reply) if the repair round
        fails too, or at once when the reply was cut off at the completion cap."""
        reply = self._call(kind, messages, context)
        try:
            return _checked(reply.text, check)
        except DecisionParseError as exc:
            if reply.truncated:
                raise DecisionParseError(
                    f"The {kind} reply was cut off at the completion cap ({reply.completion_tokens} tokens, "
                    f"finish_reason 'length') before it was complete: {exc.message}", hint=TRUNCATED_HINT,
                    code="truncated_output", reply=reply.text) from None
            self.repairs += 1
            repair = messages + [{"role": "assistant", "content": reply.text},
                                 {"role": "user", "content": REPAIR_PROMPT.format(error=exc.message)}]
            second = self._call("repair", repair, {**(context or {}), "for_kind": kind})
            try:
                return _checked(second.text, check)
            except DecisionParseError as again:
                again.reply = second.text
                raise

    def _call(self, kind: str, messages: list[Message], context: dict[str, Any] | None) -> LLMReply:
        """One provider call, accounted and reported whether it answers or fails."""
        try:
            reply = self.provider.complete(messages, kind, context)
        except LLMError as exc:  # the wait and the prompt were spent all the same
            prompt = estimate_tokens(prompt_text(messages))
            self.usage.add_failure(kind, prompt, exc.seconds)
            self.pending_tokens["prompt"] = self.pending_tokens.get("prompt", 0) + prompt
            report_call({"kind": kind, "text": "", "prompt_tokens": prompt, "completion_tokens": 0,
                         "estimated": True, "seconds": round(exc.seconds, 4), "error": exc.message})
            raise
        self._count(kind, reply)
        report_call({"kind": kind, "text": reply.text, "prompt_tokens": reply.prompt_tokens,
                     "completion_tokens": reply.completion_tokens, "estimated": reply.estimated,
                     "seconds": round(reply.seconds, 4), "finish_reason": reply.finish_reason})
        return reply

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
