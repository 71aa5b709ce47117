"""The episode loop: the only place that wires an agent, an Env and the evaluator together."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

from asil.agents.base import Agent, Decision, agent_metrics
from asil.env import Env, StepOutcome
from asil.evaluate.evaluator import Evaluation
from asil.gui.channel import last_screenshot
from asil.llm.base import LLMError, reporting_calls
from asil.protocol import ActionResult, AsilError, Observation
from asil.runner.final_state import ARCHIVE, archive_final_state
from asil.runner.progress import LiveStatus
from asil.runner.trace import EpisodeResult, ModelCall, Termination, TraceLine, TraceWriter, evaluate_anyway, finish_episode
from asil.tasks.model import Task
from asil.workspace import atomic_write


class AgentFailure(Exception):
    """The agent itself raised (a bug in it); the episode ends with ``agent_error``."""


class _Episode:
    """Mutable bookkeeping of one run, so the loop itself stays short."""

    def __init__(self, task: Task, agent: Agent, writer: TraceWriter, env: Env, render: bool = False,
                 timeout_s: float | None = None, hints: bool = False):
        self.task, self.agent, self.writer, self.env = task, agent, writer, env
        self.hints = hints
        self.render = render
        self.vision = bool(getattr(agent, "hybrid_vision", False))  # the agent takes the state's render as an image
        self.told_no_picture = False
        self.deadline = time.monotonic() + timeout_s if timeout_s is not None else None
        self.timeout_s = timeout_s
        self.termination: Termination = "env_error"
        self.error: str | None = None
        self.evaluation: Evaluation | None = None

    def record(self, observation: Observation, decision: Decision, outcome: StepOutcome) -> None:
        result = outcome.result
        self.writer.write(TraceLine(
            step=self.env.steps, observation_digest=observation.digest(),
            observation=observation.to_agent_dict() if self.writer.full else None,
            thought=decision.thought, action=decision.action, channel=decision.channel, status=result.status,
            error=result.error, changed=result.changed, output=result.output,
            latency_ms=round(result.latency_ms, 3), tokens=decision.tokens, agent_log=decision.log))
        if decision.channel == "gui" or hasattr(self.agent, "see_screen"):
            self.keep_screen(decision.channel)

    def keep_screen(self, channel: str) -> None:
        """After a gui-channel step: the window's screen as ``step_N.screen.png``, handed to an agent that looks
        at it (LSTC with the GUI channel); after any other step such an agent is told the screen is stale."""
        picture = last_screenshot(self.env) if channel == "gui" else None
        if picture is not None:
            atomic_write(self.writer.folder / f"step_{self.env.steps}.screen.png", picture)
        if hasattr(self.agent, "see_screen"):
            self.agent.see_screen(picture)

    def snapshot(self) -> None:
        """step_N.png + step_N.render.json, when rendering is on (or the agent takes pictures: hybrid vision)
        and not disabled by ASIL_DISABLE_RENDER=1; then the picture goes to an agent that takes it."""
        if not (self.render or self.vision) or os.environ.get("ASIL_DISABLE_RENDER") == "1":
            self.show(None, "rendering is disabled (ASIL_DISABLE_RENDER=1)")
            return
        folder = self.writer.folder
        picture = folder / f"step_{self.env.steps}.png"
        info = self.env.render(picture)
        if info is not None:
            atomic_write(folder / f"step_{self.env.steps}.render.json", json.dumps(info, indent=2).encode())
        if info is None:
            self.show(None, f"the {self.env.active_app or self.task.apps[0]} adapter has no render of its state")
        elif "error" in info:
            self.show(None, f"the {info['app']} adapter could not render ({info['error']})")
        else:
            self.show(picture.read_bytes(), None)

    def show(self, picture: bytes | None, missing: str | None) -> None:
        """Hybrid vision: hand the agent the render of the state it is about to act on, or nothing; say once
        per episode why there is no picture, so a run without images is never mistaken for one with them."""
        if not self.vision:
            return
        self.agent.see_render(picture)  # type: ignore[attr-defined]
        if picture is None and not self.told_no_picture:
            self.told_no_picture = True
            print(f"hybrid vision: {missing}; the observations of {self.task.id} go to the model without an image.",
                  file=sys.stderr, flush=True)

    def loop(self) -> None:
        observation = self.env.reset()
        self.agent.reset(self.task.for_agent(self.hints), self.env.schemas())
        self.snapshot()
        last: ActionResult | None = None
        while True:
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.termination = "timeout"
                self.error = f"The episode did not finish within {self.timeout_s:g} s (checked between steps)."
                return
            try:
                decision = self.agent.act(observation, last)
            except LLMError:
                raise
            except Exception as exc:
                raise AgentFailure(f"{type(exc).__name__}: {exc}") from exc
            if decision.stop:
                self.termination = decision.stop  # type: ignore[assignment]
                return
            if decision.action is None:
                outcome = self.env.reject(decision.error or AsilError("The agent produced no action."))
            else:
                outcome = self.env.dispatch(decision.channel, decision.action)
            self.record(observation, decision, outcome)
            self.snapshot()
            last = outcome.result
            observation = outcome.result.observation or self.env.observe()
            if outcome.terminated or outcome.truncated:
                self.termination = outcome.reason  # type: ignore[assignment]
                return


def run_episode(task: Task, agent: Agent, out_dir: Path, budget: int | None = None,
                full_observations: bool = False, render: bool = False,
                timeout_s: float | None = None, status: LiveStatus | None = None, hints: bool = False,
                keep_final_state: bool = False) -> EpisodeResult:
    """Run one task to its end and write ``out_dir/<task_id>/`` (traj.jsonl, calls.jsonl, result.json,
    result.txt). ``timeout_s`` is checked between steps (a bench's ``--episode-timeout`` also kills a late
    worker); a timed-out episode is still evaluated and keeps its trajectory and calls. ``status`` prints what
    the episode is doing while a slow model works (see ``LiveStatus``). With ``hints`` the agent reads the
    task's success hint after its instruction; ``keep_final_state`` adds ``final_state.tar.gz`` (the judged
    files, for ``asil audit``)."""
    if getattr(agent, "interface", "asil") == "gui":  # screenshots and X input instead of ASIL observations
        from asil.runner.gui_episode import run_gui_episode

        return run_gui_episode(task, agent, out_dir, budget=budget, timeout_s=timeout_s, status=status, hints=hints)
    started = time.monotonic()
    writer = TraceWriter(out_dir / task.id, full_observations)
    env = Env(task, budget=budget)
    episode = _Episode(task, agent, writer, env, render, timeout_s, hints)

    def on_call(record: dict[str, object]) -> None:
        call = ModelCall.model_validate({"step": env.steps, **record})
        writer.call(call)
        if status is not None:
            status.call(call)

    if status is not None:
        status.start(task.id, lambda: env.steps)
    try:
        with reporting_calls(on_call):
            episode.loop()
        episode.evaluation = env.evaluate()
    except LLMError as exc:  # the model server stayed down: a clean end with the reason
        episode.termination, episode.error = "llm_error", exc.message
        episode.evaluation = evaluate_anyway(env)
    except AgentFailure as exc:
        episode.termination, episode.error = "agent_error", _describe(exc.__cause__ or exc)
    except Exception as exc:
        episode.termination, episode.error = "env_error", _describe(exc)
    finally:
        if keep_final_state and episode.evaluation is not None and env.workspace is not None:
            archive_final_state(env.workspace, task, env.outcome, env.answer, writer.folder / ARCHIVE)
        env.close()
        if status is not None:
            status.stop()
    metrics = agent_metrics(agent, episode.termination)
    return finish_episode(writer, task, agent, episode.evaluation, metrics, steps=env.steps, budget=env.budget,
                          termination=episode.termination, error=episode.error, started=started)


def _describe(exc: BaseException) -> str:
    message = "".join(traceback.format_exception_only(exc)).strip()
    if not isinstance(exc, AsilError):
        message += "\n" + "".join(traceback.format_exception(exc))
    return message
