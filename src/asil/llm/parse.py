"""Getting the JSON decision out of model output: thinking blocks, code fences, trailing prose."""

from __future__ import annotations

import json
import re
from typing import Any

from asil.protocol import AsilError

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_THINK = re.compile(r"^.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class DecisionParseError(AsilError):
    """The model's reply holds no usable JSON object."""

    code = "unparseable_output"

    def __init__(self, message: str, hint: str | None = None, code: str | None = None, reply: str = ""):
        super().__init__(message, hint=hint, code=code)
        self.reply = reply  # the raw model reply that could not be used, when known


def thinking_open(text: str) -> bool:
    """A thinking block has begun and not yet ended (a streamed reply is not complete before it ends)."""
    opened = len(re.findall(r"<(?:think|thinking|reasoning)>", text, re.IGNORECASE))
    return opened > len(re.findall(r"</(?:think|thinking|reasoning)>", text, re.IGNORECASE))


def strip_thinking(text: str) -> str:
    text = _THINK.sub("", text)
    if re.search(r"</(think|thinking|reasoning)>", text, re.IGNORECASE):  # the opening tag was in the prompt
        text = _OPEN_THINK.sub("", text, count=1)
    return text.strip()


def _objects(text: str) -> list[str]:
    """Every balanced top-level {...} span, string-aware (double or single quotes), in order of appearance."""
    spans, depth, start, quote, escaped = [], 0, -1, "", False
    for index, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and depth:
            quote = ch
        elif ch == "{":
            if depth == 0:
                start = index
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _requote(text: str) -> str:
    """Single-quoted strings (a Python-dict habit of small models) as JSON strings; the rest unchanged."""
    out, index = [], 0
    while index < len(text):
        ch = text[index]
        if ch not in "\"'":
            out.append(ch)
            index += 1
            continue
        end, escaped = index + 1, False
        while end < len(text) and (escaped or text[end] != ch):
            escaped = not escaped and text[end] == "\\"
            end += 1
        body = text[index + 1 : end]
        out.append(f'"{body}"' if ch == '"' else json.dumps(body.replace("\\'", "'")))
        index = end + 1
    return "".join(out)


def _loads(candidate: str) -> Any:
    """Strict JSON first; then the repairs real small-model output needs: raw control characters inside
    strings (``strict=False``), trailing commas, single quotes. Raises the strict parse's error."""
    try:
        return json.loads(candidate)
    except json.JSONDecodeError as first:
        lenient = _TRAILING_COMMA.sub(r"\1", candidate)
        for attempt in (lenient, _TRAILING_COMMA.sub(r"\1", _requote(candidate))):
            try:
                return json.loads(attempt, strict=False)
            except json.JSONDecodeError:
                continue
        raise first from None


def extract_json(text: str) -> dict[str, Any]:
    """The decision object in a reply; the last parseable candidate wins (prose often comes first)."""
    body = strip_thinking(text or "")
    candidates = [m.strip() for m in _FENCE.findall(body)] + _objects(body)
    error = "no JSON object found"
    for candidate in reversed(candidates):
        try:
            value = _loads(candidate)
        except json.JSONDecodeError as exc:
            # json's message for control characters ends in "at"; say the place once
            error = f"{exc.msg.removesuffix(' at')} at line {exc.lineno} column {exc.colno}"
            continue
        if isinstance(value, dict):
            return value
        error = "the JSON is not an object"
    raise DecisionParseError(f"The reply could not be read as a JSON object: {error}.",
                             hint="Reply with exactly one JSON object and nothing else.")
