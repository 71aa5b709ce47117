"""The ``scripted`` provider: correct replies derived from the task's reference solution.

It lets the whole prompt -> parse -> control path run without a model. Replies are real text
(with a thinking block and a code fence, as small models write them) that the agents parse.
``faults`` injects known mistakes into successive planner/react calls so tests can watch the
controller recover: ``malformed``, ``wrong_action``, ``repeat``, ``premature_done``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, timed_reply
from asil.tasks.model import Task

FAULTS = ("malformed", "wrong_action", "repeat", "premature_done")
WRONG_ACTION = {"action_type": "set_value", "target": "NoSuchSheet!A1", "params": {"value": 1}}
NO_CHANGE_ACTION = {"action_type": "navigate", "target": "A1"}


class ScriptedProvider:
    name = "scripted"

    def __init__(self, faults: list[str] | None = None):
        unknown = [f for f in faults or [] if f not in FAULTS]
        if unknown:
            raise LLMError(f"Unknown scripted fault {unknown[0]!r}.", hint=f"Faults: {', '.join(FAULTS)}.")
        self.faults = list(faults or [])
        self.task: Task | None = None
        self.calls: list[tuple[str, list[Message]]] = []  # every prompt, for inspection
        self._decisions = 0

    def bind(self, task: Task) -> None:
        self.task = task
        self._decisions = 0

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None) -> LLMReply:
        started = time.perf_counter()
        if self.task is None:
            raise LLMError("The scripted provider was not bound to a task.")
        self.calls.append((kind, messages))
        context = context or {}
        fault = None
        if kind in ("planner", "react"):
            fault = self.faults[self._decisions] if self._decisions < len(self.faults) else None
            self._decisions += 1
        reply = self._reply(kind, context, fault)
        text = "<think>Following the reference solution.</think>\n```json\n" + json.dumps(reply) + "\n```"
        if fault == "malformed":
            text = '```json\n{"actions": [{"channel": "api", "action": {"action_type": \n```'
        return timed_reply(text, messages, started)

    # ------------------------------------------------------------ replies per call kind
    def _reply(self, kind: str, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        if kind == "repair":
            return self._reply(context.get("for_kind", "planner"), context, None)
        builders = {"react": self._react, "planner": self._planner, "abstraction": self._abstraction,
                    "verification": self._verification, "refinement": self._refinement}
        if kind not in builders:
            raise LLMError(f"The scripted provider has no replies for {kind!r} calls.")
        return builders[kind](context, fault)

    def _remaining(self, context: dict[str, Any]) -> list[dict[str, Any]]:
        assert self.task is not None
        reference = [a.model_dump(mode="json") for a in self.task.reference if not a.is_control]
        done = [json.dumps(a, sort_keys=True) for a in context.get("succeeded", [])]
        cursor = 0
        for action in done:
            if cursor < len(reference) and action == json.dumps(reference[cursor], sort_keys=True):
                cursor += 1
        return reference[cursor:]

    def _ending(self) -> str:
        assert self.task is not None
        return "infeasible" if self.task.reference[-1].action_type == "infeasible" else "done"

    def _next_actions(self, context: dict[str, Any], fault: str | None) -> list[dict[str, Any]] | str:
        if fault == "wrong_action":
            return [WRONG_ACTION]
        if fault == "repeat":
            return [NO_CHANGE_ACTION]
        if fault == "premature_done":
            return "done"
        remaining = self._remaining(context)
        return remaining or self._ending()

    def _react(self, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        step = self._next_actions(context, fault)
        action = {"action_type": step} if isinstance(step, str) else step[0]
        return {"thought": "Next step of the plan.", "action": action}

    def _planner(self, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        fmt = context.get("format", {})
        step = self._next_actions(context, fault)
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

    def _abstraction(self, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        if context.get("status") != "ok":
            return {"evidence": f"The action failed: {context.get('error', 'unknown error')}", "state": "error"}
        state = "continue" if context.get("pending", 0) else "advance"
        return {"evidence": f"Applied {json.dumps(context.get('action'))}; changed {context.get('changed', [])}.",
                "state": state}

    def _verification(self, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        remaining = self._remaining(context)
        if remaining:
            return {"verdict": "reject", "reason": f"{len(remaining)} required change(s) are not made yet."}
        return {"verdict": "accept", "reason": "Every required change is visible in the state."}

    def _refinement(self, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        evidence = context.get("evidence", [])
        return {"summary": f"{len(evidence)} facts established so far: " + "; ".join(evidence[-3:])}
