"""Result-directory records (contract): trajectory lines and the episode result."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from asil.evaluate.evaluator import CheckpointVerdict
from asil.protocol import Action, ActionError
from asil.workspace import atomic_write

# timeout and crash are written by the bench harness when a worker had to be killed or died.
# verification_failed: the agent's own final check refused its finish as often as it allows (LSTC max_replans).
Termination = Literal["done", "infeasible", "budget", "stall_cutoff", "verification_failed", "llm_error",
                      "agent_error", "env_error", "timeout", "crash"]


class TraceLine(BaseModel):
    """One step of ``traj.jsonl``."""

    model_config = ConfigDict(extra="forbid")

    step: int
    observation_digest: str = Field(description="sha256 of the observation the agent acted on")
    observation: dict[str, Any] | None = Field(None, description="the full observation, when recorded")
    thought: str = ""
    action: Action | None
    channel: str = "api"
    status: Literal["ok", "invalid", "error"]
    error: ActionError | None = None
    changed: list[str] = Field(default_factory=list)
    output: str | None = None
    latency_ms: float
    tokens: dict[str, int] = Field(default_factory=dict)
    agent_log: dict[str, Any] | None = Field(None, description="the agent's own record of this step (LSTC: the "
                                             "planner's candidates and choice, the route given to the previous "
                                             "step's outcome and the rule that set it)")


class EpisodeResult(BaseModel):
    """``result.json`` of one episode."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    suite: str
    apps: list[str]
    domain: str = ""
    agent: str
    score: float
    success: bool
    checkpoints: list[CheckpointVerdict]
    steps: int
    budget: int
    tokens: dict[str, int] = Field(default_factory=dict)
    time_s: float
    termination: Termination
    error: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict, description="agent metrics (LSTC: commitments, "
                                    "channels, verification class, runtime events, usage per call kind)")


class TraceWriter:
    """Appends trajectory lines; each line is flushed so an interrupted run keeps its steps."""

    def __init__(self, folder: Path, full_observations: bool = False):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.full = full_observations
        self._handle = open(folder / "traj.jsonl", "w", encoding="utf-8")

    def write(self, line: TraceLine) -> None:
        self._handle.write(line.model_dump_json(exclude_none=True) + "\n")
        self._handle.flush()

    def finish(self, result: EpisodeResult) -> None:
        self._handle.close()
        atomic_write(self.folder / "result.json", result.model_dump_json(indent=2).encode())
        atomic_write(self.folder / "result.txt", f"{result.score:g}\n".encode())
