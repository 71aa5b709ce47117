"""Gymnasium environments over ASIL tasks. Importing this module registers them (``pip install 'asil[gym]'``):

    import gymnasium, asil.gym
    env = gymnasium.make("asil/Task-v0", task_id="calc-total-column")

or, without the import, ``gymnasium.make("asil.gym:asil/Task-v0", task_id=...)``.

Spaces, declared honestly: the observation is the ASIL observation as compact JSON text in
printable ASCII (other characters escaped as ``\\uXXXX``); the action is an ASIL action as JSON
text (a dict or an ``asil.Action`` is accepted too). An action that cannot be parsed or is invalid
is a normal step with the error in ``info``, never an exception. The reward is 0 until the episode
ends, then the evaluator's score (0..1); ``terminated`` means the agent sent done/infeasible,
``truncated`` that the task's step budget ran out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, SupportsFloat

from asil.extras import MissingExtra
from asil.protocol import Action, ActionResult, InvalidAction, Observation, parse_action

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # the extra is missing: say which one
    raise MissingExtra("asil.gym needs the optional package 'gymnasium', which is not installed.",
                       hint="Install it with: pip install 'asil[gym]'") from None

ENV_ID = "asil/Task-v0"
OBSERVATION_CHARSET = "".join(chr(code) for code in range(32, 128))  # what json.dumps(ensure_ascii=True) emits
ACTION_CHARSET = OBSERVATION_CHARSET + "\t\n\r"  # agents may pretty-print their JSON
MAX_OBSERVATION_CHARS = 1_000_000  # observations are windowed; the largest window is far below this
MAX_ACTION_CHARS = 100_000


def encode(observation: Observation) -> str:
    return json.dumps(observation.to_agent_dict(), ensure_ascii=True, separators=(",", ":"))


class TaskEnv(gymnasium.Env[str, str]):
    """One ASIL task as a Gymnasium environment, wrapping ``asil.env.Env``.

    Args:
        task_id: The task to play (``asil tasks list`` shows them).
        budget: Step budget; the task's own when omitted.
        tasks_dir: Load tasks from this folder instead of the built-in suites.

    ``reset(options={"task_id": ...})`` switches to another task (spaces stay the same).
    """

    metadata: dict[str, Any] = {"render_modes": []}  # no render modes: use an adapter's render() for pictures

    def __init__(self, task_id: str, budget: int | None = None, tasks_dir: str | None = None):
        from asil.env import Env
        from asil.tasks.loader import get_task

        self._root = Path(tasks_dir) if tasks_dir else None
        self.task = get_task(task_id, root=self._root)
        self.observation_space = spaces.Text(max_length=MAX_OBSERVATION_CHARS, charset=OBSERVATION_CHARSET)
        self.action_space = spaces.Text(max_length=MAX_ACTION_CHARS, charset=ACTION_CHARSET)
        self._env = Env(self.task, budget=budget)
        self._last = ""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)  # the tasks are deterministic; the seed only seeds np_random
        task = None
        if options and "task_id" in options:
            from asil.tasks.loader import get_task

            task = self.task = get_task(str(options["task_id"]), root=self._root)
        self._last = encode(self._env.reset(task))
        schemas = {app: schema.model_dump(mode="json", exclude_none=True) for app, schema in self._env.schemas().items()}
        return self._last, {"task_id": self.task.id, "instruction": self.task.instruction,
                            "budget": self._env.budget, "schemas": schemas}

    def step(self, action: Any) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._env.workspace is None or self._env.finished:
            error = {"code": "episode_over", "message": "The episode has ended; call reset() to start another."}
            return self._last, 0.0, True, False, {"status": "invalid", "error": error}
        try:
            parsed = action if isinstance(action, Action) else parse_action(action)
        except InvalidAction as exc:
            outcome = self._env.reject(exc)
        else:
            outcome = self._env.step(parsed)
        info = _step_info(outcome.result, self._env.steps, self._env.budget)
        reward = 0.0
        if outcome.terminated or outcome.truncated:
            evaluation = self._env.evaluate()
            reward = float(evaluation.score)
            info.update(reason=outcome.reason, score=evaluation.score, success=evaluation.success,
                        checkpoints=[v.model_dump(mode="json") for v in evaluation.checkpoints])
        if outcome.result.observation is not None:
            self._last = encode(outcome.result.observation)
        return self._last, reward, bool(outcome.terminated), bool(outcome.truncated), info

    def close(self) -> None:
        self._env.close()
        super().close()


def _step_info(result: ActionResult, steps: int, budget: int) -> dict[str, Any]:
    # latency is left out on purpose: info must be the same for the same seed and action.
    return {"status": result.status, "error": result.error.model_dump(exclude_none=True) if result.error else None,
            "changed": list(result.changed), "steps": steps, "budget": budget}


def register_envs() -> None:
    """Register ``asil/Task-v0`` with Gymnasium (done on import; safe to call again)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="asil.gym:TaskEnv")


register_envs()

__all__ = ["ENV_ID", "TaskEnv", "encode", "register_envs"]
