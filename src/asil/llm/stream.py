"""Reading a streamed chat completion (server-sent events) and stopping once the answer is complete."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from asil.llm.base import Until


@dataclass
class StreamResult:
    text: str = ""
    chunks: int = 0  # content chunks received; llama.cpp servers send one token per chunk
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    stopped_early: bool = False  # we closed the stream because ``until`` passed
    timed_out: bool = False


def read_stream(lines: Iterable[bytes], until: Until, deadline: float) -> StreamResult:
    """Collect ``data:`` events until ``[DONE]``, the answer is complete, or the deadline passes.

    ``until`` is asked only when a chunk could have closed a JSON object, so checking stays cheap.
    """
    result = StreamResult()
    for raw in lines:
        if time.monotonic() > deadline:
            result.timed_out = True
            return result
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data:"):
            continue  # comments, event names, keep-alives
        data = line[5:].strip()
        if data == "[DONE]":
            break
        event = json.loads(data)
        result.usage = event.get("usage") or result.usage
        for choice in event.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content") or ""
            piece += _tool_arguments(choice.get("delta") or {})
            if piece:
                result.text += piece
                result.chunks += 1
            result.finish_reason = choice.get("finish_reason") or result.finish_reason
            if "}" in piece and until(result.text):
                result.stopped_early, result.finish_reason = True, "stop"
                return result
    return result


def _tool_arguments(delta: dict[str, Any]) -> str:
    """Streamed tool calls carry the JSON in pieces of ``function.arguments``."""
    calls = delta.get("tool_calls") or []
    return "".join(str(((call or {}).get("function") or {}).get("arguments") or "") for call in calls)
