"""Which episodes the judge reads (failed or suspicious ones), and what it reads of each."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from asil.report.runs import Run
from asil.report.viewer import read_trajectory
from asil.runner.trace import EpisodeResult

AGENT_ENDINGS = ("done", "infeasible")
MAX_STEPS_SHOWN = 60  # longer traces keep their first 10 and last 50 steps
FIELD_CHARS = 400


@dataclass
class Episode:
    """One finished task of a run, as the annotator sees it."""

    result: EpisodeResult
    instruction: str
    steps: list[dict[str, Any]]
    reasons: list[str] = field(default_factory=list)  # why the judge reads it; empty = a clean success

    @property
    def task_id(self) -> str:
        return self.result.task_id

    @property
    def judged(self) -> bool:
        return bool(self.reasons)


def review_reasons(result: EpisodeResult, steps: list[dict[str, Any]]) -> list[str]:
    """Why an episode needs a judge: it failed, or it succeeded with signs of a control problem."""
    reasons = [] if result.success else ["failed"]
    if result.termination not in AGENT_ENDINGS:
        reasons.append(f"ended by {result.termination}")
    bad = [s for s in steps if s.get("status") in ("invalid", "error")]
    if bad:
        reasons.append(f"{len(bad)} invalid or failed steps")
    metrics = result.metrics
    entered = (metrics.get("events") or {}).get("entered") or {}
    reasons += [f"entered {name}" for name, on in sorted(entered.items()) if on]
    if metrics.get("verification_class") in ("Fail", "Bypass"):
        reasons.append(f"verification class {metrics['verification_class']}")
    if metrics.get("repairs"):
        reasons.append(f"{metrics['repairs']} repaired model replies")
    return reasons


def load_episodes(run: Run, instructions: dict[str, str]) -> list[Episode]:
    episodes = []
    for result in run.ordered:
        steps = read_trajectory(run.folder / result.task_id)
        episodes.append(Episode(result, instructions.get(result.task_id, "(instruction unavailable)"), steps,
                                review_reasons(result, steps)))
    return episodes


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= FIELD_CHARS else text[:FIELD_CHARS] + f"... ({len(text)} chars)"


def step_text(step: dict[str, Any]) -> str:
    parts = [f"step {step.get('step')} [{step.get('channel', 'api')}]"]
    if step.get("thought"):
        parts.append(f"thought: {_short(step['thought'])}")
    parts.append(f"action: {_short(step.get('action')) if step.get('action') is not None else '(no usable action)'}")
    parts.append(f"result: {step.get('status')}" + (f", changed {len(step['changed'])} elements"
                                                     if step.get("changed") else ", nothing changed"))
    error = step.get("error")
    if error:
        parts.append(f"error: {_short(error.get('message', ''))}" + (f" hint: {_short(error['hint'])}"
                                                                      if error.get("hint") else ""))
    if step.get("output"):
        parts.append(f"output: {_short(step['output'])}")
    return "\n  ".join(parts)


def controller_records(metrics: dict[str, Any]) -> dict[str, Any]:
    """The LocalLSTC records that bear on control (empty for agents that keep none)."""
    keep = ("subgoals", "routes", "events", "final_verification", "verification_class", "repairs")
    return {key: metrics[key] for key in keep if key in metrics}


def episode_text(episode: Episode) -> str:
    """The episode as the judge reads it."""
    result, steps = episode.result, episode.steps
    shown = steps if len(steps) <= MAX_STEPS_SHOWN else steps[:10] + [{"elided": len(steps) - 60}] + steps[-50:]
    lines = [f"TASK: {episode.instruction}", f"APPS: {', '.join(result.apps)}", "", "STEPS:"]
    for step in shown:
        lines.append(f"  ({step['elided']} steps left out)" if "elided" in step else "  " + step_text(step))
    if not steps:
        lines.append("  (no steps were recorded)")
    failed = [v for v in result.checkpoints if not v.passed]
    lines += ["", f"ENDING: {result.termination} after {result.steps} of {result.budget} steps; "
              f"evaluator: {'success' if result.success else 'failure'} (score {result.score:.2f})"]
    if failed:
        lines.append("FAILED CHECKPOINTS: " + "; ".join(f"{v.type} {v.target}: got {_short(v.actual)}"
                                                       + (f" ({v.detail})" if v.detail else "") for v in failed))
    if result.error:
        lines.append(f"ERROR: {_short(result.error.splitlines()[0])}")
    records = controller_records(result.metrics)
    if records:
        lines.append("CONTROLLER RECORDS: " + json.dumps(records, sort_keys=True))
    return "\n".join(lines)
