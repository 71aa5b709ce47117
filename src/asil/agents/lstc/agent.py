"""The LocalLSTC agent: persistent control state, Long-to-Short planning, Short-to-Long control."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from asil.agents.base import Decision
from asil.agents.llm_agent import ModelClient, parse_feedback, quote_reply
from asil.agents.lstc import control
from asil.agents.lstc.config import LSTCConfig, configure
from asil.agents.lstc.metrics import episode_metrics
from asil.agents.lstc.planner import Commitment, parse_commitment, planner_messages, system_prompt
from asil.agents.lstc.schemas import planner_schema
from asil.agents.lstc.state import ControlState, Route, Verification
from asil.agents.prompting import schema_text, state_text
from asil.llm.parse import DecisionParseError
from asil.protocol import Action, ActionResult, ActionSchema, Observation
from asil.tasks.model import Task


class LSTCAgent:
    name = "lstc"

    def __init__(self, model: str = "scripted", ablate: list[str] | str | None = None,
                 config: LSTCConfig | None = None, max_candidates: int | None = None, gui_channel: bool = False,
                 schema_detail: str = "full", **options: Any):
        limits: dict[str, Any] = {"max_candidates": max_candidates} if max_candidates is not None else {}
        if gui_channel:
            limits["gui_channel"] = True
        self.cfg = config or configure(ablate, **limits)
        schema_text({}, schema_detail)  # refuses an unknown detail now, not at the first task
        self.schema_detail = schema_detail  # "compact": fewer prompt tokens for small local models
        self.client = ModelClient.from_options(model, **options)
        self.state = ControlState(task="")
        self.queue: deque[tuple[str, Action]] = deque()
        self.inflight: control.Executed | None = None
        self.guard = control.LoopGuard(self.cfg.loop_window)
        self.system = ""
        self.reply_schema: dict[str, Any] = {}
        self.succeeded: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}
        self.routes: list[Route] = []
        self.step_log: dict[str, Any] = {}  # this step's control record, written to the trace as agent_log
        self.stop_log: dict[str, Any] | None = None  # the record of a step that ended the episode (no trace line)
        self.controller_seconds = 0.0
        self.screen: bytes | None = None  # the GUI channel's last screenshot, shown to the next planner call

    # ------------------------------------------------------------ agent protocol
    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self.client.bind(task)
        self.state = ControlState(task=task.instruction, recent=deque(maxlen=self.cfg.recent_steps))
        self.queue.clear()
        self.inflight = None
        self.guard = control.LoopGuard(self.cfg.loop_window)
        self.system = system_prompt(self.cfg, schema_text(schemas, self.schema_detail))
        self.reply_schema = planner_schema(self.cfg, schemas)
        self.succeeded, self.routes = [], []
        self.stop_log = None
        self.counts = {"planner_steps": 0, "planner_errors": 0, "commitments": 0, "api": 0, "bash": 0, "gui": 0, "control": 0,
                       "steps": 0, "abstraction_errors": 0, "abstractions_skipped": 0, "refinement_errors": 0,
                       "verification_errors": 0, "screens_sent": 0}
        self.controller_seconds = 0.0
        self.screen = None

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        started, model_before = time.perf_counter(), self._model_seconds()
        self.step_log = {}
        try:
            decision = self._act(observation, last)
            decision.log = self.step_log or None
            if decision.stop:
                self.stop_log = decision.log
            return decision
        finally:
            spent = time.perf_counter() - started - (self._model_seconds() - model_before)
            self.controller_seconds += spent

    def metrics(self, termination: str) -> dict[str, Any]:
        return episode_metrics(self, termination)

    # ------------------------------------------------------------ one step
    def _act(self, observation: Observation, last: ActionResult | None) -> Decision:
        self.counts["steps"] += 1
        if self.inflight is not None and last is not None:
            self._absorb(observation, last)
        if self.cfg.stall_loop and self.cfg.routing and self.state.consecutive_stalls >= self.cfg.stall_cutoff:
            self.state.abandon_subgoal()
            return Decision(action=None, stop="stall_cutoff", thought="consecutive-stall cutoff",
                            tokens=self.client.take_tokens())  # the step abstraction of the last stall
        if self.queue:
            return self._issue(observation, *self.queue.popleft())
        return self._plan(observation)

    def _plan(self, observation: Observation) -> Decision:
        # the state before the control state, which changes every step: while the state stands still (a small
        # model's failed steps) the server's prompt cache covers the system prompt, the task and the state
        text = state_text(observation)
        for _ in range(self.cfg.max_replans):
            self.counts["planner_steps"] += 1
            try:
                commitment = self._ask_planner(text)
            except DecisionParseError as exc:  # still unusable after the repair round: counted, step is invalid
                # The model sees its own reply and the error on the next call, and the failure counts toward
                # the stall cutoff: at temperature 0 the same prompt would give the same reply again.
                self.counts["planner_errors"] += 1
                self.step_log["planner_error"] = exc.message
                self.state.feedback = parse_feedback(exc)
                self.state.consecutive_stalls += 1
                return Decision(action=None, error=exc, tokens=self.client.take_tokens(),
                                thought=f"unusable reply: {quote_reply(exc.reply)}")
            self.step_log.setdefault("planner", []).append(commitment.record())
            if commitment.control is None:  # a finish decision opens no new stage of work
                self._update_subgoal(commitment)
                self.counts["commitments"] += 1
                self.queue.extend(commitment.steps)
                return self._issue(observation, *self.queue.popleft(), thought=commitment.rationale or commitment.why)
            decision = self._finish(commitment, text)
            if decision is not None:
                return decision
        # Final Verification refused every finish this step allows: the episode ends as a verification
        # failure, never as done.
        self.state.abandon_subgoal()
        return Decision(action=None, stop="verification_failed", tokens=self.client.take_tokens(),
                        thought=f"Final Verification rejected {self.cfg.max_replans} finishes in a row")

    def see_screen(self, picture: bytes | None) -> None:
        """The GUI channel's window after the last step (PNG), or None when that step used another channel."""
        self.screen = picture if self.cfg.gui_channel else None

    def _ask_planner(self, observation: str) -> Commitment:
        messages = planner_messages(self.state, self.cfg, self.system, observation, self.screen)
        self.counts["screens_sent"] += self.screen is not None
        context = {"succeeded": self.succeeded, "subgoal": self.state.subgoal.text if self.state.subgoal else None,
                   "format": {"candidates": self.cfg.candidates, "multi_action": self.cfg.multi_action,
                              "persistent_subgoal": self.cfg.persistent_subgoal,
                              "subgoal_labels": self.cfg.subgoal_labels, "max_candidates": self.cfg.max_candidates}}
        data = self.client.ask("planner", messages, context, check=self._check_commitment, schema=self.reply_schema)
        commitment = parse_commitment(data, self.cfg)
        self.state.feedback = ""  # consumed by this call
        return commitment

    def _check_commitment(self, data: dict[str, Any]) -> None:
        parse_commitment(data, self.cfg)  # raises DecisionParseError, which triggers the repair round

    def _update_subgoal(self, commitment: Commitment) -> None:
        if not self.cfg.subgoal_labels:  # w/o L2S: task-level control, no subgoal is opened
            return
        current = self.state.subgoal
        keep = (self.cfg.persistent_subgoal and commitment.subgoal_mode == "continue" and current is not None
                and current.status == "active")
        if not keep:
            self.state.new_subgoal(commitment.subgoal_text, self.counts["steps"])

    def _finish(self, commitment: Commitment, observation: str) -> Decision | None:
        self.routes.append("finish")
        if commitment.control == "infeasible":  # an explicit INFEASIBLE counts as an accepted verification
            self.state.verifications.append(Verification(self.counts["steps"], "accept", commitment.reason, True))
            return self._control("infeasible", commitment.reason)
        if not self.cfg.verifies:
            return self._control("done", commitment.reason)
        try:
            accepted, reason = control.verify_finish(self.client, self.state, observation,
                                                     {"succeeded": self.succeeded})
        except DecisionParseError as exc:  # an unreadable verdict accepts nothing
            self.counts["verification_errors"] += 1
            accepted, reason = False, f"the verification reply could not be read ({exc.message})"
        self.state.verifications.append(Verification(self.counts["steps"], "accept" if accepted else "reject", reason))
        self.step_log.setdefault("verification", []).append({"verdict": "accept" if accepted else "reject",
                                                             "reason": reason})
        if accepted:
            return self._control("done", commitment.reason)
        self.state.events.rejected_terminations += 1
        self.state.feedback = f"FINAL VERIFICATION REJECTED the finish: {reason} Continue the task."
        return None

    def _control(self, kind: str, reason: str) -> Decision:
        self.counts["control"] += 1
        params = {"reason": reason} if kind == "infeasible" else {}
        action = Action.model_validate({"action_type": kind, "params": params})
        return Decision(action=action, thought=reason, tokens=self.client.take_tokens())

    def _issue(self, observation: Observation, channel: str, action: Action, thought: str = "") -> Decision:
        self.counts[channel] += 1
        if self.state.subgoal is not None:
            self.state.subgoal.actions += 1
        self.inflight = control.Executed(channel, action, observation.digest(), observation.summary, len(self.queue),
                                         self.counts["steps"])
        return Decision(action=action, channel=channel, thought=thought, tokens=self.client.take_tokens())

    # ------------------------------------------------------------ Short-to-Long control
    def _absorb(self, observation: Observation, result: ActionResult) -> None:
        executed, self.inflight = self.inflight, None
        assert executed is not None
        if result.ok and executed.channel == "api":
            self.succeeded.append(executed.action.model_dump(mode="json"))
        if self.cfg.step_abstraction and not self.cfg.abstract_failures and self.cfg.stall_loop and not result.ok:
            # The rules route a failed step to error whatever the model says, and the error message is the
            # evidence: a model call would only restate it (on a small local model, 5-15 s per failed step).
            self.counts["abstractions_skipped"] += 1
            self.step_log["abstraction"] = "skipped: the step failed, routed to error by rule"
            evidence, model_route = control.raw_evidence(executed, result)
        elif self.cfg.step_abstraction:
            try:
                evidence, model_route = control.abstract_step(self.client, self.state, self.cfg, executed, result,
                                                              observation.summary)
            except DecisionParseError as exc:  # the deterministic evidence of the ablation stands in
                self.counts["abstraction_errors"] += 1
                self.step_log["abstraction_error"] = exc.message
                evidence, model_route = control.raw_evidence(executed, result)
        else:
            evidence, model_route = control.raw_evidence(executed, result)
        # The guard always looks, so every ablation logs stalls and loops; only stall_loop applies them.
        finding = self.guard.check(executed, observation.digest(), bool(result.changed))
        self.state.events.stalls += finding == "stall"
        self.state.events.loops += finding == "loop"
        routing = control.route_step(model_route, result, finding, self.cfg.stall_loop)
        self.step_log["route"] = routing.as_dict(executed.step, applied=self.cfg.routing)
        route = routing.assigned
        if not result.ok:  # a committed list stops early when an action fails
            self.queue.clear()
        self.routes.append(route)
        if self.state.subgoal is not None:
            self.state.subgoal.last_route = route
        self.state.add_evidence(evidence, self.cfg.subgoal_evidence)
        self.state.recent.append(f"{executed.channel}: {evidence}")
        self.state.steps_since_refinement += 1
        if self.cfg.routing:
            self._route(route, executed, result, finding)
        if self.state.steps_since_refinement >= self.cfg.refine_interval:
            self._refine("interval")  # maximum-interval fallback (periodic when ablated)

    def _route(self, route: Route, executed: control.Executed, result: ActionResult, finding: str | None) -> None:
        state = self.state
        state.consecutive_stalls = state.consecutive_stalls + 1 if route == "stall" else 0
        if route == "stall":
            self.queue.clear()
        if route == "error":
            state.events.recovery_entries += 1
        if route in ("error", "stall") and self.cfg.recovery_feedback:
            state.feedback = control.recovery_feedback(state, executed, result, route, finding)
        if route == "advance" and self.cfg.subgoal_transitions and state.subgoal is not None and not self.queue:
            state.subgoal.status = "done"
            if self.cfg.advance_refinement:
                self._refine("advance")

    def _refine(self, why: str) -> None:
        self.step_log["refinement"] = why
        try:
            control.refine_context(self.client, self.state)
        except DecisionParseError as exc:  # the refined history stays as it was until the next refinement
            self.counts["refinement_errors"] += 1
            self.step_log["refinement_error"] = exc.message
            self.state.steps_since_refinement = 0

    def _model_seconds(self) -> float:
        return sum(s.seconds for s in self.client.usage.by_kind.values())
