"""The GUI episode loop: an agent with the ``gui`` interface, a GuiEnv, the task's unchanged evaluator.

It writes the same result directory as :func:`asil.runner.episode.run_episode` (traj.jsonl with each
step on the ``gui`` channel, calls.jsonl, result.json, result.txt) plus ``step_N.png``, the screenshot
the agent saw before step N+1 (``step_0.png`` is the program as launched), for the report's strip, and
``step_N.a11y.txt``, the widget tree sent with it, when the agent asked for one.
``result.json``'s metrics carry the GUI facts: launch seconds, screenshot bytes, and how the GUI's state
reached the files (the sync).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from asil.agents.base import Agent, agent_metrics
from asil.evaluate.evaluator import Evaluation
from asil.gui.environment import GuiEnv, GuiStep
from asil.gui.vocabulary import Screen, gui_params
from asil.llm.base import LLMError, reporting_calls
from asil.protocol import ActionResult, AsilError
from asil.runner.progress import LiveStatus
from asil.runner.trace import EpisodeResult, ModelCall, TraceLine, TraceWriter, evaluate_anyway, finish_episode
from asil.tasks.model import Task
from asil.workspace import atomic_write


class _GuiEpisode:
    def __init__(self, task: Task, agent: Agent, writer: TraceWriter, env: GuiEnv, timeout_s: float | None,
                 hints: bool):
        self.task, self.agent, self.writer, self.env, self.hints = task, agent, writer, env, hints
        self.deadline = time.monotonic() + timeout_s if timeout_s is not None else None
        self.timeout_s = timeout_s
        self.termination = "env_error"
        self.error: str | None = None
        self.screen_bytes: list[int] = []

    def keep(self, screen: Screen) -> None:
        atomic_write(self.writer.folder / f"step_{screen.step}.png", screen.png)
        self.screen_bytes.append(len(screen.png))
        if screen.accessibility is not None:  # the widget tree the agent got with the screenshot
            atomic_write(self.writer.folder / f"step_{screen.step}.a11y.txt", screen.accessibility.encode("utf-8"))

    def loop(self) -> None:
        screen = self.env.reset()
        self.keep(screen)
        self.agent.reset(self.task.for_agent(self.hints), {})
        last: ActionResult | None = None
        while True:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.termination = "timeout"
                self.error = f"The episode did not finish within {self.timeout_s:g} s (checked between steps)."
                return
            decision = self.agent.act(screen, last)  # type: ignore[arg-type]
            if decision.stop:
                self.termination = decision.stop
                return
            if decision.action is None:  # an unusable reply: a refused step, the screen as it was
                error = decision.error or AsilError("The agent produced no action.")
                step = self.env.step({"action": None})
                step.status, step.error = "invalid", error.to_error()
            else:
                step = self.env.step(gui_params(decision.action))
            self.writer.write(TraceLine(
                step=self.env.steps, observation_digest=screen.digest(), thought=decision.thought,
                action=decision.action, channel="gui", status=step.status, error=step.error,
                latency_ms=round(step.latency_ms, 3), tokens=decision.tokens, agent_log=decision.log))
            screen = step.screen
            self.keep(screen)
            last = _as_result(step)
            if step.terminated or step.truncated:
                self.termination = step.reason or "budget"
                return


def _as_result(step: GuiStep) -> ActionResult:
    """What the agent learns of a step besides the screenshot: how it ended."""
    return ActionResult(ok=step.ok, status=step.status, error=step.error,
                        latency_ms=step.latency_ms)


def run_gui_episode(task: Task, agent: Agent, out_dir: Path, budget: int | None = None,
                    timeout_s: float | None = None, status: LiveStatus | None = None, hints: bool = False,
                    **_: Any) -> EpisodeResult:
    """Run one task through screenshots and computer-use input; write ``out_dir/<task_id>/``."""
    from asil.runner.episode import _describe  # one way of describing a failure for both loops

    started = time.monotonic()
    writer = TraceWriter(out_dir / task.id)
    env = GuiEnv(task, budget=budget, accessibility=bool(getattr(agent, "accessibility_tree", False)))
    episode = _GuiEpisode(task, agent, writer, env, timeout_s, hints)

    def on_call(record: dict[str, object]) -> None:
        call = ModelCall.model_validate({"step": env.steps, **record})
        writer.call(call)
        if status is not None:
            status.call(call)

    if status is not None:
        status.start(task.id, lambda: env.steps)
    evaluation: Evaluation | None = None
    try:
        with reporting_calls(on_call):
            episode.loop()
        evaluation = env.evaluate()
    except LLMError as exc:
        episode.termination, episode.error = "llm_error", exc.message
        evaluation = evaluate_anyway(env)
    except Exception as exc:
        episode.error = _describe(exc)
    finally:
        env.close()
        if status is not None:
            status.stop()
    metrics = agent_metrics(agent, episode.termination)
    metrics["gui"] = {"launch_s": round(env.launch_s, 3), "sync": env.sync_note,
                      "screenshot_bytes": episode.screen_bytes}
    return finish_episode(writer, task, agent, evaluation, metrics, steps=env.steps, budget=env.budget,
                          termination=episode.termination, error=episode.error, started=started)
