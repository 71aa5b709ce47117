"""Streaming with early stop, context fitting, server detection and constrained decoding, over real loopback
HTTP (the client's network path; replies are hand-written in the shapes the real servers send)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.agents.llm_agent import ModelClient
from asil.agents.react import ReActAgent
from asil.llm.base import LLMError
from asil.llm.client import OpenAICompatibleClient
from tests.agents.helpers import run
from tests.chat_server import ChatServer

MESSAGES = [{"role": "user", "content": "Reply with a JSON action."}]
ACTION = '{"thought": "t", "action": {"action_type": "done"}}'
RAMBLE = " and then I would like to explain at length why this is the right thing to do" * 20


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer()
    yield chat
    chat.close()


def client(chat: ChatServer, **options: Any) -> ModelClient:
    return ModelClient(OpenAICompatibleClient("small", base_url=chat.url, backoff_s=0.01, **options))


def calls_of(chat: ChatServer) -> list[dict[str, Any]]:
    return [r["body"] for r in chat.requests]


def test_a_streamed_reply_stops_as_soon_as_the_action_is_complete(server: ChatServer) -> None:
    server.behaviours.append({"text": "Sure. " + ACTION + RAMBLE, "chunk_delay": 0.005})
    model = client(server)
    data = model.ask("react", MESSAGES, check=lambda d: None)
    assert data["action"] == {"action_type": "done"}
    assert calls_of(server)[0]["stream"] is True
    total_events = len(("Sure. " + ACTION + RAMBLE).split(" ")) + 2
    deadline = time.monotonic() + 10
    while not server.streamed and time.monotonic() < deadline:  # the server notices the hang-up on a write
        time.sleep(0.05)
    assert server.streamed[0] < total_events // 4  # the ramble was never generated to the end
    stats = model.usage.by_kind["react"]
    assert stats.completion_tokens < 20  # counted from the chunks received, not the cap


def test_json_inside_an_unfinished_thinking_block_does_not_stop_the_stream(server: ChatServer) -> None:
    text = '<think>maybe {"thought": "x", "action": {"action_type": "infeasible"}} no</think> ' + ACTION
    server.behaviours.append({"text": text})
    assert client(server).ask("react", MESSAGES, check=lambda d: None)["action"]["action_type"] == "done"


def test_a_reply_that_fails_the_check_keeps_streaming_until_a_usable_one(server: ChatServer) -> None:
    def needs_action(data: dict[str, Any]) -> None:
        from asil.llm.parse import DecisionParseError
        if "action" not in data:
            raise DecisionParseError("no action")

    server.behaviours.append({"text": '{"note": 1} then ' + ACTION + RAMBLE})
    assert client(server).ask("react", MESSAGES, check=needs_action)["action"] == {"action_type": "done"}


def test_a_prompt_that_cannot_fit_the_context_is_not_sent(server: ChatServer) -> None:
    big = [{"role": "user", "content": "x" * 30000}]
    with pytest.raises(LLMError) as caught:
        OpenAICompatibleClient("small", base_url=server.url, context_length=4096).complete(big, "react")
    assert caught.value.code == "context_overflow" and "4096-token context" in caught.value.message
    assert server.requests == []


def test_the_completion_cap_shrinks_to_the_room_the_context_leaves(server: ChatServer) -> None:
    prompt = [{"role": "user", "content": "y" * 3000}]  # about 1,000 tokens at 3 characters a token
    OpenAICompatibleClient("small", base_url=server.url, context_length=1400).complete(prompt, "planner")
    assert 64 <= calls_of(server)[0]["max_tokens"] < 1024 - 600


def test_react_shortens_its_history_instead_of_overflowing(server: ChatServer, tmp_path: Path) -> None:
    # Each unusable reply adds a history entry quoting it; with a short context the prompt must shrink.
    junk = "not json " * 60
    server.behaviours += [{"text": junk}, {"text": junk}, {"text": junk}, {"text": junk}, {"text": ACTION}]
    agent = ReActAgent(model="small", base_url=server.url, backoff_s=0.01, context_length=1400, stall_cutoff=9)
    result = run("calc-total-column", agent, tmp_path)
    assert result.termination == "done"
    assert result.metrics["shortened_prompts"] >= 1
    last_prompt = calls_of(server)[-1]["messages"][-1]["content"]
    assert "earlier steps not shown" in last_prompt or "left out to fit the context" in last_prompt


def test_the_server_kind_and_context_are_asked_from_the_server(server: ChatServer) -> None:
    server.pages["/v1/models"] = {"object": "list", "data": [{"id": "smollm2", "object": "model", "owned_by": "me"}]}
    server.pages["/props"] = {"default_generation_settings": {"n_ctx": 2048}}
    chat = OpenAICompatibleClient("smollm2", base_url=server.url, server="auto", constrained=True)
    chat.complete(MESSAGES, "react", schema={"type": "object"})
    assert (chat.server, chat.context_length) == ("llama-cpp-python", 2048)
    body = calls_of(server)[0]
    assert body["top_k"] == 20 and body["response_format"] == {"type": "json_object", "schema": {"type": "object"}}


@pytest.mark.parametrize("kind", ["vllm", "llamacpp", "ollama", "openai"])
def test_constrained_decoding_uses_each_servers_json_schema_form(server: ChatServer, kind: str) -> None:
    OpenAICompatibleClient("m", base_url=server.url, server=kind, constrained=True,
                           context_length=8192).complete(MESSAGES, "react", schema={"type": "object"})
    assert calls_of(server)[0]["response_format"]["json_schema"]["schema"] == {"type": "object"}


def test_without_constrained_no_schema_is_sent(server: ChatServer) -> None:
    OpenAICompatibleClient("m", base_url=server.url, context_length=8192).complete(MESSAGES, "react", schema={})
    assert "response_format" not in calls_of(server)[0]


def test_react_sends_its_reply_schema_with_the_action_types(server: ChatServer, tmp_path: Path) -> None:
    server.behaviours.append({"text": ACTION})
    agent = ReActAgent(model="small", base_url=server.url, server="vllm", constrained=True, context_length=8192)
    run("calc-total-column", agent, tmp_path)
    schema = calls_of(server)[0]["response_format"]["json_schema"]["schema"]
    assert {"set_value", "invoke_function", "done"} <= set(schema["properties"]["action"]["properties"]
                                                           ["action_type"]["enum"])


def test_a_tool_call_reply_is_read_as_the_json_answer() -> None:
    from asil.llm.client import _content

    # the shape servers answer with when given ``tools`` and a forced ``tool_choice``
    payload = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "act", "arguments": ACTION}}]}}]}
    assert json.loads(_content(payload))["action"]["action_type"] == "done"


def test_a_refused_field_names_the_field_and_the_way_out(server: ChatServer) -> None:
    server.behaviours.append({"status": 400, "error": {"error": {"message": "Unrecognized request argument "
                                                                            "supplied: top_k"}}})
    with pytest.raises(LLMError) as caught:
        OpenAICompatibleClient("m", base_url=server.url, server="vllm", context_length=8192).complete(MESSAGES, "react")
    assert "'top_k'" in (caught.value.hint or "") and "--server openai" in (caught.value.hint or "")


def test_a_server_that_ignores_stream_and_answers_json_is_read_whole(server: ChatServer) -> None:
    server.behaviours.append({"text": ACTION, "ignore_stream": True})  # plain JSON to a stream request
    model = client(server, context_length=8192)
    assert model.ask("react", MESSAGES, check=lambda d: None)["action"] == {"action_type": "done"}
    assert calls_of(server)[0]["stream"] is True


COUNTS = {"llama-cpp-python": ("/extras/tokenize/count", {"count": 3000}, {"input"}),
          "llamacpp": ("/tokenize", {"tokens": list(range(3000))}, {"content"}),
          "vllm": ("/tokenize", {"count": 3000}, {"prompt"})}


@pytest.mark.parametrize("kind", [*COUNTS, "ollama"])
def test_a_prompt_the_estimate_cannot_fit_is_counted_by_the_server(server: ChatServer, kind: str) -> None:
    # recorded with SmolLM2-135M on llama-cpp-python (2026-12-04): a LocalLSTC planner prompt of about 3,100
    # tokens was estimated at 4,064 (3 characters a token) and never sent to the 4,096-token context
    prompt = [{"role": "user", "content": "z" * 12300}]  # 4,100 tokens at 3 characters a token: no room
    chat = OpenAICompatibleClient("small", base_url=server.url, server=kind, context_length=4096)
    if kind not in COUNTS:  # Ollama has no tokenize endpoint: the cautious estimate stands
        with pytest.raises(LLMError, match="leaves no room"):
            chat.complete(prompt, "planner")
        assert server.requests == []
        return
    path, answer, field = COUNTS[kind]
    server.answers[path] = answer
    chat.complete(prompt, "planner")
    asked, sent = server.requests
    assert asked["path"] == path and field <= set(asked["body"]) and "z" * 12300 in asked["body"].values()
    assert sent["path"] == "/v1/chat/completions" and 64 <= sent["body"]["max_tokens"] <= 4096 - 3000
