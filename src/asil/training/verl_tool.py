"""An ASIL tool for verl's multi-turn agent loop (``verl.tools.base_tool.BaseTool``), ``pip install 'asil[rl]'``.

verl's ``tool_agent`` loop creates tool instances with the row's ``extra_info.tools_kwargs.asil.create_kwargs``
(what ``asil export verl`` writes: the task id and suite) and sends the policy's tool calls to ``execute``;
``calc_reward`` gives the task's score. Here:

* ``create`` names the task; the first action restores it in a fresh workspace with its real app;
* ``execute`` runs one ASIL action (``action_type``, ``target``, ``params``) and answers with its status and the
  new observation; a malformed or refused action is a normal answer with the error (the policy sees it);
  ``done``/``infeasible`` or the task's step budget end the episode: it is evaluated and the app stopped;
* ``calc_reward`` is the evaluator's score (0..1) of the final state; it ends an episode still going;
* ``release`` forgets the instance.

verl 0.9's ``tool_agent`` loop creates and releases an instance around *every* tool call and keeps what a
trajectory needs in ``agent_data.extra_fields``; the task's session lives there, so one trajectory's actions
all reach the same restored task (and GRPO's n samples of one prompt each get their own).

The tool config that maps verl to this class is :func:`asil.training.verl.tool_config` (``asil export verl``
writes it next to the parquet files). Each session keeps one thread for all its calls, so a program is always driven from the
thread that started it, and verl's event loop never blocks on an app.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from uuid import uuid4

from asil.agents.prompting import observation_text
from asil.extras import MissingExtra
from asil.protocol import ActionResult, AsilError, parse_action
from asil.training.verl import asil_tool_schema, find_task

try:
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError:  # the extra is missing: say which one
    raise MissingExtra("asil.training.verl_tool needs the optional package 'verl', which is not installed.",
                       hint="Install it with: pip install 'asil[rl]'") from None

T = TypeVar("T")
SESSION_FIELD = "asil_session"  # the trajectory's session in verl's AgentData.extra_fields
OUTPUT_CHARS = 2000  # a channel's printed output in the answer, cut like api_call answers are
class Session:
    """One restored task: its Env on one thread of its own, and the final score once the episode ended."""

    def __init__(self, task_id: str):
        self.task = find_task(task_id)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="asil-tool")
        self.env: Any = None  # asil.env.Env, started on self.thread at the first call
        self.score: float | None = None  # set when the episode ended (done, infeasible, budget)

    async def call(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.thread, work)

    def start(self) -> str:
        from asil.env import Env

        self.env = Env(self.task)
        return observation_text(self.env.reset())

    def step(self, parameters: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.score is not None:
            return "status: invalid\nerror: The episode has ended; no more actions.", {"status": "invalid"}
        if self.env is None:
            self.start()
        try:
            action = parse_action(parameters)
        except AsilError as exc:
            return f"status: invalid\nerror: {exc.message}", {"status": "invalid"}
        outcome = self.env.step(action)
        if outcome.terminated or outcome.truncated:
            self.finish()
        return answer_text(outcome.result), {"status": outcome.result.status, "terminated": outcome.terminated,
                                             "truncated": outcome.truncated}

    def reward(self) -> float:
        """The evaluator's score; judging saves and releases the apps, so it also ends an episode still going."""
        if self.score is None:
            if self.env is None:
                self.start()
            self.finish()
        return float(self.score or 0.0)

    def finish(self) -> None:
        """Evaluate, then stop the app and remove the workspace (the score is kept)."""
        if self.env is not None and self.score is None:
            try:
                self.score = float(self.env.evaluate().score)
            finally:
                self.close()

    def close(self) -> None:
        if self.env is not None:
            env, self.env = self.env, None
            env.close()


def answer_text(result: ActionResult) -> str:
    lines = [f"status: {result.status}"]
    if result.error is not None:
        lines.append(f"error: {result.error.message}{' ' + result.error.hint if result.error.hint else ''}")
    if result.output:
        lines.append(f"output: {result.output[:OUTPUT_CHARS]}")
    if result.observation is not None:
        lines.append(observation_text(result.observation))
    return "\n".join(lines)


class AsilTool(BaseTool):  # type: ignore[misc, unused-ignore]  # typed only where verl is installed
    """One ASIL task per trajectory, driven through verl's BaseTool contract."""

    def __init__(self, config: dict[str, Any], tool_schema: OpenAIFunctionToolSchema | None = None):
        super().__init__(config, tool_schema or OpenAIFunctionToolSchema.model_validate(asil_tool_schema()))
        self.instances: dict[str, str] = {}  # instance id -> task id
        self.sessions: dict[str, Session] = {}  # instance id -> its own session, when no trajectory carries one

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        """Note the task ``create_kwargs`` names (``task_id``); the task is restored at the first action."""
        create_kwargs = kwargs.get("create_kwargs", kwargs)
        task_id = str(create_kwargs.get("task_id") or "")
        if not task_id:
            raise ValueError("AsilTool.create needs create_kwargs with a task_id (asil export verl writes it).")
        find_task(task_id)  # an unknown id fails here, naming the id
        instance_id = instance_id or str(uuid4())
        self.instances[instance_id] = task_id
        return instance_id, ToolResponse(text=f"Task {task_id} is ready.")

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
                      ) -> tuple[ToolResponse, float, dict[str, Any]]:
        """One action; the step reward is 0 (the reward is the final state's, from calc_reward)."""
        session = self._session(instance_id, kwargs.get("agent_data"))
        text, metrics = await session.call(lambda: session.step(parameters))
        return ToolResponse(text=text), 0.0, metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        session = self._session(instance_id, kwargs.get("agent_data"))
        return await session.call(session.reward)

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the instance; a session of its own is closed, a trajectory's lives on for its next call."""
        self.instances.pop(instance_id, None)
        session = self.sessions.pop(instance_id, None)
        if session is not None:
            await session.call(session.close)
            session.thread.shutdown(wait=False)

    def _session(self, instance_id: str, agent_data: Any) -> Session:
        """verl's tool agent loop creates and releases an instance around every call and keeps a trajectory's
        state in ``agent_data.extra_fields``; so the session lives there when there is one, and is closed when
        the trajectory's data is dropped. Without agent data the instance has its own session."""
        task_id = self.instances[instance_id]
        if agent_data is None:
            return self.sessions.setdefault(instance_id, Session(task_id))
        session = agent_data.extra_fields.get(SESSION_FIELD)
        if session is None:
            session = agent_data.extra_fields[SESSION_FIELD] = Session(task_id)
            weakref.finalize(agent_data, session.thread.submit, session.close)
        return session  # type: ignore[no-any-return]
