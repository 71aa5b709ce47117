"""Agentic-guided re-runs (ASIL paper, Appendix D): a failed task is run again with a hint at every step.

For the tasks a bench run failed, the same policy runs ReAct again, and each prompt ends with a hint taken from
the task's reference solution at the agent's progress (the number of its actions that succeeded so far):

* ``compact``: the next operation's name (``set_value``, or ``invoke_function restyle``);
* ``detailed``: the full next action as JSON.

The re-runs are recorded with full observations like any bench run, so ``guided_rows`` turns their verified,
error-free steps into rows. The rows' prompts are rebuilt from the trajectory *without* the hint (the model
is trained to act as it must at test time); each row records the hint level it was found with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from asil.agents.react import ReActAgent
from asil.llm.base import Message
from asil.protocol import Action
from asil.runner.episode import run_episode
from asil.tasks.model import Task

HINT_LEVELS = ("compact", "detailed")


def operation_name(action: Action) -> str:
    """What an operation is called: the action type, and the function's name for invoke_function."""
    if action.action_type == "invoke_function" and action.target:
        return f"invoke_function {action.target}"
    return action.action_type


def step_hint(task: Task, progress: int, level: str) -> str | None:
    """The hint for an agent that has ``progress`` successful actions behind it; None past the reference's end."""
    steps = task.reference_steps()
    if progress >= len(steps):
        return None
    action = steps[progress]
    if level == "compact":
        return f"Hint: the next operation is {operation_name(action)}."
    return f"Hint: the next action is {json.dumps(action.model_dump(mode='json', exclude_defaults=True))}."


class HintedReAct(ReActAgent):
    """ReAct with a step hint after the observation; everything else (parsing, history, budget) unchanged."""

    def __init__(self, level: str, **options: Any):
        if level not in HINT_LEVELS:
            raise ValueError(f"The hint level must be one of {', '.join(HINT_LEVELS)}, not {level!r}.")
        super().__init__(**options)
        self.level = level

    def _messages(self, observation: str, keep: int) -> list[Message]:
        messages = super()._messages(observation, keep)
        assert self.task is not None
        hint = step_hint(self.task, len(self.succeeded), self.level)
        if hint:
            messages[-1] = {**messages[-1], "content": f"{messages[-1]['content']}\n\n{hint}"}
        return messages


def failed_tasks(run_dirs: Iterable[Path], tasks: dict[str, Task]) -> Iterator[Task]:
    """The tasks whose model episodes (not the oracle's) the evaluator never verified in any run, once each."""
    results = [json.loads(f.read_text(encoding="utf-8")) for run in run_dirs for f in sorted(run.rglob("result.json"))]
    results = [r for r in results if r.get("agent") != "oracle" and r.get("task_id") in tasks]
    solved = {r["task_id"] for r in results if r.get("success")}
    for task_id in dict.fromkeys(r["task_id"] for r in results if r["task_id"] not in solved):
        yield tasks[task_id]


def rerun_failed(run_dirs: Iterable[Path], tasks: dict[str, Task], level: str, out: Path, budget: int | None = None,
                 **agent_options: Any) -> list[dict[str, Any]]:
    """Re-run every failed task of ``run_dirs`` with ``level`` hints into ``out``; one summary per episode."""
    summaries = []
    for task in failed_tasks(run_dirs, tasks):
        agent = HintedReAct(level, **agent_options)
        result = run_episode(task, agent, out, budget=budget, full_observations=True)
        summaries.append({"task_id": task.id, "hint": level, "success": result.success, "steps": result.steps,
                          "termination": result.termination})
    return summaries
