"""Result-directory records (contract): trajectory lines and the episode result."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from asil.evaluate.evaluator import CheckpointVerdict
from asil.protocol import Action, ActionError
from asil.workspace import atomic_write

if TYPE_CHECKING:
    from asil.evaluate.evaluator import Evaluation
    from asil.tasks.model import Task

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


class ModelCall(BaseModel):
    """One line of ``calls.jsonl``: a model call as it happened, written (and flushed) when it returns, so an
    episode stopped by a timeout still has every call it made."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(description="steps executed before the call (the call serves step+1, or judges step)")
    kind: str = Field(description="planner, abstraction, verification, refinement, repair, react, ...")
    text: str = Field(description="the raw reply, exactly as the model sent it ('' when the call failed)")
    prompt_tokens: int
    completion_tokens: int
    estimated: bool = Field(description="token counts were estimated because the server sent none")
    seconds: float = Field(description="wall time the agent waited for this call, failed calls included")
    finish_reason: str | None = None
    stopped_early: bool = Field(False, description="streamed, and closed as soon as the reply held a usable answer")
    cap: int | None = Field(None, description="the completion cap (max_tokens) the call was sent with, when known")
    error: str | None = Field(None, description="why the call failed (timeout, refusal); no reply then")


def call_totals(calls: list[ModelCall]) -> dict[str, int]:
    """The episode's one token total: every call, answered or failed."""
    if not calls:
        return {}
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    return {"prompt": prompt, "completion": completion, "total": prompt + completion, "calls": len(calls)}


def read_calls(data: bytes) -> list[ModelCall]:
    """The calls of a ``calls.jsonl``; a line cut short by a kill is skipped."""
    calls = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            calls.append(ModelCall.model_validate_json(line))
        except ValueError:
            continue
    return calls


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
    tokens: dict[str, int] = Field(default_factory=dict, description="the episode's one token total over every "
                                   "model call (calls.jsonl), failed and timed-out calls included; "
                                   "metrics.tokens, when an agent keeps it, is the same")
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
        self._calls_handle = open(folder / "calls.jsonl", "w", encoding="utf-8")
        self.calls: list[ModelCall] = []

    def write(self, line: TraceLine) -> None:
        self._handle.write(line.model_dump_json(exclude_none=True) + "\n")
        self._handle.flush()

    def call(self, call: ModelCall) -> None:
        self.calls.append(call)
        self._calls_handle.write(call.model_dump_json(exclude_none=True) + "\n")
        self._calls_handle.flush()

    def finish(self, result: EpisodeResult) -> None:
        self._handle.close()
        self._calls_handle.close()
        atomic_write(self.folder / "result.json", result.model_dump_json(indent=2).encode())
        atomic_write(self.folder / "result.txt", f"{result.score:g}\n".encode())


def finish_episode(writer: TraceWriter, task: Task, agent: Any, evaluation: Evaluation | None, metrics: dict[str, Any],
                   *, steps: int, budget: int, termination: str, error: str | None, started: float) -> EpisodeResult:
    """The episode's result, written with its trace. One token total per episode, counted from the calls
    (the agent's own count may miss failed or late ones)."""
    tokens = call_totals(writer.calls)
    if "tokens" in metrics:
        metrics["tokens"] = tokens
    result = EpisodeResult(
        task_id=task.id, suite=task.suite, apps=task.apps, domain=task.domain,
        agent=getattr(agent, "name", type(agent).__name__),
        score=evaluation.score if evaluation else 0.0, success=bool(evaluation and evaluation.success),
        checkpoints=evaluation.checkpoints if evaluation else [], steps=steps, budget=budget,
        tokens=tokens, time_s=round(time.monotonic() - started, 3), termination=termination, error=error,
        metrics=metrics)
    writer.finish(result)
    return result


def evaluate_anyway(env: Any) -> Evaluation | None:
    """The environment's evaluation, or None when the state could not be judged (the episode already has its
    reason)."""
    try:
        return env.evaluate()  # type: ignore[no-any-return]
    except Exception:
        return None
