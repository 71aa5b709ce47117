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


def strip_thinking(text: str) -> str:
    text = _THINK.sub("", text)
    if re.search(r"</(think|thinking|reasoning)>", text, re.IGNORECASE):  # the opening tag was in the prompt
        text = _OPEN_THINK.sub("", text, count=1)
    return text.strip()


def _objects(text: str) -> list[str]:
    """Every balanced top-level {...} span, string-aware, in order of appearance."""
    spans, depth, start, in_string, escaped = [], 0, -1, False, False
    for index, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and depth:
            in_string = True
        elif ch == "{":
            if depth == 0:
                start = index
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


def extract_json(text: str) -> dict[str, Any]:
    """The decision object in a reply; the last parseable candidate wins (prose often comes first)."""
    body = strip_thinking(text or "")
    candidates = [m.strip() for m in _FENCE.findall(body)] + _objects(body)
    error = "no JSON object found"
    for candidate in reversed(candidates):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
            continue
        if isinstance(value, dict):
            return value
        error = "the JSON is not an object"
    raise DecisionParseError(f"The reply could not be read as a JSON object: {error}.",
                             hint="Reply with exactly one JSON object and nothing else.")
