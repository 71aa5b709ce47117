"""What every model-driven agent shares: a provider, usage accounting, and one repair round."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from asil.llm.base import (
    LLMError,
    LLMReply,
    Message,
    Provider,
    Until,
    Usage,
    estimate_tokens,
    message_text,
    prompt_text,
    report_call,
)
from asil.llm.parse import DecisionParseError, extract_json, thinking_open
from asil.llm.providers import make_provider
from asil.tasks.model import Task

REPAIR_PROMPT = ("Your last reply could not be used: {error} Reply again with only the JSON object in the "
                 "format asked for, with no other text.")
TRUNCATED_HINT = ("Raise the completion cap (--answer-tokens, --thinking-budget) or ask for a shorter reply; "
                  "a repair round would resend the cut-off text and could overflow the context.")
QUOTE_CHARS = 240  # how much of an unusable reply is quoted back to the model and into the trace thought
Check = Callable[[dict[str, Any]], None]  # raises DecisionParseError when a parsed reply is unusable
Shorten = Callable[[list[Message]], list[Message] | None]  # a shorter prompt, or None when it cannot shrink
MAX_SHORTENINGS = 12  # history halvings (30 -> 0 takes 5), then halvings of the longest message


def clip_longest(messages: list[Message]) -> list[Message]:
    """The prompt with its longest message cut to half, from the middle, saying so (the fallback when an
    agent has no shorter prompt of its own: instructions and the newest state stay at the two ends)."""
    longest = max(range(len(messages)), key=lambda i: len(message_text(messages[i]["content"])))
    content = messages[longest]["content"]
    text = content if isinstance(content, str) else message_text([p for p in content if p.get("type") == "text"])
    keep = len(text) // 4
    clipped: Any = f"{text[:keep]}\n[... {len(text) - 2 * keep} characters left out to fit the context ...]\n{text[-keep:]}"
    if not isinstance(content, str):  # a multimodal message keeps its images; only its text is cut
        clipped = [{"type": "text", "text": clipped}, *(p for p in content if p.get("type") != "text")]
    return [*messages[:longest], {**messages[longest], "content": clipped}, *messages[longest + 1:]]


def quote_reply(text: str, limit: int = QUOTE_CHARS) -> str:
    """A short, one-line quotation of a raw model reply."""
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[:limit] + "...", ensure_ascii=False)


def parse_feedback(exc: DecisionParseError) -> str:
    """What the model is told on its next call about a reply of its own that could not be used."""
    return (f"PARSE ERROR: your previous reply could not be used: {exc.message} It was: {quote_reply(exc.reply)}. "
            "Reply with exactly one JSON object in the format asked for.")


class FeedsBackUnusableReplies:
    """For agents that keep a numbered history: an unusable reply becomes a history entry the model reads next
    turn (so the same reply is not sent again at temperature 0) and a step without an action."""

    client: ModelClient
    history: list[str]
    parse_failures: int  # in a row
    parse_errors: int  # in the episode
    stall_cutoff: int  # unusable replies in a row that end the episode

    def _stalled(self) -> Any:
        """The decision that ends the episode as ``stall_cutoff`` once the model stays unusable, else None."""
        from asil.agents.base import Decision

        if self.parse_failures < self.stall_cutoff:
            return None
        return Decision(action=None, stop="stall_cutoff", tokens=self.client.take_tokens(),
                        thought=f"{self.parse_failures} unusable replies in a row")

    def _reply(self, kind: str, messages: list[Message], context: dict[str, Any] | None = None,
               **ask: Any) -> dict[str, Any] | Any:
        """The model's usable reply, or the Decision of a step without an action (fed back next turn)."""
        try:
            data = self.client.ask(kind, messages, context, **ask)
        except DecisionParseError as exc:
            return self._unusable(exc)
        self.parse_failures = 0
        return data

    def _unusable(self, exc: DecisionParseError) -> Any:
        from asil.agents.base import Decision

        self.parse_failures += 1
        self.parse_errors += 1
        self.history.append(f"{len(self.history) + 1}. {parse_feedback(exc)}")
        return Decision(action=None, error=exc, tokens=self.client.take_tokens(),
                        thought=f"unusable reply: {quote_reply(exc.reply)}")


