"""What the ``scripted`` provider replies to LocalLSTC's calls: one reply shape per call kind.

The shapes follow the reference solution through the provider (``remaining``, ``next_actions``) and
answer in the JSON the LSTC parsers read (planner.py, control.py). ``asil.llm.scripted`` declares
them by name, so the provider finds them without importing the agents.
"""

from __future__ import annotations

import json
from typing import Any

from asil.llm.scripted import ScriptedProvider


def planner_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    fmt = context.get("format", {})
    step = script.next_actions(context, fault)
    subgoal_text = context.get("subgoal") or "Carry out the requested change"
    mode = "continue" if context.get("subgoal") and fmt.get("persistent_subgoal", True) else "new"
    reply: dict[str, Any] = {"subgoal": {"mode": mode, "text": subgoal_text}} if fmt.get("subgoal_labels", True) else {}
    if isinstance(step, str):
        if fmt.get("multi_action", True):
            reply["actions"] = []  # a control-only decision: the schema lists the steps before the control
        reply.update(control=step, reason="The task is complete." if step == "done" else "Not possible here.")
    else:
        entries = [{"channel": "api", "action": a} for a in step]
        if fmt.get("multi_action", True):
            reply["actions"] = entries
        else:
            reply["action"] = entries[0]
        reply.update(control=None, reason="")
    if not fmt.get("candidates", True):
        return reply
    # The reference is the best candidate; a weaker one (looking before acting) is proposed beside it.
    look: dict[str, Any] = {"why": "inspect the state first"}
    if fmt.get("subgoal_labels", True):
        look["subgoal"] = {"mode": "new", "text": "Inspect the document"}
    glance = {"channel": "api", "action": {"action_type": "navigate", "target": "A1"}}
    if fmt.get("multi_action", True):
        look["actions"] = [glance]
    else:
        look["action"] = glance
    look.update(control=None, reason="")
    limit = fmt.get("max_candidates", 3)
    candidates = [{"why": "follows the reference", **reply}, look][:limit]
    best: Any = 0
    if fault in ("bad_best", "bad_best_twice"):
        best = len(candidates)  # names a candidate that does not exist
    if fault == "too_many_candidates":
        candidates += [look] * limit
    return {"candidates": candidates, "best": best, "rationale": "The reference step makes progress; looking does not."}


def abstraction_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    if fault == "failure_called_continue":  # the abstraction misreads a failed step as progress
        return {"evidence": "The step went through.", "state": "continue"}
    if context.get("status") != "ok":
        return {"evidence": f"The action failed: {context.get('error', 'unknown error')}", "state": "error"}
    state = "continue" if context.get("pending", 0) else "advance"
    return {"evidence": f"Applied {json.dumps(context.get('action'))}; changed {context.get('changed', [])}.",
            "state": state}


def verification_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    remaining = script.remaining(context)
    if remaining:
        return {"verdict": "reject", "reason": f"{len(remaining)} required change(s) are not made yet."}
    return {"verdict": "accept", "reason": "Every required change is visible in the state."}


def refinement_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    evidence = context.get("evidence", [])
    return {"summary": f"{len(evidence)} facts established so far: " + "; ".join(evidence[-3:])}
