"""The provider contract every LLM backend implements, and per-call accounting."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from asil.protocol import AsilError
from asil.tasks.model import Task

# A chat message: "content" is text, or a list of OpenAI content parts (text and image_url) for multimodal models.
Message = dict[str, Any]
Until = Callable[[str], bool]  # True once the text so far holds a complete answer (streaming stops there)


class LLMError(AsilError):
    """The model could not be reached or answered unusably, even after retries."""

    code = "llm_error"

    def __init__(self, message: str, hint: str | None = None, code: str | None = None, seconds: float = 0.0):
        super().__init__(message, hint=hint, code=code)
        self.seconds = seconds  # how long the failed call kept the agent waiting, for the accounting


@dataclass
class LLMReply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    estimated: bool  # token counts were estimated because the server sent none
    seconds: float
    finish_reason: str | None = None  # "stop", "length" (cut off at the completion cap), ...; None if not sent
    stopped_early: bool = False  # streamed and closed as soon as the answer was complete
    cap: int | None = None  # the completion cap the call was sent with, when known

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


class Provider(Protocol):
    """A chat model. ``kind`` names the call (planner, abstraction, ...); ``context`` is structured
    state that real models ignore and the shipped fake providers use; ``until`` says when a streamed reply
    is complete and ``schema`` is the JSON Schema of the reply, for servers that constrain decoding to it."""

    name: str

    def bind(self, task: Task) -> None: ...

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply: ...


def estimate_tokens(text: str) -> int:
    """About four characters a token for English and JSON; used only when a server sends no usage."""
    return max(1, (len(text) + 3) // 4)


def prompt_text(messages: list[Message]) -> str:
    """The messages' text; of a list of content parts, the text parts (images are counted by their provider)."""
    return "\n".join(message_text(m["content"]) for m in messages)


def message_text(content: Any) -> str:
    """A message's text: the string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", "")) for part in content if part.get("type") == "text")


@dataclass
class CallStats:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    failed: int = 0  # calls that ended in an LLMError (timeout, refusal); their wait is in ``seconds``


@dataclass
class Usage:
    """Tokens and wall time per call kind (planner, abstraction, verification, refinement, repair, react)."""

    by_kind: dict[str, CallStats] = field(default_factory=dict)

    def add(self, kind: str, reply: LLMReply) -> None:
        stats = self.by_kind.setdefault(kind, CallStats())
        stats.calls += 1
        stats.prompt_tokens += reply.prompt_tokens
        stats.completion_tokens += reply.completion_tokens
        stats.seconds += reply.seconds

    def add_failure(self, kind: str, prompt_tokens: int, seconds: float) -> None:
        """A call that got no reply still cost its prompt and its wait."""
        stats = self.by_kind.setdefault(kind, CallStats())
        stats.calls += 1
        stats.failed += 1
        stats.prompt_tokens += prompt_tokens
        stats.seconds += seconds

    def totals(self) -> dict[str, int]:
        prompt = sum(s.prompt_tokens for s in self.by_kind.values())
        completion = sum(s.completion_tokens for s in self.by_kind.values())
        return {"prompt": prompt, "completion": completion, "total": prompt + completion}

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {kind: {"calls": s.calls, "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
                       "seconds": round(s.seconds, 4), "failed": s.failed} for kind, s in sorted(self.by_kind.items())}


def timed_reply(text: str, messages: list[Message], started: float, usage: dict[str, Any] | None = None,
                finish_reason: str | None = None) -> LLMReply:
    prompt, completion = (usage or {}).get("prompt_tokens"), (usage or {}).get("completion_tokens")
    estimated = prompt is None or completion is None
    return LLMReply(
        text=text,
        prompt_tokens=int(prompt) if prompt is not None else estimate_tokens(prompt_text(messages)),
        completion_tokens=int(completion) if completion is not None else estimate_tokens(text),
        estimated=estimated, seconds=time.perf_counter() - started, finish_reason=finish_reason)


# Where every model call of the running episode is reported (kind, raw reply, tokens, wait, error), as it
# happens: the episode runner writes them to calls.jsonl, so a killed episode still has them.
CallSink = Callable[[dict[str, Any]], None]
_CALL_SINK: ContextVar[CallSink | None] = ContextVar("asil_call_sink", default=None)


@contextmanager
def reporting_calls(sink: CallSink) -> Iterator[None]:
    """Report every model call made inside the block to ``sink``."""
    token = _CALL_SINK.set(sink)
    try:
        yield
    finally:
        _CALL_SINK.reset(token)


def report_call(record: dict[str, Any]) -> None:
    sink = _CALL_SINK.get()
    if sink is not None:
        sink(record)
