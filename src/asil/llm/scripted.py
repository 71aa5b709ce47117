"""The ``scripted`` provider: correct replies derived from the task's reference solution.

It lets the whole prompt -> parse -> control path run without a model. Replies are real text
(with a thinking block and a code fence, as small models write them) that the agents parse.
What a reply to each call kind looks like is the business of the agent that makes the call, so
the reply shapes live beside the agents (``asil.agents.react``, ``asil.agents.lstc.scripted``) and
are found through ``REPLY_SHAPES``, declared lazily here: this package does not import the agents.
``faults`` injects known mistakes into successive planner/react calls so tests can watch the
controller recover: ``malformed``, ``wrong_action``, ``repeat``, ``premature_done``, and the LSTC
ones its reply shapes read (``bad_best``, ``too_many_candidates``, ``failure_called_continue``,
``cycle``, ``toggle``); a judge call takes ``malformed`` only. The other calls made for that decision
(step abstraction, verification, refinement) see the same fault; a repair round sees it only for
faults ending in ``_twice``, which the repair repeats instead of fixing. Faults of the calls
themselves, for the failure and accounting paths: ``malformed_abstraction``, ``malformed_refinement``
and ``malformed_verification`` make that call kind's replies (its repair too) unparseable;
``malformed_twice`` is a decision reply the repair round does not fix either;
``truncated`` cuts the decision reply off with finish_reason ``length``; ``timeout`` waits
``TIMEOUT_WAIT_S`` and fails the decision call as a timed-out call; ``slow`` answers it correctly
after ``SLOW_S``. Only replies derived from
the reference need a bound task.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, Until, timed_reply
from asil.registry import Registry
from asil.tasks.model import Task

FAULTS = ("malformed", "wrong_action", "repeat", "premature_done", "bad_best", "bad_best_twice",
          "too_many_candidates", "failure_called_continue", "cycle", "toggle", "malformed_abstraction",
          "malformed_refinement", "malformed_verification", "truncated", "timeout", "slow", "malformed_twice")
TIMEOUT_WAIT_S = 0.2
SLOW_S = 1.0  # the ``slow`` fault: a decision call that answers correctly, late
MALFORMED = '```json\n{"actions": [{"channel": "api", "action": {"action_type": \n```'
TRUNCATED = '```json\n{"thought": "First I will look at the whole sheet, then at each column in turn, and then'

WRONG_ACTION = {"action_type": "set_value", "target": "NoSuchSheet!A1", "params": {"value": 1}}
NO_CHANGE_ACTION = {"action_type": "navigate", "target": "A1"}
# A->B->A twice over: once only moving around (a loop), once changing a cell each time (a toggle, progress).
CYCLE = [NO_CHANGE_ACTION, {"action_type": "navigate", "target": "B2"}, NO_CHANGE_ACTION]
TOGGLE = [{"action_type": "set_value", "target": "F1", "params": {"value": v}} for v in ("on", "off", "on")]

# A reply shape: (the provider, the call's context, the injected fault or None) -> the reply's JSON.
ReplyShape = Callable[["ScriptedProvider", dict[str, Any], str | None], dict[str, Any]]
REPLY_SHAPES: Registry[ReplyShape] = Registry("scripted reply shape")
REPLY_SHAPES.declare("react", "asil.agents.react:scripted_reply")
for _kind in ("planner", "abstraction", "verification", "refinement"):
    REPLY_SHAPES.declare(_kind, f"asil.agents.lstc.scripted:{_kind}_reply")
REPLY_SHAPES.declare("judge", "asil.annotate.scripted:judge_reply")  # control-failure annotation
REPLY_SHAPES.declare("onboard_draft", "asil.onboard.draft:scripted_reply")  # write paths drafted from prose
REPLY_SHAPES.declare("gui", "asil.agents.gui:scripted_reply")  # the GUI participant's recorded demonstrations
DECISION_KINDS = ("planner", "react", "judge")  # the calls whose replies ``faults`` replace, in turn


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
        self._fault: str | None = None  # the fault of the latest planner/react call

    def bind(self, task: Task) -> None:
        self.task = task
        self._decisions = 0
        self._fault = None

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply:
        started = time.perf_counter()
        self.calls.append((kind, messages))
        context = context or {}
        if kind in DECISION_KINDS:
            self._fault = self.faults[self._decisions] if self._decisions < len(self.faults) else None
            self._decisions += 1
        fault = self._fault
        if kind == "repair" and not (fault or "").endswith("_twice"):
            fault = None
        if self._fault == "timeout" and kind in DECISION_KINDS:
            time.sleep(TIMEOUT_WAIT_S)
            raise LLMError(f"The scripted {kind} call timed out (fault 'timeout').", code="llm_timeout",
                           seconds=time.perf_counter() - started)
        if self._fault == "slow" and kind in DECISION_KINDS:
            time.sleep(SLOW_S)
        if self._fault == "truncated" and kind in DECISION_KINDS:
            return timed_reply(TRUNCATED, messages, started, finish_reason="length")
        if self._fault == f"malformed_{context.get('for_kind', kind)}":
            return timed_reply(MALFORMED, messages, started)
        reply = self._reply(kind, context, fault)
        text = "<think>Following the reference solution.</think>\n```json\n" + json.dumps(reply) + "\n```"
        if fault in ("malformed", "malformed_twice") and (kind in DECISION_KINDS or kind == "repair"):
            text = MALFORMED
        return timed_reply(text, messages, started, finish_reason="stop")

    # ------------------------------------------------------------ replies per call kind
    def _reply(self, kind: str, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
        if kind == "repair":
            return self._reply(context.get("for_kind", "planner"), context, fault)
        if kind not in REPLY_SHAPES:
            raise LLMError(f"The scripted provider has no replies for {kind!r} calls.")
        return REPLY_SHAPES[kind](self, context, fault)

    # ------------------------------------------------------------ the reference, for the reply shapes
    def remaining(self, context: dict[str, Any]) -> list[dict[str, Any]]:
        """The reference actions (as JSON) not yet done, given ``context["succeeded"]``."""
        self._require_task()
        assert self.task is not None
        reference = [a.model_dump(mode="json") for a in self.task.reference if not a.is_control]
        done = [json.dumps(a, sort_keys=True) for a in context.get("succeeded", [])]
        cursor = 0
        for action in done:
            if cursor < len(reference) and action == json.dumps(reference[cursor], sort_keys=True):
                cursor += 1
        return reference[cursor:]

    def _require_task(self) -> None:
        if self.task is None:
            raise LLMError("The scripted provider was not bound to a task.")

    def _ending(self) -> str:
        self._require_task()
        assert self.task is not None
        return "infeasible" if self.task.reference[-1].action_type == "infeasible" else "done"

    def next_actions(self, context: dict[str, Any], fault: str | None) -> list[dict[str, Any]] | str:
        """What to do next: the remaining reference actions, else the ending (``done``/``infeasible``);
        an injected ``fault`` replaces them with its known mistake."""
        if fault in ("wrong_action", "failure_called_continue"):
            return [WRONG_ACTION]
        if fault in ("cycle", "toggle"):
            return CYCLE if fault == "cycle" else TOGGLE
        if fault == "repeat":
            return [NO_CHANGE_ACTION]
        if fault == "premature_done":
            return "done"
        remaining = self.remaining(context)
        return remaining or self._ending()
