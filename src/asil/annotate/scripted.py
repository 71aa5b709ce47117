"""The ``scripted`` provider's judge: mechanical rules over the trace, so annotation runs without a model.

Its labels are not a measurement: they exist so that the judge path (prompt, strict reply, tables,
agreement) can be exercised end to end, and they are predictable, so tests can plant episodes whose
labels are known.
"""

from __future__ import annotations

import json
from typing import Any

CUTOFFS = ("budget", "stall_cutoff")


def _key(step: dict[str, Any]) -> str:
    return json.dumps(step.get("action"), sort_keys=True)


def _repeats(steps: list[dict[str, Any]], run: int = 3) -> bool:
    """The same action ``run`` times in a row with nothing changed."""
    streak, last = 0, None
    for step in steps:
        key = _key(step)
        streak = streak + 1 if key == last and not step.get("changed") else 1
        last = key
        if streak >= run:
            return True
    return False


def judge_labels(context: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(labels, the rules that fired) for an episode's context (see asil.annotate.judge.judge_context)."""
    steps: list[dict[str, Any]] = context.get("steps", [])
    metrics: dict[str, Any] = context.get("metrics", {})
    success, termination = bool(context.get("success")), str(context.get("termination"))
    events = metrics.get("events") or {}
    fired: dict[str, str] = {}
    changed_ok = [_key(s) for s in steps if s.get("status") == "ok" and s.get("changed")]
    if len(changed_ok) != len(set(changed_ok)):
        fired["Stage"] = "a completed change was made again"
    if any(v.get("verdict") == "reject" for v in metrics.get("final_verification", [])):
        fired["Assess"] = "a finish was claimed and rejected by Final Verification"
    if events.get("stalls") or events.get("loops") or _repeats(steps):
        fired["Loop"] = "the same action repeated with no change"
    failing = [_key(s) for s in steps if s.get("status") in ("invalid", "error")]
    if len(failing) != len(set(failing)):
        fired["Recover"] = "a failed action was retried unchanged"
    if (not success and termination == "done") or (success and termination in CUTOFFS):
        fired["Stop"] = "ended at the wrong time"
    if fired:
        return list(fired), list(fired.values())
    return (["None"], ["no rule fired"]) if success else (["Other"], ["failed, but no control rule fired"])


def judge_reply(provider: object, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    labels, why = judge_labels(context)
    return {"labels": labels, "evidence": "; ".join(why) + "."}
