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
    assert body["max_tokens"] == 1024  # the planner's cap under the default 'local' caps


@pytest.mark.parametrize(("caps", "kind", "expected"), [
    ("local", "planner", 1024), ("local", "react", 384), ("local", "abstraction", 384),
    ("table5", "react", 16384 + 4096), ("table5", "verification", 16384 + 4096)])
def test_completion_caps_per_call_kind_with_table5_as_a_profile(
        chat_server: ChatServer, caps: str, kind: str, expected: int) -> None:
    client(chat_server, params={"caps": caps}).complete(MESSAGES, kind)
    assert chat_server.requests[0]["body"]["max_tokens"] == expected


def test_server_errors_are_retried_with_backoff(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"status": 500}, {"status": 503}, {"text": '{"ok": true}'}]
    reply = client(chat_server, retries=3).complete(MESSAGES, "planner")
    assert reply.text == '{"ok": true}' and len(chat_server.requests) == 3


def test_a_server_that_stays_down_fails_cleanly(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"status": 500}] * 5
    with pytest.raises(LLMError) as caught:
        client(chat_server, retries=2).complete(MESSAGES, "planner")
    assert len(chat_server.requests) == 3 and "failed 3 times (HTTP 500)" in caught.value.message


def test_a_timed_out_call_is_cancelled_not_retried_behind_itself(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"delay": 1.0, "text": "{}"}, {"delay": 1.0, "text": "{}"}]
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        client(chat_server, retries=3, timeout_s=0.2).complete(MESSAGES, "planner")
    assert time.monotonic() - started < 0.9  # no second attempt queued behind the first
    assert len(chat_server.requests) == 1
    assert caught.value.code == "llm_timeout" and "timed out after 0.2 s" in caught.value.message
    assert caught.value.seconds >= 0.2  # the wait is reported for the accounting
    assert "--call-timeout" in (caught.value.hint or "")


def test_the_finish_reason_is_read(chat_server: ChatServer) -> None:
    chat_server.behaviours += [{"text": '{"a": 1}'}, {"text": '{"a": ', "finish_reason": "length"}]
    first, cut = client(chat_server).complete(MESSAGES, "planner"), client(chat_server).complete(MESSAGES, "planner")
    assert first.finish_reason == "stop" and not first.truncated
    assert cut.finish_reason == "length" and cut.truncated


def test_a_context_overflow_says_what_is_wrong(chat_server: ChatServer) -> None:
    # Hand-written in the shape llama-cpp-python's server answers (issue 20): prompt + max_tokens > n_ctx.
    chat_server.behaviours.append({"status": 400, "error": {"error": {
        "message": "Requested tokens (28719) exceed context window of 8192", "type": "invalid_request_error",
        "code": "context_length_exceeded"}}})
    with pytest.raises(LLMError) as caught:
        client(chat_server).complete(MESSAGES, "planner")
    hint = caught.value.hint or ""
    assert "context" in hint and "--context-length" in hint and "API key" not in hint
    assert caught.value.code == "context_overflow"  # the agent shortens its prompt on this code
    assert len(chat_server.requests) == 1


def test_a_refused_key_still_points_at_the_key(chat_server: ChatServer) -> None:
    chat_server.behaviours.append({"status": 401})
    with pytest.raises(LLMError) as caught:
        client(chat_server).complete(MESSAGES, "planner")
    assert "API key" in (caught.value.hint or "")
