"""The LLM judge: the packaged rubric, one call per episode, a strict JSON reply or a recorded failure."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from asil.annotate.episodes import Episode, episode_text
from asil.annotate.labels import LabelError, label_set
from asil.llm.base import LLMError, Provider
from asil.llm.parse import strip_thinking

RUBRIC = resources.files("asil.annotate").joinpath("rubric.md").read_text(encoding="utf-8")
RUBRIC_DIGEST = hashlib.sha256(RUBRIC.encode()).hexdigest()[:12]
_FENCED = re.compile(r"\A```(?:json|JSON)?\s*\n(.*?)\n?```\Z", re.DOTALL)


class JudgeReply(BaseModel):
    """The only reply the rubric allows."""

    model_config = ConfigDict(extra="forbid", strict=True)

    labels: list[str] = Field(min_length=1)
    evidence: str


class Annotation(BaseModel):
    """One line of ``annotations.jsonl``: the labels of one episode and where they came from."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    source: Literal["judge", "auto"] = Field(description="auto: a clean success, labelled None without a call")
    status: Literal["ok", "malformed", "error"] = Field(
        description="malformed: the reply broke the format (kept, not guessed); error: the model could not be asked")
    labels: list[str] = Field(default_factory=list)
    evidence: str = ""
    reasons: list[str] = Field(default_factory=list, description="why the episode was judged")
    reply: str | None = Field(None, description="the judge's raw reply when it was malformed")
    problem: str | None = None
    tokens: dict[str, int] = Field(default_factory=dict)


class MalformedReply(ValueError):
    pass


def parse_reply(text: str) -> JudgeReply:
    """The reply as a JudgeReply, or MalformedReply saying what is wrong.

    Strict: after a thinking block, the reply must be exactly one JSON object (a single code fence
    around it is allowed); prose around it, extra keys, or a label set the rubric forbids are errors.
    """
    body = strip_thinking(text or "").strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise MalformedReply(f"not a single JSON object: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    try:
        reply = JudgeReply.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise MalformedReply(f"{where}: {first['msg']}") from None
    try:
        reply.labels = list(label_set(reply.labels))
    except LabelError as exc:
        raise MalformedReply(exc.message) from None
    return reply


def judge_messages(episode: Episode) -> list[dict[str, str]]:
    return [{"role": "system", "content": RUBRIC},
            {"role": "user", "content": episode_text(episode) + "\n\nLabel this episode. Reply with the JSON object "
                                                                  "only."}]


def judge_context(episode: Episode) -> dict[str, Any]:
    """Structured facts for the shipped fake judges (real models read only the messages)."""
    result = episode.result
    return {"task_id": result.task_id, "success": result.success, "termination": result.termination,
            "steps": episode.steps, "metrics": result.metrics}


class Judge:
    """Asks a provider for the labels of each episode it is given."""

    def __init__(self, provider: Provider, name: str):
        self.provider, self.name = provider, name

    def label(self, episode: Episode) -> Annotation:
        if not episode.judged:
            return Annotation(task_id=episode.task_id, source="auto", status="ok", labels=["None"],
                              evidence="succeeded with no sign of a control problem; not sent to the judge")
        base: dict[str, Any] = {"task_id": episode.task_id, "source": "judge", "reasons": episode.reasons}
        try:
            reply = self.provider.complete(judge_messages(episode), "judge", judge_context(episode))
        except LLMError as exc:
            return Annotation(**base, status="error", problem=exc.message)
        tokens = {"prompt": reply.prompt_tokens, "completion": reply.completion_tokens}
        try:
            parsed = parse_reply(reply.text)
        except MalformedReply as exc:
            return Annotation(**base, status="malformed", reply=reply.text, problem=str(exc), tokens=tokens)
        return Annotation(**base, status="ok", labels=parsed.labels, evidence=parsed.evidence, tokens=tokens)
