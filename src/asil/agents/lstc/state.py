"""Persistent control state, kept outside the transcript (the heart of LocalLSTC)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

SubgoalStatus = Literal["active", "done", "failed", "superseded"]
Route = Literal["continue", "advance", "error", "stall", "finish"]
TASK_LEVEL = 0  # evidence key when evidence is not aligned to subgoals


@dataclass
class Subgoal:
    id: int
    text: str
    started_step: int
    status: SubgoalStatus = "active"
    actions: int = 0
    last_route: Route | None = None  # the route given to the latest outcome under this subgoal

    def close(self) -> None:
        """Leave the subgoal: ``failed`` if its last outcome was an error or a stall, else ``superseded``."""
        if self.status == "active":
            self.status = "failed" if self.last_route in ("error", "stall") else "superseded"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "status": self.status, "started_step": self.started_step,
                "actions": self.actions}


@dataclass
class Verification:
    step: int
    verdict: Literal["accept", "reject"]
    reason: str
    infeasible: bool = False


@dataclass
class Events:
    """Runtime events of Table 4: counted, and whether each was entered at least once."""

    stalls: int = 0  # findings of the LoopGuard, logged whether or not stall/loop handling applies them
    loops: int = 0
    recovery_entries: int = 0
    rejected_terminations: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"stall_repetition": self.stalls + self.loops, "stalls": self.stalls, "loops": self.loops,
                "recovery_entries": self.recovery_entries, "rejected_terminations": self.rejected_terminations,
                "entered": {"stall_repetition": self.stalls + self.loops > 0,
                            "recovery": self.recovery_entries > 0,
                            "rejected_termination": self.rejected_terminations > 0}}


@dataclass
class ControlState:
    task: str
    subgoal: Subgoal | None = None
    subgoals: list[Subgoal] = field(default_factory=list)  # history, including the current one
    evidence: dict[int, list[str]] = field(default_factory=dict)
    refined_history: str = ""
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=5))
    feedback: str = ""  # runtime feedback for the next planner call (recovery, stall, rejection)
    verifications: list[Verification] = field(default_factory=list)
    events: Events = field(default_factory=Events)
    consecutive_stalls: int = 0
    steps_since_refinement: int = 0
    refinements: int = 0

    def new_subgoal(self, text: str, step: int) -> Subgoal:
        if self.subgoal is not None:
            self.subgoal.close()
        self.subgoal = Subgoal(id=len(self.subgoals) + 1, text=text, started_step=step)
        self.subgoals.append(self.subgoal)
        return self.subgoal

    def abandon_subgoal(self) -> None:
        """The episode ends without finishing the active subgoal (stall cutoff, verification failure)."""
        if self.subgoal is not None and self.subgoal.status == "active":
            self.subgoal.status = "failed"

    def evidence_key(self, aligned: bool) -> int:
        return self.subgoal.id if aligned and self.subgoal is not None else TASK_LEVEL

    def add_evidence(self, text: str, aligned: bool) -> None:
        self.evidence.setdefault(self.evidence_key(aligned), []).append(text)

    def all_evidence(self) -> list[str]:
        return [item for key in sorted(self.evidence) for item in self.evidence[key]]
