"""The rollout service: real draw.io tasks, the ReAct agent against a loopback OpenAI-compatible policy."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from asil.agents.react import reply_text
from asil.apps.process import free_port
from asil.runner.procs import descendants
from asil.tasks import get_task, load_tasks
from asil.training.rollout import create_app
from asil.training.verl import overlong_penalty
from tests.chat_server import ChatServer

DRAWIO = [t for t in load_tasks(suite="train") if t.apps == ["drawio"]]


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(workers=2)) as test_client:
        yield test_client


@pytest.fixture
def policy() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_rollout_runs_the_policy_on_the_restored_task_and_returns_reward_and_messages(
        client: TestClient, policy: ChatServer) -> None:
    task = DRAWIO[0]
    policy.behaviours += [{"text": reply_text("Next.", a)} for a in task.reference_steps()]  # ends with done
    answer = client.post("/rollout", json={"task_id": task.id, "base_url": policy.url, "model": "policy-m",
                                           "max_turns": 20, "timeout": 120})
    assert answer.status_code == 200
    body = answer.json()
    assert body["reward"] == 1.0 and body["success"] and body["error"] is None and body["termination"] == "done"
    roles = [m["role"] for m in body["messages"]]
    assert len(policy.requests) == len(task.reference_steps())  # one policy call per turn
    assert roles[0] == "system" and roles[1:] == ["user", "assistant"] * len(policy.requests)
    assert body["messages"][1]["content"].startswith(f"Task: {task.instruction}")
    assert policy.requests[0]["body"]["model"] == "policy-m"
    assert client.get("/metrics").json() | {"mean_seconds": 0} == {"workers": 2, "in_flight": 0, "rollouts": 1,
                                                                   "errors": 0, "mean_seconds": 0}
    policy.behaviours += [{"text": reply_text("Next.", a)} for a in task.reference_steps()]
    shaped = client.post("/rollout", json={"task_id": task.id, "base_url": policy.url, "model": "policy-m",
                                           "max_response_tokens": 64}).json()  # the overlength shaping, on
    assert shaped["score"] == 1.0 and shaped["completion_tokens"] > 0
    assert shaped["reward"] == pytest.approx(1.0 + overlong_penalty(shaped["completion_tokens"], 64))
    assert shaped["reward"] < 1.0


def test_concurrent_rollouts_each_get_their_own_task_and_policy(client: TestClient) -> None:
    servers = [ChatServer(), ChatServer()]
    try:
        for server, task in zip(servers, DRAWIO[2:4], strict=True):
            server.behaviours += [{"text": reply_text("Next.", a), "delay": 0.5} for a in task.reference_steps()]
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda pair: client.post("/rollout", json={
                "task_id": pair[1].id, "base_url": pair[0].url, "model": "m"}).json(),
                zip(servers, DRAWIO[2:4], strict=True)))
    finally:
        for server in servers:
            server.close()
    assert [a["task_id"] for a in answers] == [t.id for t in DRAWIO[2:4]]
    assert [a["reward"] for a in answers] == [1.0, 1.0]
    assert client.get("/metrics").json()["rollouts"] == 2


def test_a_policy_that_does_not_answer_ends_the_rollout_with_an_error_reward(client: TestClient) -> None:
    answer = client.post("/rollout", json={"task_id": DRAWIO[1].id, "base_url": f"http://127.0.0.1:{_closed_port()}/v1",
                                           "model": "policy-m", "timeout": 30})
    assert answer.status_code == 200
    body = answer.json()
    assert body["reward"] == 0.0 and body["termination"] == "llm_error" and body["error"]
    assert client.get("/metrics").json()["errors"] == 1
    assert client.get("/health").json() == {"status": "ok"}  # the service stays up


def test_bad_requests_get_4xx_naming_the_field_or_the_suites(client: TestClient) -> None:
    good = {"task_id": DRAWIO[0].id, "base_url": "http://127.0.0.1:1/v1", "model": "m"}
    missing = client.post("/rollout", json={k: v for k, v in good.items() if k != "task_id"})
    assert missing.status_code == 422 and missing.json()["field"] == "task_id"
    assert missing.json()["error"].startswith("Field 'task_id' is missing")
    too_long = client.post("/rollout", json=good | {"max_turns": 50})
    assert too_long.status_code == 422 and "'max_turns'" in too_long.json()["error"]
    extra = client.post("/rollout", json=good | {"turns": 5})
    assert extra.status_code == 422 and extra.json()["field"] == "turns"
    not_json = client.post("/rollout", content=b"task_id=x")
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["error"]
    unknown = client.post("/rollout", json=good | {"task_id": "no-such-task"})
    assert unknown.status_code == 404
    assert "'no-such-task'" in unknown.json()["error"] and "core" in unknown.json()["error"]
    assert "train" in unknown.json()["error"]
    assert client.get("/metrics").json()["rollouts"] == 0


@pytest.mark.slow
def test_a_client_that_disconnects_mid_rollout_leaves_the_served_process_working(policy: ChatServer) -> None:
    with served() as (port, _), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        abandoned, kept = DRAWIO[4], DRAWIO[5]
        policy.behaviours += [{"text": reply_text("Next.", a), "delay": 0.5} for a in abandoned.reference_steps()]
        body = json.dumps({"task_id": abandoned.id, "base_url": policy.url, "model": "m"}).encode()
        with socket.create_connection(("127.0.0.1", port)) as raw:  # sends the request, then hangs up
            raw.sendall(b"POST /rollout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            assert _wait(lambda: policy.requests, 30), "the rollout never got under way"
        policy.behaviours += [{"text": reply_text("Next.", a)} for a in kept.reference_steps()]
        answer = http.post("/rollout", json={"task_id": kept.id, "base_url": policy.url, "model": "m"}).json()
        assert answer["task_id"] == kept.id and answer["reward"] == 1.0
        assert http.get("/metrics").json()["rollouts"] == 2  # the abandoned rollout ran to its end first


@pytest.mark.slow
def test_a_rollout_whose_app_is_killed_ends_with_a_reward_and_the_service_stays_up(policy: ChatServer) -> None:
    with served() as (port, service), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as http:
        calc = get_task("calc-total-column")
        # the first reply comes late: LibreOffice is killed while the rollout waits on the policy
        policy.behaviours += [{"text": reply_text("Next.", a), "delay": 4 if i == 0 else 0}
                              for i, a in enumerate(calc.reference_steps())]
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(http.post, "/rollout", json={"task_id": calc.id, "base_url": policy.url,
                                                               "model": "m", "timeout": 240})
            assert _wait(lambda: policy.requests and _offices(service.pid)), "no LibreOffice under the rollout"
            killed = _offices(service.pid)
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
            answer = pending.result(timeout=280).json()
        assert isinstance(answer["reward"], float) and answer["task_id"] == calc.id
        if answer["error"]:  # a crash the runner could not hide: an error reward and the reason
            assert answer["reward"] == 0.0 and answer["termination"] in ("env_error", "agent_error")
        assert not set(killed) & set(_offices(service.pid))  # the dead program is not counted as alive
        kept = DRAWIO[6]
        policy.behaviours += [{"text": reply_text("Next.", a)} for a in kept.reference_steps()]
        after = http.post("/rollout", json={"task_id": kept.id, "base_url": policy.url, "model": "m"}).json()
        assert after["reward"] == 1.0 and http.get("/health").json() == {"status": "ok"}
        assert http.get("/metrics").json()["rollouts"] == 2


@contextmanager
def served() -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``asil rollout serve`` in a subprocess with one worker, answering on the yielded port."""
    port = free_port()
    service = subprocess.Popen([sys.executable, "-m", "asil.cli", "rollout", "serve", "--port", str(port),
                                "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            assert _wait(lambda: _healthy(http)), "the service never started"
        yield port, service
    finally:
        service.terminate()
        service.wait(timeout=30)


def _wait(condition: Any, timeout_s: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _healthy(http: httpx.Client) -> bool:
    try:
        return http.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def _offices(pid: int) -> list[int]:
    """The living soffice processes below ``pid``."""
    found = []
    for child in descendants(pid):
        try:
            name = Path(f"/proc/{child}/comm").read_text().strip()
            state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if name.startswith("soffice") and state not in ("Z", "X"):
            found.append(child)
    return found
