"""verl RL data: ``asil export verl`` rows and a ``compute_score`` in verl's reward-function signature.

Rows follow verl's documented dataset format (``docs/preparation/prepare_data.rst`` and the tool-agent example
``examples/data_preprocess/gsm8k_tool_agent_loop.py`` of volcengine/verl): ``data_source``, ``prompt`` (chat
messages, here exactly the ReAct agent's first call: its system prompt and the task with the initial
observation), ``ability``, ``reward_model`` (``{"style": "rule", "ground_truth": task id}``), ``extra_info``
(``index``, ``split``, ``tools_kwargs`` / ``interaction_kwargs`` naming the task and its suite) and
``agent_name``.

``compute_score(data_source, solution_str, ground_truth, extra_info=None)`` is verl's custom reward function
(``custom_reward_function.path`` = this file's module path, name ``compute_score``): it replays the ReAct
replies in ``solution_str`` on a fresh copy of the task in the real app and returns the evaluator's score,
optionally with the paper's overlength shaping (DAPO's overlong buffer: coefficient 0.1, 256 tokens).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from asil.agents.prompting import observation_text
from asil.agents.react import system_prompt, user_prompt
from asil.llm.base import Message
from asil.protocol import Action
from asil.tasks.model import Task

DATA_SOURCE = "asil"
TOOL_NAME = "asil"  # the tool name in tools_kwargs (verl's tool config names the tool class it maps to)
AGENT_NAME = "tool_agent"  # verl's multi-turn agent loop that passes tools_kwargs to the tools
OVERLONG_COEFFICIENT, OVERLONG_BUFFER = 0.1, 256  # the paper's Appendix C.4
TOOL_CONFIG_FILE = "asil_tool_config.yaml"
FIELDS = ("data_source", "prompt", "ability", "reward_model", "extra_info", "agent_name")

DESCRIPTION = ("Run one ASIL action on the task's application: action_type is one of the app's action types "
               "(see the observation's schema), target an element id where the action needs one, params its "
               "parameters. Answers with the action's status and the new observation.")


def asil_tool_schema() -> dict[str, Any]:
    """The tool in OpenAI function format, as verl's tool config carries it."""
    properties = {
        "action_type": {"type": "string", "description": "the action, e.g. set_value, invoke_function, done"},
        "target": {"type": "string", "description": "the element id the action applies to, if it needs one"},
        "params": {"type": "object", "description": "the action's parameters, as the app's schema gives them"},
    }
    return {"type": "function", "function": {"name": TOOL_NAME, "description": DESCRIPTION,
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": ["action_type"]}}}


def tool_config() -> dict[str, Any]:
    """verl's tool config file (``actor_rollout_ref.rollout.multi_turn.tool_config_path``), as a dict for YAML."""
    return {"tools": [{"class_name": "asil.training.verl_tool.AsilTool", "config": {"type": "native"},
                       "tool_schema": asil_tool_schema()}]}


def initial_prompt(task: Task) -> list[Message]:
    """The ReAct agent's first call on ``task``: the system prompt and the task with the initial observation.

    The observation comes from the real app (a fresh workspace), so the prompt is the one the agent sends.
    """
    from asil.env import Env

    env = Env(task)
    try:
        observation = env.reset()
        return [{"role": "system", "content": system_prompt(env.schemas())},
                {"role": "user", "content": user_prompt(task.instruction, [], observation_text(observation))}]
    finally:
        env.close()


def suite_names() -> list[str]:
    """The suites that exist: the benchmark's (from its task files) and the generated training suites."""
    from asil.tasks.loader import TRAINING_SUITES, builtin_root, load_tasks

    return sorted({t.suite for t in load_tasks(root=builtin_root())} | set(TRAINING_SUITES))


@functools.cache
def _task_index() -> dict[str, Task]:
    from asil.tasks.loader import builtin_root, load_tasks, training_root

    return {t.id: t for root in (builtin_root(), training_root()) for t in load_tasks(root=root)}


def find_task(task_id: str) -> Task:
    """A benchmark or training task by id (the task files are read once per process; a worker restores many)."""
    from asil.tasks.loader import TaskError

    task = _task_index().get(task_id)
    if task is None:
        raise TaskError(f"There is no task {task_id!r}.", hint="List tasks with: asil tasks list --suite S")
    return task


def restore_kwargs(task: Task) -> dict[str, str]:
    """What names a task for a worker that restores it: its id and suite."""
    return {"task_id": task.id, "suite": task.suite}


def verl_row(task: Task, index: int, split: str, prompt: list[Message], agent_name: str = AGENT_NAME) -> dict[str, Any]:
    restore = restore_kwargs(task)
    return {
        "data_source": DATA_SOURCE,
        "prompt": prompt,
        "ability": "+".join(task.apps),
        "reward_model": {"style": "rule", "ground_truth": task.id},
        "extra_info": {"index": index, "split": split, "need_tools_kwargs": True,
                       "tools_kwargs": {TOOL_NAME: {"create_kwargs": restore}},
                       "interaction_kwargs": {"name": TOOL_NAME, **restore}},
        "agent_name": agent_name,
    }


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def replies(solution_str: str) -> Iterator[Action]:
    """The actions in a response, in order: every top-level JSON object that is a ReAct reply (an ``action``
    object) or a tool call of the ASIL tool (``{"name": "asil", "arguments": {...}}``, as verl's tool agent
    loop has the model write them); tool outputs and prose between them are skipped."""
    decoder = json.JSONDecoder()
    position = solution_str.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(solution_str, position)
        except json.JSONDecodeError:
            position = solution_str.find("{", position + 1)
            continue
        action = _action_of(value)
        if action is not None:
            try:
                yield Action.model_validate(action)
            except ValueError:
                pass  # a malformed action: the agent loop would have rejected it too
        position = solution_str.find("{", end)


def _action_of(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("action"), dict):
        return value["action"]
    arguments = value.get("arguments")
    if value.get("name") == TOOL_NAME and isinstance(arguments, str):  # OpenAI-style: arguments as JSON text
        with contextlib.suppress(json.JSONDecodeError):
            arguments = json.loads(arguments)
    return arguments if value.get("name") == TOOL_NAME and isinstance(arguments, dict) else None


def episode_score(task: Task, actions: Iterator[Action] | list[Action]) -> float:
    """Replay ``actions`` on a fresh copy of ``task`` (up to its step budget) and return the evaluator's score."""
    from asil.env import Env

    env = Env(task)
    try:
        env.reset()
        for action in actions:
            if env.step(action).terminated or env.finished:
                break
        return env.evaluate().score
    finally:
        env.close()


def overlong_penalty(response_tokens: int, max_response_tokens: int, coefficient: float = OVERLONG_COEFFICIENT,
                     buffer: int = OVERLONG_BUFFER) -> float:
    """DAPO's overlong shaping as verl applies it: 0 up to ``max - buffer`` tokens, then falling linearly to
    ``-coefficient`` at ``max`` (and further below beyond it)."""
    exceed = response_tokens - (max_response_tokens - buffer)
    return min(-exceed / buffer * coefficient, 0.0)


def compute_score(data_source: str, solution_str: str, ground_truth: str,
                  extra_info: dict[str, Any] | None = None) -> float:
    """verl's reward function: the evaluator's score (0..1) of the episode ``solution_str`` plays on the task
    ``ground_truth`` names, plus the overlength penalty when ``extra_info`` gives ``response_tokens`` and
    ``max_response_tokens`` (``overlong_coefficient`` / ``overlong_buffer`` override 0.1 / 256; a coefficient
    of 0 turns it off)."""
    if data_source != DATA_SOURCE:
        raise ValueError(f"compute_score scores ASIL rows (data_source {DATA_SOURCE!r}), not {data_source!r}.")
    info = extra_info or {}
    score = episode_score(find_task(ground_truth), list(replies(solution_str)))
    if "response_tokens" in info and "max_response_tokens" in info:
        score += overlong_penalty(int(info["response_tokens"]), int(info["max_response_tokens"]),
                                  float(info.get("overlong_coefficient", OVERLONG_COEFFICIENT)),
                                  int(info.get("overlong_buffer", OVERLONG_BUFFER)))
    return score
