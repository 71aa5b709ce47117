"""The OpenAI-compatible client over a real loopback HTTP connection."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from asil.llm.base import LLMError
from asil.llm.client import OpenAICompatibleClient
from tests.chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


def client(chat: ChatServer, **options: Any) -> OpenAICompatibleClient:
    return OpenAICompatibleClient("qwen3.5-9b", base_url=chat.url, backoff_s=0.01, **options)


MESSAGES = [{"role": "user", "content": "Say hello as JSON."}]


def test_reply_usage_and_key_travel_over_http(chat_server: ChatServer) -> None:
    chat_server.behaviours.append({"text": '{"hello": 1}', "usage": {"prompt_tokens": 11, "completion_tokens": 3}})
    reply = client(chat_server, api_key="sk-local").complete(MESSAGES, "planner")
    assert reply.text == '{"hello": 1}' and (reply.prompt_tokens, reply.completion_tokens) == (11, 3)
    assert not reply.estimated
    request = chat_server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sk-local"
    assert request["body"]["model"] == "qwen3.5-9b" and request["body"]["messages"] == MESSAGES


def test_tokens_are_estimated_when_the_server_sends_no_usage(chat_server: ChatServer) -> None:
    chat_server.behaviours.append({"text": "x" * 40})
    reply = client(chat_server).complete(MESSAGES, "planner")
    assert reply.estimated and reply.completion_tokens == 10 and reply.prompt_tokens >= 4


@pytest.mark.parametrize(("server", "present", "absent"), [
    ("openai", {"temperature": 0.0, "top_p": 0.95, "seed": 42}, ["top_k", "chat_template_kwargs"]),
    ("vllm", {"top_k": 20, "chat_template_kwargs": {"enable_thinking": True}, "thinking_token_budget": 16384}, []),
    ("llamacpp", {"top_k": 20, "thinking_budget_tokens": 16384, "reasoning_budget_tokens": 16384},
     ["chat_template_kwargs"]),
    ("ollama", {"temperature": 0.0, "seed": 42}, ["top_k"]),
])
def test_runtime_parameters_are_sent_the_way_each_server_takes_them(
        chat_server: ChatServer, server: str, present: dict[str, Any], absent: list[str]) -> None:
    client(chat_server, server=server).complete(MESSAGES, "planner")
    body = chat_server.requests[0]["body"]
    assert {k: body[k] for k in present} == present
    assert not set(absent) & set(body)
    assert body["max_tokens"] == 16384 + 4096


def test_server_errors_are_retried_with_backoff(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"status": 500}, {"status": 503}, {"text": '{"ok": true}'}]
    reply = client(chat_server, retries=3).complete(MESSAGES, "planner")
    assert reply.text == '{"ok": true}' and len(chat_server.requests) == 3


def test_a_server_that_stays_down_fails_cleanly(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"status": 500}] * 5
    with pytest.raises(LLMError) as caught:
        client(chat_server, retries=2).complete(MESSAGES, "planner")
    assert len(chat_server.requests) == 3 and "failed 3 times (HTTP 500)" in caught.value.message


def test_timeouts_are_retried_then_reported(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"delay": 1.0, "text": "{}"}, {"delay": 1.0, "text": "{}"}]
    started = time.monotonic()
    with pytest.raises(LLMError, match="failed 2 times"):
        client(chat_server, retries=1, timeout_s=0.2).complete(MESSAGES, "planner")
    assert time.monotonic() - started < 3


def test_client_errors_are_not_retried(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"status": 404}]
    with pytest.raises(LLMError, match="HTTP 404"):
        client(chat_server, retries=3).complete(MESSAGES, "planner")
    assert len(chat_server.requests) == 1


def test_nothing_listening_is_an_llm_error() -> None:
    dead = OpenAICompatibleClient("m", base_url="http://127.0.0.1:9/v1", retries=1, backoff_s=0.01, timeout_s=1)
    with pytest.raises(LLMError, match="failed 2 times"):
        dead.complete(MESSAGES, "planner")
