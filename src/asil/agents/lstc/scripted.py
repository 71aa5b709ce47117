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
    reply: dict[str, Any] = {"subgoal": {"mode": mode, "text": subgoal_text}}
    if isinstance(step, str):
        reply.update(control=step, reason="The task is complete." if step == "done" else "Not possible here.")
    else:
        entries = [{"channel": "api", "action": a} for a in step]
        if fmt.get("multi_action", True):
            reply["actions"] = entries
        else:
            reply["action"] = entries[0]
    if fmt.get("candidates", True):
        reply = {"candidates": [{"subgoal": subgoal_text, "why": "follows the reference"}], "best": 0,
                 "rationale": "Only one sound option.", **reply}
    return reply


def abstraction_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
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
