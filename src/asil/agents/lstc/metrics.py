"""Episode metrics of Table 2 and Table 4, computed from the controller's own records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from asil.agents.lstc.agent import LSTCAgent

CUTOFFS = ("stall_cutoff", "budget")


def verification_class(agent: LSTCAgent, termination: str) -> str | None:
    """Pass / Fail / Bypass exactly as defined under the paper's Table 2; None for an episode that neither
    verified nor reached a cutoff (llm_error, agent_error, timeout, or finishing with verification ablated)."""
    history = agent.state.verifications
    explicit_infeasible = any(v.infeasible for v in history)
    if termination in CUTOFFS and not explicit_infeasible:
        return "Bypass"
    if not history:
        return None
    return "Fail" if any(v.verdict == "reject" for v in history) else "Pass"


def episode_metrics(agent: LSTCAgent, termination: str) -> dict[str, Any]:
    counts, state = agent.counts, agent.state
    actions = counts.get("api", 0) + counts.get("bash", 0) + counts.get("gui", 0)
    emitted = actions + counts.get("control", 0)
    planner_steps = counts.get("planner_steps", 0)
    commitments = counts.get("commitments", 0)  # planner steps that committed actions (not finish/infeasible)
    subgoals = len(state.subgoals)
    return {
        "planner_steps": planner_steps,
        "planner_errors": counts.get("planner_errors", 0),  # replies still malformed after the repair round
        "parse_errors": {kind: counts.get(f"{kind}_errors", 0)  # every call kind: none of them ends the episode
                         for kind in ("planner", "abstraction", "refinement", "verification")},
        "steps": counts.get("steps", 0),
        "abstractions_skipped": counts.get("abstractions_skipped", 0),  # failed steps, with no-failure-abstraction
        "actions": actions,
        "subgoals": subgoals,
        "subgoal_history": [s.as_dict() for s in state.subgoals],
        "actions_per_subgoal": round(actions / subgoals, 3) if subgoals else 0.0,
        "actions_per_step": round(actions / commitments, 3) if commitments else 0.0,
        "channel_shares": {name: round(counts.get(name, 0) / emitted, 3) if emitted else 0.0
                           for name in ("api", "bash", *(("gui",) if agent.cfg.gui_channel else ()), "control")},
        "screens_sent": counts.get("screens_sent", 0),  # planner calls that carried the GUI window's screenshot
        "context_refinements": state.refinements,
        "final_verification": [{"step": v.step, "verdict": v.verdict, "reason": v.reason, "infeasible": v.infeasible}
                               for v in state.verifications],
        "verification_class": verification_class(agent, termination),
        "stop_log": agent.stop_log,  # agent_log of the step that stopped the episode: it has no trace line
        "routes": {route: agent.routes.count(route) for route in ("continue", "advance", "error", "stall", "finish")},
        "events": state.events.as_dict(),
        "repairs": agent.client.repairs,
        "model_calls": agent.client.usage.as_dict(),
        "tokens": agent.client.usage.totals(),
        "controller_ms_per_step": round(agent.controller_seconds * 1000 / max(counts.get("steps", 0), 1), 3),
        "config": agent.cfg.model_dump(),
    }