class ModelClient:
    """Calls a provider, accounts tokens per call kind, and repairs an unusable reply once."""

    def __init__(self, provider: Provider):
        self.provider = provider
        self.usage = Usage()
        self.pending_tokens: dict[str, int] = {}  # tokens of calls not yet attributed to a decision
        self.repairs = 0
        self.shortenings = 0  # prompts shortened to fit the server's context

    @classmethod
    def from_options(cls, model: str = "scripted", **options: Any) -> ModelClient:
        return cls(make_provider(model, **options))

    def bind(self, task: Task) -> None:
        self.provider.bind(task)
        self.usage = Usage()
        self.repairs = self.shortenings = 0

    def ask(self, kind: str, messages: list[Message], context: dict[str, Any] | None = None,
            check: Check | None = None, schema: dict[str, Any] | None = None,
            shorten: Shorten | None = None) -> dict[str, Any]:
        """The reply as a JSON object; raises DecisionParseError (with the raw reply) if the repair round
        fails too, or at once when the reply was cut off at the completion cap.

        A streaming provider stops generating as soon as the text holds a usable object (one that parses
        and passes ``check``); ``schema`` is the reply's JSON Schema for servers that constrain decoding.
        When the prompt does not fit the server's context, ``shorten`` (the agent's own way: fewer history
        entries) or else clipping the longest message makes it fit, so an episode never ends on
        ``context_length_exceeded``.
        """
        until = _usable_by(check)
        reply, messages = self._fitted_call(kind, messages, context, until, schema, shorten)
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
            second, _ = self._fitted_call("repair", repair, {**(context or {}), "for_kind": kind}, until, schema, None)
            try:
                return _checked(second.text, check)
            except DecisionParseError as again:
                again.reply = second.text
                raise

    def _fitted_call(self, kind: str, messages: list[Message], context: dict[str, Any] | None, until: Until,
                     schema: dict[str, Any] | None, shorten: Shorten | None) -> tuple[LLMReply, list[Message]]:
        for attempt in range(MAX_SHORTENINGS + 1):
            try:
                return self._call(kind, messages, context, until, schema), messages
            except LLMError as exc:
                if exc.code != "context_overflow" or attempt == MAX_SHORTENINGS:
                    raise
                self.shortenings += 1
                messages = (shorten(messages) if shorten else None) or clip_longest(messages)
        raise AssertionError("unreachable")

    def _call(self, kind: str, messages: list[Message], context: dict[str, Any] | None,
              until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply:
        """One provider call, accounted and reported whether it answers or fails."""
        try:
            reply = self.provider.complete(messages, kind, context, until=until, schema=schema)
        except LLMError as exc:  # the wait and the prompt were spent all the same (unless it never fit)
            prompt = 0 if exc.code == "context_overflow" else estimate_tokens(prompt_text(messages))
            self.usage.add_failure(kind, prompt, exc.seconds)
            self.pending_tokens["prompt"] = self.pending_tokens.get("prompt", 0) + prompt
            report_call({"kind": kind, "text": "", "prompt_tokens": prompt, "completion_tokens": 0,
                         "estimated": True, "seconds": round(exc.seconds, 4), "error": exc.message})
            raise
        self._count(kind, reply)
        report_call({"kind": kind, "text": reply.text, "prompt_tokens": reply.prompt_tokens,
                     "completion_tokens": reply.completion_tokens, "estimated": reply.estimated,
                     "seconds": round(reply.seconds, 4), "finish_reason": reply.finish_reason,
                     "stopped_early": reply.stopped_early, "cap": reply.cap})
        return reply

    def _count(self, kind: str, reply: LLMReply) -> None:
        self.usage.add(kind, reply)
        self.pending_tokens["prompt"] = self.pending_tokens.get("prompt", 0) + reply.prompt_tokens
        self.pending_tokens["completion"] = self.pending_tokens.get("completion", 0) + reply.completion_tokens

    def take_tokens(self) -> dict[str, int]:
        """Tokens of every call since the last decision (each call is counted in exactly one step)."""
        taken, self.pending_tokens = self.pending_tokens, {}
        return taken


def _usable_by(check: Check | None) -> Until:
    def usable(text: str) -> bool:
        if thinking_open(text):  # JSON inside an unfinished thinking block is not the answer yet
            return False
        try:
            _checked(text, check)
        except DecisionParseError:
            return False
        return True

    return usable


def _checked(text: str, check: Check | None) -> dict[str, Any]:
    data = extract_json(text)
    if check is not None:
        check(data)
    return data
