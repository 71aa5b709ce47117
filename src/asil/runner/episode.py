"""The episode loop: the only place that wires an agent, an Env and the evaluator together."""

from __future__ import annotations

import time
import traceback
from collections import Counter
from pathlib import Path

from asil.agents.base import Agent
from asil.env import Env
from asil.protocol import ActionResult, AsilError
from asil.runner.trace import EpisodeResult, Termination, TraceLine, TraceWriter, digest
from asil.tasks.model import Task


def run_episode(task: Task, agent: Agent, out_dir: Path, budget: int | None = None,
                full_observations: bool = False) -> EpisodeResult:
    """Run one task to its end and write ``out_dir/<task_id>/`` (traj.jsonl, result.json, result.txt)."""
    started = time.monotonic()
    writer = TraceWriter(out_dir / task.id, full_observations)
    env = Env(task, budget=budget)
    tokens: Counter[str] = Counter()
    termination: Termination = "env_error"
    error: str | None = None
    evaluation = None
    try:
        observation = env.reset()
        agent.reset(task, env.schemas())
        last: ActionResult | None = None
        while True:
            try:
                decision = agent.act(observation, last)
            except Exception as exc:  # a broken agent ends its episode, not the run
                termination, error = "agent_error", f"{type(exc).__name__}: {exc}"
                break
            tokens.update(decision.tokens)
            if decision.action is None:
                outcome = env.reject(decision.error or AsilError("The agent produced no action."))
            else:
                outcome = env.step(decision.action)
            writer.write(TraceLine(
                step=env.steps, observation_digest=digest(observation),
                observation=observation.to_agent_dict() if full_observations else None,
                thought=decision.thought, action=decision.action, status=outcome.result.status,
                error=outcome.result.error, changed=outcome.result.changed,
                latency_ms=round(outcome.result.latency_ms, 3), tokens=decision.tokens))
            last = outcome.result
            observation = outcome.result.observation or env.observe()
            if outcome.terminated or outcome.truncated:
                termination = outcome.reason  # type: ignore[assignment]
                break
        evaluation = env.evaluate()
    except Exception as exc:
        error = "".join(traceback.format_exception_only(exc)).strip()
        if not isinstance(exc, AsilError):
            error += "\n" + traceback.format_exc()
        termination = "env_error"
    finally:
        env.close()
    result = EpisodeResult(
        task_id=task.id, suite=task.suite, apps=task.apps, agent=getattr(agent, "name", type(agent).__name__),
        score=evaluation.score if evaluation else 0.0, success=bool(evaluation and evaluation.success),
        checkpoints=evaluation.checkpoints if evaluation else [], steps=env.steps, budget=env.budget,
        tokens=dict(tokens), time_s=round(time.monotonic() - started, 3), termination=termination, error=error)
    writer.finish(result)
    return result
