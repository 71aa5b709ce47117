"""``asil rollout serve``: an HTTP rollout service for on-policy RL (ASIL paper, Appendix C.4).

Per ``POST /rollout`` request it restores a task by id, runs the ReAct agent against the given
OpenAI-compatible policy endpoint for up to ``max_turns`` (at most 20) actions, and answers with the reward
(the evaluator's score, optionally with the overlength shaping) and the full messages. Rollouts run in daemon
threads, at most ``workers`` at once; renders are off (``ASIL_DISABLE_RENDER=1``). ``GET /health`` and
``GET /metrics`` report on the service. Built on starlette + uvicorn (the ``mcp`` extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from asil.llm.base import Message, Provider
from asil.training.verl import OVERLONG_BUFFER, OVERLONG_COEFFICIENT, overlong_penalty

MAX_TURNS = 20  # the paper's agent loop: up to 20 action turns
ERROR_TERMINATIONS = ("llm_error", "agent_error", "env_error")
SHUTDOWN_GRACE_S = 5  # a stopped service gives rollouts in flight this long before their programs are stopped
T = TypeVar("T")
R = TypeVar("R")


class RolloutRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str = Field(min_length=1)
    base_url: str = Field(min_length=1, description="the policy's OpenAI-compatible endpoint, e.g. http://host:8000/v1")
    model: str = Field(min_length=1, description="the policy's model name on that server")
    max_turns: int = Field(MAX_TURNS, ge=1, le=MAX_TURNS)
    timeout: float = Field(600.0, gt=0, description="seconds for the whole rollout (each policy call too)")
    max_response_tokens: int | None = Field(None, gt=0, description="turns on the overlength shaping")
    overlong_coefficient: float = Field(OVERLONG_COEFFICIENT, ge=0)
    overlong_buffer: int = Field(OVERLONG_BUFFER, gt=0)


class _Recording:
    """The policy provider, recording each call's prompt and reply (the rollout's messages)."""

    def __init__(self, provider: Provider):
        self.provider = provider
        self.turns: list[tuple[list[Message], str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.provider, name)

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 **options: Any) -> Any:
        reply = self.provider.complete(messages, kind, context, **options)
        self.turns.append((list(messages), reply.text))
        return reply


def conversation(turns: list[tuple[list[Message], str]]) -> list[Message]:
    """The system prompt once, then each turn's user prompt (as the agent sent it) and the policy's reply."""
    messages: list[Message] = []
    for prompt, reply in turns:
        if not messages:
            messages += [m for m in prompt if m["role"] == "system"]
        messages += [m for m in prompt if m["role"] != "system"]
        messages.append({"role": "assistant", "content": reply})
    return messages


def run_rollout(request: RolloutRequest) -> dict[str, Any]:
    """One rollout, start to end; a policy or app failure gives reward 0.0 with the reason, never an exception."""
    from asil.agents.react import ReActAgent
    from asil.runner.episode import run_episode
    from asil.training.verl import find_task

    task = find_task(request.task_id)
    agent = ReActAgent(request.model, base_url=request.base_url, server="openai", timeout_s=request.timeout,
                       retries=0, stream=False)
    recording = _Recording(agent.client.provider)
    agent.client.provider = recording  # type: ignore[assignment]
    with tempfile.TemporaryDirectory(prefix="asil-rollout-") as out:
        result = run_episode(task, agent, Path(out), budget=request.max_turns, timeout_s=request.timeout)
    error = result.error if result.termination in ERROR_TERMINATIONS else None
    reward = 0.0 if error else result.score
    completion = result.tokens.get("completion", 0)
    if request.max_response_tokens and not error:
        reward += overlong_penalty(completion, request.max_response_tokens, request.overlong_coefficient,
                                   request.overlong_buffer)
    return {"task_id": task.id, "reward": reward, "score": result.score, "success": result.success,
            "termination": result.termination, "error": error, "steps": result.steps,
            "completion_tokens": completion, "seconds": result.time_s, "messages": conversation(recording.turns)}


class Metrics:
    def __init__(self, workers: int):
        self.workers = workers
        self.lock = threading.Lock()
        self.in_flight = self.finished = self.errors = 0
        self.seconds = 0.0

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            mean = self.seconds / self.finished if self.finished else 0.0
            return {"workers": self.workers, "in_flight": self.in_flight, "rollouts": self.finished,
                    "errors": self.errors, "mean_seconds": round(mean, 3)}


def create_app(workers: int = 2) -> Any:
    """The ASGI app (starlette): POST /rollout, GET /health, GET /metrics."""
    import anyio
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from asil.tasks.loader import TaskError
    from asil.training.verl import find_task, suite_names

    metrics = Metrics(workers)
    limiter = anyio.CapacityLimiter(workers)

    async def rollout(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "The request body is not JSON; send a JSON object with task_id, base_url "
                                          "and model."}, status_code=400)
        try:
            parsed = RolloutRequest.model_validate(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "body"
            problem = ("is missing (task_id, base_url and model are required)" if first["type"] == "missing"
                       else f"is wrong: {first['msg']}")
            return JSONResponse({"error": f"Field {where!r} {problem}.", "field": where}, status_code=422)
        try:  # before taking a worker: a wrong id is answered at once even when every worker is busy
            await anyio.to_thread.run_sync(find_task, parsed.task_id)
        except TaskError:
            return JSONResponse({"error": f"There is no task {parsed.task_id!r}; the suites that exist: "
                                          f"{', '.join(suite_names())} (see 'asil tasks list --suite S')."},
                                status_code=404)
        started = time.monotonic()
        with metrics.lock:
            metrics.in_flight += 1
        try:
            async with limiter:
                answer = await in_daemon_thread(run_rollout, parsed)
        finally:
            with metrics.lock:
                metrics.in_flight -= 1
        with metrics.lock:
            metrics.finished += 1
            metrics.errors += bool(answer["error"])
            metrics.seconds += time.monotonic() - started
        return JSONResponse(answer)

    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def show_metrics(_: Request) -> JSONResponse:
        return JSONResponse(metrics.snapshot())

    return Starlette(routes=[Route("/rollout", rollout, methods=["POST"]), Route("/health", health),
                             Route("/metrics", show_metrics)])


async def in_daemon_thread(function: Callable[[T], R], argument: T) -> R:
    """``function(argument)`` on a daemon thread, awaited.

    Not anyio's worker threads: those are not daemons, so a SIGTERM during a rollout would leave the
    interpreter joining a thread that waits on the policy, before atexit could stop the rollout's programs.
    A daemon thread is dropped at exit and atexit stops them at once.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[R] = loop.create_future()

    def settle(result: R | None, error: BaseException | None) -> None:
        if not future.done():
            future.set_exception(error) if error else future.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            outcome: tuple[R | None, BaseException | None] = (function(argument), None)
        except BaseException as exc:  # handed to the awaiting request, like anyio does
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop is closed: the service is shutting down
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name="asil-rollout", daemon=True).start()
    return await future


def serve(host: str, port: int, workers: int) -> None:
    import uvicorn

    os.environ["ASIL_DISABLE_RENDER"] = "1"  # as the paper's RL runs (rollouts never ask for renders either)
    # a SIGTERM waits at most this long for rollouts in flight, then atexit stops their programs
    uvicorn.run(create_app(workers), host=host, port=port, log_level="info",
                timeout_graceful_shutdown=SHUTDOWN_GRACE_S)
