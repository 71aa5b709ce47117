"""Env: one task's episode over real applications — reset, step with a budget, evaluate."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.base import Adapter
from asil.evaluate.evaluator import Evaluation, evaluate_paths
from asil.plugins import adapter_class
from asil.protocol import Action, ActionError, ActionResult, ActionSchema, AsilError, InvalidAction, Observation
from asil.registry import load_target
from asil.shell import run_shell
from asil.tasks.model import Task
from asil.tasks.reference import reference_channel
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace


@dataclass
class StepOutcome:
    result: ActionResult
    terminated: bool  # the agent ended the episode (done / infeasible)
    truncated: bool  # the step budget ran out
    reason: str | None = None


class Env:
    """An episode: an isolated workspace, one adapter per app, a step budget, an evaluator."""

    def __init__(self, task: Task, budget: int | None = None, workspace: Workspace | None = None):
        self.task = task
        self._budget_override = budget
        self.budget = task.step_budget(budget)
        self._workspace_given = workspace
        self.workspace: Workspace | None = None
        self.adapters: dict[str, Adapter] = {}
        # What a channel keeps open between its steps (the gui channel's window), closed with the episode.
        self.channel_sessions: dict[str, Any] = {}
        self.active_app: str | None = None  # the app acted on last; its observation is shown
        self.steps = 0
        self.outcome: str | None = None
        self.answer: str | None = None
        self.finished = False

    @property
    def primary(self) -> Adapter:
        return self.adapters[self.task.apps[0]]

    def reset(self, task: Task | None = None) -> Observation:
        """Build a fresh workspace (for ``task``, or the current one) and open its applications."""
        self.close()
        if task is not None:
            self.task = task
            self.budget = task.step_budget(self._budget_override)
        self.workspace = prepare_workspace(self.task, self._workspace_given)
        for app in self.task.apps:
            self.adapters[app] = adapter_class(app)(self.workspace, self.task.document_for(app),
                                                        **self.task.options_for(app))
        self.steps, self.outcome, self.answer, self.finished = 0, None, None, False
        self.active_app = None
        return self.observe()

    def observe(self, app: str | None = None) -> Observation:
        """The observation of ``app``, or of the app acted on last. In multi-app tasks it also names
        the other apps and their documents, so an agent knows where else it can act."""
        chosen = app or self.active_app or self.task.apps[0]
        observation = self.adapters[chosen].observe()
        if len(self.adapters) > 1:
            others = {name: adapter.document for name, adapter in self.adapters.items() if name != chosen}
            observation.environment["other_apps"] = others
            listed = ", ".join(f"{name} ({document})" for name, document in others.items())
            observation.summary = (f"[app {chosen}; also in this task: {listed} - set \"app\" on an action to "
                                   f"use it] " + observation.summary)
        return observation

    def render(self, path: Path, app: str | None = None) -> dict[str, Any] | None:
        """A PNG of the app's current state through the real program, or None if it cannot render."""
        adapter = self.adapters[app or self.active_app or self.task.apps[0]]  # the app the step acted on
        started = time.perf_counter()
        try:
            written = adapter.render(path)
        except NotImplementedError:
            return None
        except AsilError as exc:  # a missing or failing renderer costs the picture, not the episode
            return {"app": adapter.name, "step": self.steps, "error": exc.message}
        return {"app": adapter.name, "file": written.name, "bytes": written.stat().st_size, "step": self.steps,
                "seconds": round(time.perf_counter() - started, 4)}

    def schemas(self) -> dict[str, ActionSchema]:
        return {app: adapter.schema() for app, adapter in self.adapters.items()}

    def step(self, action: Action, app: str | None = None) -> StepOutcome:
        """Apply one action (control actions end the episode); every step counts toward the budget."""
        if self.finished:
            raise RuntimeError("step() after the episode ended; call reset() first")
        if action.is_control:
            self.steps += 1
            self.outcome = action.action_type
            answer = action.params.get("answer") or action.params.get("reason")
            self.answer = str(answer) if answer is not None else None
            result = ActionResult(ok=True, status="ok", observation=self.observe())
            return self._outcome(result, terminated=True, reason=action.action_type)
        target_app = app or action.app or self.task.apps[0]
        if target_app not in self.adapters:
            return self.reject(InvalidAction(f"This task has no app {target_app!r}.",
                                             hint=f"Apps of this task: {', '.join(self.task.apps)}."))
        self.steps += 1
        self.active_app = target_app
        result = self.adapters[target_app].execute(action, observe=False)
        result.observation = self.observe(target_app)
        return self._outcome(result, terminated=False)

    def shell(self, command: str, timeout_s: float = 30.0) -> StepOutcome:
        """The Bash channel: run a confined shell command in the workspace as one step.

        Documents are saved first so the shell sees the current state, and reopened after it
        if the command changed them on disk.
        """
        if self.finished:
            raise RuntimeError("shell() after the episode ended; call reset() first")
        assert self.workspace is not None
        started = time.perf_counter()
        self.steps += 1
        before = self._document_stamps()
        for adapter in self.adapters.values():
            adapter.save()
        saved = self._document_stamps()
        ran = run_shell(command, self.workspace, timeout_s)
        self._reopen_changed(saved)
        output = ran.stdout + (f"\n[stderr]\n{ran.stderr}" if ran.stderr else "")
        error = None
        if ran.exit_code != 0:
            error = ActionError(code="shell_failed", message=f"The command exited with code {ran.exit_code}.",
                                hint=ran.stderr.strip()[-300:] or None)
        changed = [path for path, stamp in self._document_stamps().items() if before.get(path) != stamp]
        result = ActionResult(ok=error is None, status="ok" if error is None else "error", error=error,
                              changed=changed, output=output, observation=self.observe(),
                              latency_ms=(time.perf_counter() - started) * 1000)
        return self._outcome(result, terminated=False)

    def _document_stamps(self) -> dict[str, tuple[int, int]]:
        assert self.workspace is not None
        stamps = {}
        for relative in self.workspace.files():
            info = (self.workspace.root / relative).stat()
            stamps[relative] = (info.st_mtime_ns, info.st_size)
        return stamps

    def _reopen_changed(self, saved: dict[str, tuple[int, int]]) -> None:
        now = self._document_stamps()
        for app, adapter in list(self.adapters.items()):
            document = adapter.document
            if document and now.get(document) != saved.get(document):
                adapter.close()
                assert self.workspace is not None
                self.adapters[app] = adapter_class(app)(self.workspace, document, **self.task.options_for(app))

    def dispatch(self, channel: str, action: Action) -> StepOutcome:
        """Run an action on an execution channel (``CHANNELS``): ``api`` (ASIL actions), ``bash`` (confined
        shell), ``gui`` (computer-use input on the app's window), ``uno`` or ``drawio-mcp``."""
        if channel not in CHANNELS:
            return self.reject(InvalidAction(f"Unknown execution channel {channel!r}.",
                                             hint=f"Channels: {', '.join(CHANNELS)}."))
        run = CHANNELS[channel]
        return (load_target(run) if isinstance(run, str) else run)(self, action)  # type: ignore[no-any-return]

    def play(self, step: Action) -> StepOutcome:
        """Play one step of a task's reference on its channel: a bash step in the confined shell, as an
        agent's would run, any other step as an ASIL action."""
        return self.dispatch(reference_channel(step), step)

    def reject(self, error: AsilError) -> StepOutcome:
        """Record a step whose model output could not be turned into an action."""
        self.steps += 1
        result = ActionResult(ok=False, status="invalid", error=error.to_error(), observation=self.observe())
        return self._outcome(result, terminated=False)

    def _outcome(self, result: ActionResult, terminated: bool, reason: str | None = None) -> StepOutcome:
        truncated = not terminated and self.steps >= self.budget
        if truncated:
            reason = "budget"
        self.finished = terminated or truncated
        return StepOutcome(result=result, terminated=terminated, truncated=truncated, reason=reason)

    def evaluate(self) -> Evaluation:
        """Save every document, release the applications, and judge the final files."""
        if self.workspace is None:
            raise RuntimeError("evaluate() before reset()")
        self._close_channel_sessions()  # each gui step was synced: the adapters hold the latest state
        for adapter in self.adapters.values():
            adapter.save()
            adapter.close()
        self.adapters.clear()
        return evaluate_paths(self.task.evaluator.paths, self.workspace, self.outcome, self.answer)

    def _close_channel_sessions(self) -> None:
        while self.channel_sessions:
            self.channel_sessions.popitem()[1].close()

    def close(self, remove_workspace: bool = True) -> None:
        self._close_channel_sessions()
        for adapter in self.adapters.values():
            adapter.close()
        self.adapters.clear()
        if self.workspace is not None and remove_workspace and self._workspace_given is None:
            self.workspace.cleanup()
        self.workspace = None


def _bash(env: Env, action: Action) -> StepOutcome:
    command = action.params.get("command")
    if not isinstance(command, str) or not command.strip():
        return env.reject(InvalidAction("A bash action needs params.command, a non-empty string.",
                                        hint='e.g. {"command": "ls -la"}'))
    timeout = action.params.get("timeout_s", 30)
    return env.shell(command, float(timeout) if isinstance(timeout, int | float) else 30.0)


# Execution channels, by name: a step function, or its lazy "module:function" name (importing Env must start
# no GUI, UNO or MCP code).
CHANNELS: dict[str, Any] = {"api": Env.step, "bash": _bash, "gui": "asil.gui.channel:gui_step",
                            "uno": "asil.native.uno:uno_step", "drawio-mcp": "asil.native.drawio_mcp:drawio_mcp_step"}


__all__ = ["CHANNELS", "Env", "StepOutcome"]
