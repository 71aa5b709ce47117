"""The provider registry: real endpoints, and the two fakes ASIL ships (scripted, replay)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, Provider, Until, timed_reply
from asil.llm.client import OpenAICompatibleClient
from asil.llm.scripted import ScriptedProvider
from asil.registry import Registry
from asil.tasks.model import Task

ProviderFactory = Callable[..., Provider]
PROVIDERS: Registry[ProviderFactory] = Registry("LLM provider")
provider = PROVIDERS.register


class ReplayProvider:
    """Plays back recorded replies from a JSONL file (one ``{"kind", "text"}`` or ``{"text"}`` a line, with
    optional ``usage`` and ``finish_reason``); an episode's ``calls.jsonl`` is such a file."""

    name = "replay"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise LLMError(f"The replay file {str(self.path)!r} does not exist.", hint="Give a JSONL file of replies.")
        self._lines = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        self._next = 0

    def bind(self, task: Task) -> None:
        return None

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply:
        started = time.perf_counter()
        if self._next >= len(self._lines):
            raise LLMError(f"The replay file {self.path.name} has no reply left for call {self._next + 1} ({kind}).")
        line = self._lines[self._next]
        self._next += 1
        if line.get("kind", kind) != kind:
            raise LLMError(f"Replay line {self._next} was recorded for a {line['kind']} call, not {kind}.")
        return timed_reply(str(line["text"]), messages, started, line.get("usage"), line.get("finish_reason"))


provider("scripted")(ScriptedProvider)
provider("replay")(ReplayProvider)
provider("openai")(OpenAICompatibleClient)


def make_provider(model: str, **options: Any) -> Provider:
    """``scripted``, ``replay:FILE.jsonl``, or any model name served by an OpenAI-compatible endpoint."""
    name, _, argument = model.partition(":")
    if name == "scripted":
        return PROVIDERS["scripted"](**{k: v for k, v in options.items() if k == "faults"})
    if name == "replay":
        return PROVIDERS["replay"](argument)
    client_options = {k: v for k, v in options.items()
                      if k in ("base_url", "api_key", "server", "params", "timeout_s", "retries", "backoff_s", "stream",
                               "context_length", "constrained")}
    return PROVIDERS["openai"](model, **client_options)
