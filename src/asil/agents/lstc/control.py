"""Short-to-Long control: outcomes become evidence, evidence routes control, state stays small."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any

from asil.agents.llm_agent import ModelClient
from asil.agents.lstc.config import LSTCConfig
from asil.agents.lstc.state import ControlState, Route
from asil.agents.prompting import render
from asil.llm.parse import DecisionParseError
from asil.protocol import Action, ActionResult

PROMPTS = "asil.agents.lstc"
ROUTES = ("continue", "advance", "error")
# Reply schemas for constrained decoding (``--constrained``); the checks below still run on every reply.
SENTENCES = {"type": "string", "maxLength": 300}  # bounded, so a grammar ends a small model's rambling (see schemas)
ABSTRACTION = {"type": "object", "required": ["evidence", "state"],
               "properties": {"evidence": SENTENCES, "state": {"type": "string", "enum": list(ROUTES)}}}
VERIFICATION = {"type": "object", "required": ["verdict", "reason"],
                "properties": {"verdict": {"type": "string", "enum": ["accept", "reject"]}, "reason": SENTENCES}}
REFINEMENT = {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string", "maxLength": 600}}}


@dataclass
class Executed:
    """One action the controller issued, with what it saw before it."""

    channel: str
    action: Action
    digest_before: str
    summary_before: str
    pending_after: int  # committed actions still queued behind this one
    step: int = 0  # the episode step that issued it

    @property
    def key(self) -> str:
        return self.channel + json.dumps(self.action.model_dump(mode="json"), sort_keys=True)


def describe(executed: Executed, result: ActionResult) -> str:
    text = f"{result.status}"
    if result.error:
        text += f": {result.error.message}" + (f" ({result.error.hint})" if result.error.hint else "")
    if result.changed:
        text += f"; changed {', '.join(result.changed[:12])}"
    if result.output:
        text += f"; output: {result.output.strip()[:400]}"
    return text


def raw_evidence(executed: Executed, result: ActionResult) -> tuple[str, Route]:
    """Deterministic evidence when Step Abstraction is ablated (Table 11): action, status, change, output."""
    action = json.dumps(executed.action.model_dump(mode="json", exclude_defaults=True))
    evidence = f"{executed.channel} {action} -> {describe(executed, result)}"
    if not result.ok:
        return evidence, "error"
    return evidence, "continue" if executed.pending_after else "advance"


def abstract_step(client: ModelClient, state: ControlState, cfg: LSTCConfig, executed: Executed,
                  result: ActionResult, summary_after: str) -> tuple[str, Route]:
    """Step Abstraction: a model call turns action + result + state change into subgoal-conditioned evidence."""
    aligned = cfg.subgoal_evidence and state.subgoal is not None
    goal = state.subgoal.text if aligned and state.subgoal else state.task
    prompt = render(PROMPTS, "abstraction.md", scope="subgoal" if aligned else "task",
                    scope_title="Subgoal" if aligned else "Task", goal=goal, channel=executed.channel,
                    action=json.dumps(executed.action.model_dump(mode="json", exclude_defaults=True)),
                    result=describe(executed, result), before=executed.summary_before, after=summary_after)
    context = {"status": result.status, "error": result.error.message if result.error else None,
               "pending": executed.pending_after, "action": executed.action.model_dump(mode="json"),
               "changed": result.changed}
    data = client.ask("abstraction", [{"role": "user", "content": prompt}], context, check=_check_abstraction,
                      schema=ABSTRACTION)
    return str(data["evidence"]), data["state"]


def _check_abstraction(data: dict[str, Any]) -> None:
    if not isinstance(data.get("evidence"), str) or data.get("state") not in ROUTES:
        raise DecisionParseError('The reply must be {"evidence": "...", "state": "continue" | "advance" | "error"}.')


class LoopGuard:
    """Repeated-action and action-result loop checks over the last few steps.

    A loop is an (action, resulting state) pair seen before *with no document change in between*: A->B->A
    that only moves around is a loop, A->B->A where the steps changed the document (a toggle, an edit and
    its undo-and-redo) is progress. ``result.changed`` is the adapter's report of what the step changed.
    """

    def __init__(self, window: int):
        self.last_key: str | None = None
        self.pairs: deque[tuple[str, str, int]] = deque(maxlen=window)
        self.revision = 0  # document changes seen so far

    def check(self, executed: Executed, digest_after: str, changed_document: bool) -> str | None:
        """'stall' for the same action again with no change, 'loop' for a recurring (action, result)."""
        finding = None
        if executed.key == self.last_key and executed.digest_before == digest_after:
            finding = "stall"
        elif (executed.key, digest_after, self.revision) in self.pairs:
            finding = "loop"
        self.last_key = executed.key
        self.pairs.append((executed.key, digest_after, self.revision))
        self.revision += changed_document
        return finding


@dataclass
class Routing:
    """How one outcome was routed: what the model said, what the rules made of it, and why."""

    model: Route  # from Step Abstraction, or the raw-evidence rule when it is ablated
    assigned: Route
    rule: str  # "model", "execution_failure", "stall" or "loop"
    finding: str | None  # the LoopGuard's finding, applied or not

    def as_dict(self, step: int, applied: bool) -> dict[str, Any]:
        return {"of_step": step, "model": self.model, "assigned": self.assigned, "rule": self.rule, "finding": self.finding,
                "applied": applied}


def route_step(model: Route, result: ActionResult, finding: str | None, enforce: bool) -> Routing:
    """The deterministic rules over the model's route (paper Table 11, stall and loop handling):
    a failed execution is an error whatever the model says; a stall or loop finding overrides it."""
    if enforce and not result.ok:
        return Routing(model, "error", "execution_failure", finding)
    if enforce and finding is not None:
        return Routing(model, "stall", finding, finding)
    return Routing(model, model, "model", finding)


def recovery_feedback(state: ControlState, executed: Executed, result: ActionResult, route: Route,
                      finding: str | None) -> str:
    """State-conditioned feedback for the next planner call."""
    goal = f" while working on subgoal '{state.subgoal.text}'" if state.subgoal else ""
    action = json.dumps(executed.action.model_dump(mode="json", exclude_defaults=True))
    if route == "error":
        return (f"RECOVERY: the last step{goal} failed: {action} -> {describe(executed, result)}. The state did not "
                "take that change. Fix the cause (target, parameters, syntax) or choose another way; do not repeat it "
                "unchanged.")
    what = "repeated the same action with no effect" if finding == "stall" else "returned to a state seen before"
    return (f"STALL: the last step{goal} {what} ({action}); {state.consecutive_stalls} stall(s) in a row. Change "
            "approach: look at the observation, check the evidence, or finish if the task is already complete.")


def refine_context(client: ModelClient, state: ControlState) -> None:
    """Context Refinement: fold evidence into the refined history so the planner context stays small."""
    evidence = state.all_evidence()[-12:]
    prompt = render(PROMPTS, "refinement.md", task=state.task, refined=state.refined_history or "(none)",
                    evidence="\n".join(f"- {e}" for e in evidence) or "(none)")
    data = client.ask("refinement", [{"role": "user", "content": prompt}], {"evidence": evidence},
                      check=_check_refinement, schema=REFINEMENT)
    state.refined_history = str(data["summary"])[:2000]
    state.refinements += 1
    state.steps_since_refinement = 0


def _check_refinement(data: dict[str, Any]) -> None:
    if not isinstance(data.get("summary"), str):
        raise DecisionParseError('The reply must be {"summary": "..."}.')


def verify_finish(client: ModelClient, state: ControlState, observation: str,
                  context: dict[str, Any]) -> tuple[bool, str]:
    """Final Verification: accept the planner's finish only if the state shows every requirement met."""
    prompt = render(PROMPTS, "verification.md", task=state.task, observation=observation,
                    evidence="\n".join(f"- {e}" for e in state.all_evidence()[-12:]) or "(none)")
    data = client.ask("verification", [{"role": "user", "content": prompt}], context, check=_check_verdict,
                      schema=VERIFICATION)
    return data["verdict"] == "accept", str(data.get("reason", ""))


def _check_verdict(data: dict[str, Any]) -> None:
    if data.get("verdict") not in ("accept", "reject"):
        raise DecisionParseError('The reply must be {"verdict": "accept" | "reject", "reason": "..."}.')
