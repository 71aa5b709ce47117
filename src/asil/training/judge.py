"""The optional LLM judge of the overlap audit: labels the riskiest (candidate, held-out) pairs.

Any OpenAI-compatible server (``asil.llm.client``). The reply must be one JSON object ``{"label": ...}`` with one
of the five labels; anything else is recorded as ``malformed`` (never guessed), a server failure as ``error``.
"""

from __future__ import annotations

import json
from typing import Any

from asil.llm.base import LLMError, Provider
from asil.llm.parse import strip_thinking
from asil.tasks.model import Task
from asil.training.audit import Verdict, fingerprint

LABELS = ("exact duplicate", "near duplicate", "same template", "same domain but distinct", "unrelated")

SYSTEM = (
    "You audit training tasks for overlap with a held-out benchmark. Compare the CANDIDATE task with the "
    "HELD-OUT task and answer with exactly one JSON object {\"label\": L}, where L is one of: "
    + ", ".join(f'"{label}"' for label in LABELS) + ". exact duplicate: the same task; near duplicate: the same "
    "task with small wording or value changes; same template: the same kind of edit on the same kind of artifact "
    "with different names or values; same domain but distinct: the same app or area, a different job; "
    "unrelated: nothing in common.")


def _describe(task: Task) -> str:
    shown = fingerprint(task)
    return json.dumps({"apps": task.apps, "instruction": task.instruction,
                       "operations": sorted(shown.operations), "checks": sorted(shown.rules)})


def judge_messages(candidate: Task, held: Task) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"CANDIDATE: {_describe(candidate)}\nHELD-OUT: {_describe(held)}"}]


def parse_label(text: str) -> str:
    """The label of a reply, or ValueError naming what is wrong."""
    body = strip_thinking(text or "").strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data: Any = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not one JSON object ({exc.msg})") from None
    label = data.get("label") if isinstance(data, dict) else None
    if label not in LABELS:
        raise ValueError(f"label {label!r} is not one of {', '.join(LABELS)}")
    return str(label)


def judge_pairs(provider: Provider, verdicts: list[Verdict], candidates: dict[str, Task],
                held: dict[str, Task]) -> None:
    """Label each verdict's (candidate, nearest held-out) pair in place: ``verdict.judge``."""
    for verdict in verdicts:
        messages = judge_messages(candidates[verdict.task_id], held[verdict.nearest])
        try:
            reply = provider.complete(messages, "judge", {"task_id": verdict.task_id})
        except LLMError as exc:
            verdict.judge = f"error: {exc.message}"
            continue
        try:
            verdict.judge = parse_label(reply.text)
        except ValueError as exc:
            verdict.judge = f"malformed: {exc}"
