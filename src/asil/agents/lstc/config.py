"""LocalLSTC configuration, and every ablation of the paper's Tables 10 and 11 as a switch."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.protocol import AsilError


class LSTCConfig(BaseModel):
    """Mechanism switches (all on = Full LocalLSTC) and control limits."""

    model_config = ConfigDict(extra="forbid")

    # Long-to-Short planning
    subgoal_labels: bool = Field(True, description="the planner names the subgoal each commitment serves")
    persistent_subgoal: bool = Field(True, description="planner sees the current subgoal and may 'continue' it")
    candidates: bool = Field(True, description="compare up to max_candidates proposals, name the best with a rationale")
    multi_action: bool = Field(True, description="commit to an ordered action list, not one action a call")
    # Short-to-Long control
    step_abstraction: bool = Field(True, description="a model call turns each outcome into evidence")
    abstract_failures: bool = Field(True, description="Step Abstraction asks the model about failed steps too (off: "
                                    "a failed step's evidence is its error message, one call less per failure)")
    subgoal_evidence: bool = Field(True, description="evidence is aligned to subgoals (else task-level)")
    routing: bool = Field(True, description="apply continue/advance/error/stall/finish routing to control")
    subgoal_transitions: bool = Field(True, description="'advance' closes the subgoal (stage transitions)")
    recovery_feedback: bool = Field(True, description="state-conditioned error and stall feedback to the planner")
    stall_loop: bool = Field(True, description="apply stall/loop findings (route to stall, cutoff) and remap a "
                             "failed step to error; findings are logged even when this is off")
    advance_refinement: bool = Field(True, description="Context Refinement on advance (else only periodic)")
    final_verification: bool = Field(True, description="verify before accepting finish")
    # limits
    max_candidates: int = Field(3, ge=1, le=3, description="most candidate proposals a planner reply may carry "
                                "(paper Table 5)")
    max_actions: int = Field(5, ge=1, le=20, description="longest committed action list")
    recent_steps: int = Field(5, ge=1, description="abstracted steps kept verbatim in the planner context")
    evidence_window: int = Field(8, ge=1, description="evidence items shown for the current subgoal")
    refine_interval: int = Field(8, ge=1, description="maximum steps between Context Refinements")
    stall_cutoff: int = Field(3, ge=1, description="consecutive stalls that end the episode")
    loop_window: int = Field(6, ge=2, description="recent (action, result) pairs checked for loops")
    max_replans: int = Field(3, ge=1, description="Final Verification rejections in one step before the episode "
                             "ends as verification_failed")
    bash_timeout_s: float = Field(30.0, gt=0)
    # Execution channels besides api and bash
    gui_channel: bool = Field(False, description="the planner may route a step to the GUI channel: computer-use input "
                              "on the app's real window (needs the app's GUI launch spec; see docs/gui.md)")

    @property
    def verifies(self) -> bool:
        return self.final_verification and self.routing


# Each ablation lists exactly the mechanisms it removes (Table 10 grouped, Table 11 components).
ABLATIONS: dict[str, dict[str, Any]] = {
    "no-l2s": {"subgoal_labels": False, "persistent_subgoal": False, "candidates": False, "multi_action": False,
               "subgoal_evidence": False, "subgoal_transitions": False, "advance_refinement": False},
    "no-s2l": {"routing": False, "recovery_feedback": False, "subgoal_evidence": False, "advance_refinement": False,
               "final_verification": False, "stall_loop": False},
    "no-persistent-subgoal": {"persistent_subgoal": False},
    "no-candidates": {"candidates": False},
    "no-multi-action": {"multi_action": False},
    "no-step-abstraction": {"step_abstraction": False},
    "no-routing": {"routing": False, "recovery_feedback": False, "advance_refinement": False,
                   "final_verification": False, "stall_loop": False},
    "no-stall-loop": {"stall_loop": False},
    # Not in the paper: for slow local models. Routing sends a failed step to error whatever the model says,
    # so the abstraction call of a failure only restates its error message.
    "no-failure-abstraction": {"abstract_failures": False},
}


class UnknownAblation(AsilError):
    code = "unknown_ablation"


def ablation_names(ablate: list[str] | str | None) -> list[str]:
    """The ablations named by ``--ablate``/``ablate=``: ``"no-l2s, no-candidates"`` or a list, blanks dropped.

    The one parser of ablation names: the LSTC agent configures itself from it and a bench records it.
    """
    return [n.strip() for n in (ablate.split(",") if isinstance(ablate, str) else ablate or []) if n.strip()]


def configure(ablate: list[str] | str | None = None, **overrides: Any) -> LSTCConfig:
    """A config with the named ablations applied: ``configure("no-l2s,no-candidates")``."""
    values: dict[str, Any] = {}
    for name in ablation_names(ablate):
        if name not in ABLATIONS:
            raise UnknownAblation(f"Unknown ablation {name!r}.", hint=f"Ablations: {', '.join(ABLATIONS)}.")
        values.update(ABLATIONS[name])
    return LSTCConfig(**{**values, **overrides})
