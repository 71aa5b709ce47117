"""One client for any OpenAI-compatible chat endpoint: vLLM, Ollama, llama.cpp server, hosted APIs."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, Until, estimate_tokens, prompt_text, timed_reply
from asil.llm.params import SERVER_PROFILES, RuntimeParams, ServerProfile
from asil.llm.server_info import detect_server, refusal_hint
from asil.llm.stream import read_stream
from asil.tasks.model import Task

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}
MIN_ANSWER_TOKENS = 64  # below this much room for the reply, a call is not worth sending
CHARS_PER_TOKEN_SAFE = 3  # a cautious estimate for fitting prompts into a context (JSON is dense)
TEMPLATE_TOKENS = 8  # what a chat template adds around each message


class OpenAICompatibleClient:
    """POSTs to ``{base_url}/chat/completions`` with bounded retries and exponential backoff.

    With ``stream`` (the default) a call given an ``until`` test is streamed and cut off as soon as the text
    so far passes it (a complete action), instead of letting a small model ramble to the completion cap.
    ``context_length`` (given, or asked from the server) keeps prompt + completion cap inside the context;
    a prompt that cannot fit raises ``LLMError`` with code ``context_overflow`` before anything is sent, so the
    agent can shorten it. ``constrained`` sends each call's JSON Schema for constrained decoding where the
    server kind takes one.
    """

    name = "openai-compatible"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 server: str | None = None, params: RuntimeParams | dict[str, Any] | None = None,
                 timeout_s: float = 600.0, retries: int = 3, backoff_s: float = 1.0, stream: bool = True,
                 context_length: int | None = None, constrained: bool = False):
        self.model = model
        self.base_url = (base_url or os.environ.get("ASIL_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                         or "http://127.0.0.1:8000/v1").rstrip("/")
        self.api_key = api_key or os.environ.get("ASIL_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        self.server = server or os.environ.get("ASIL_SERVER") or "openai"
        if self.server != "auto":
            SERVER_PROFILES.require(self.server)
        self.params = RuntimeParams.model_validate(params or {})  # a dict keeps agent options JSON
        self.timeout_s, self.retries, self.backoff_s = timeout_s, retries, backoff_s
        self.stream, self.constrained = stream, constrained
        self.context_length = context_length
        self._probed = False

    def bind(self, task: Task) -> None:
        return None

    @property
    def profile(self) -> ServerProfile:
        self._probe()
        return SERVER_PROFILES.require(self.server)

    def _probe(self) -> None:
        """Ask the server once what it is and how long its context is, where the user did not say."""
        if self._probed or (self.server != "auto" and self.context_length is not None):
            return
        self._probed = True
        info = detect_server(self.base_url, self._headers(), timeout_s=min(10.0, self.timeout_s))
        if self.server == "auto":
            self.server = info.kind or "openai"
        if self.context_length is None:
            self.context_length = info.context_length

    def request_body(self, messages: list[Message], kind: str = "react",
                     schema: dict[str, Any] | None = None) -> dict[str, Any]:
        profile = self.profile
        body = {"model": self.model, "messages": messages, **profile.body(self.params),
                "max_tokens": self._completion_cap(messages, kind)}
        if self.constrained and schema is not None and profile.schema_format is not None:
            body.update(profile.schema_format(schema))
        return body

    def _completion_cap(self, messages: list[Message], kind: str) -> int:
        cap = self.params.max_tokens(kind)
        if self.context_length is None:
            return cap
        prompt = self._prompt_tokens(messages, self.context_length - cap)
        room = self.context_length - prompt
        if room < MIN_ANSWER_TOKENS:
            raise LLMError(f"The {kind} prompt (about {prompt} tokens) leaves no room for a reply in the "
                           f"server's {self.context_length}-token context.", code="context_overflow",
                           hint="The agent shortens its history and tries again; a larger context "
                           "(--context-length, and the server's own setting) avoids it.")
        return min(cap, room)

    def _prompt_tokens(self, messages: list[Message], fits: int) -> int:
        """The prompt's length in tokens: a cautious estimate, or, when that is over ``fits`` (the cap would
        shrink or the call not go), the server's own count where it has a tokenize endpoint.

        At 3 characters a token a LocalLSTC planner prompt of about 3,100 SmolLM2 tokens was estimated at 4,064
        and never sent to a 4,096-token context: 8 of 24 calls of a 15-step episode, each answered by cutting the
        control state. Streamed replies carry no usage on llama-cpp-python, so the count cannot be learned after.
        """
        text = prompt_text(messages)
        template = TEMPLATE_TOKENS * len(messages)
        cautious = len(text) // CHARS_PER_TOKEN_SAFE + template
        counter = self.profile.token_count
        if cautious <= fits or counter is None:
            return cautious
        root = self.base_url.removesuffix("/v1")
        body = json.dumps(counter.body(self.model, text)).encode()
        try:
            request = urllib.request.Request(f"{root}{counter.path}", data=body, headers=self._headers())
            with urllib.request.urlopen(request, timeout=min(10.0, self.timeout_s)) as response:
                return counter.count(json.loads(response.read())) + template
        except (OSError, ValueError, KeyError, TypeError):  # no such endpoint after all: stay cautious
            return cautious

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply:
        started = time.perf_counter()
        streamed = self.stream and until is not None
        payload = self.request_body(messages, kind, schema)
        if streamed:
            payload.update(stream=True, stream_options={"include_usage": True})
        body = json.dumps(payload).encode()
        last_problem = "no attempt made"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                if streamed:
                    assert until is not None
                    return self._post_streamed(body, messages, started, until)
                data = self._post(body)
            except _Retryable as exc:
                last_problem = str(exc)
                continue
            except LLMError as exc:
                exc.seconds = time.perf_counter() - started
                raise
            return timed_reply(_content(data), messages, started, data.get("usage"), _finish_reason(data))
        raise LLMError(f"The model server at {self.base_url} failed {self.retries + 1} times ({last_problem}).",
                       hint="Check that the server is running and the base URL, model name and key are right.",
                       seconds=time.perf_counter() - started)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def _open(self, body: bytes) -> Any:
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=self._headers())
        try:
            return urllib.request.urlopen(request, timeout=self.timeout_s)
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            # llama-cpp-python answers a body it cannot validate with HTTP 500: that is a refusal, not an outage
            if exc.code in RETRYABLE_STATUS and "validation error" not in detail.lower():
                raise _Retryable(f"HTTP {exc.code}") from None
            sent = json.loads(body)
            code = "context_overflow" if _is_context_error(detail) else None
            raise LLMError(f"The model server refused the request with HTTP {exc.code}: {detail}",
                           hint=refusal_hint(exc.code, detail, sent, self.server), code=code) from None
        except TimeoutError as exc:
            raise self._timeout(exc) from None
        except (urllib.error.URLError, ConnectionError) as exc:  # not reached or dropped: nothing runs, retry
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise self._timeout(reason) from None
            raise _Retryable(f"{type(reason).__name__}: {reason}") from None

    def _timeout(self, exc: BaseException | None) -> LLMError:
        # Not retried: the server is most likely still generating the abandoned reply, and a retry would queue
        # behind it. Closing the connection cancels the request on servers that watch for disconnects.
        return LLMError(f"The model call timed out after {self.timeout_s:g} s ({exc or 'no reply'}) and was "
                        "cancelled.", hint="Raise --call-timeout, or use a faster model or a smaller completion "
                        "cap (--caps local, --answer-tokens).", code="llm_timeout")

    def _post(self, body: bytes) -> dict[str, Any]:
        try:
            with self._open(body) as response:
                payload: dict[str, Any] = json.loads(response.read().decode("utf-8"))
                return payload
        except TimeoutError as exc:
            raise self._timeout(exc) from None
        except json.JSONDecodeError:
            raise _Retryable("the reply was not JSON") from None

    def _post_streamed(self, body: bytes, messages: list[Message], started: float, until: Until) -> LLMReply:
        deadline = time.monotonic() + self.timeout_s
        try:
            with self._open(body) as response:  # leaving the block closes the connection: generation stops
                if response.headers.get_content_type() != "text/event-stream":
                    # a server that ignores ``stream`` answers with the whole reply, as JSON
                    data = json.loads(response.read().decode("utf-8"))
                    return timed_reply(_content(data), messages, started, data.get("usage"), _finish_reason(data))
                result = read_stream(response, until, deadline)
        except json.JSONDecodeError:
            raise _Retryable("the reply was not JSON") from None
        except TimeoutError as exc:
            raise self._timeout(exc) from None
        if result.timed_out:
            raise self._timeout(None)
        reply = timed_reply(result.text, messages, started, result.usage, result.finish_reason)
        if result.usage is None or "completion_tokens" not in result.usage:
            reply.completion_tokens = max(result.chunks, estimate_tokens(result.text))  # a chunk is ~1 token
        reply.stopped_early = result.stopped_early
        reply.cap = json.loads(body)["max_tokens"]
        return reply


class _Retryable(Exception):
    pass


def _is_context_error(detail: str) -> bool:
    lowered = detail.lower()
    return any(words in lowered for words in ("context_length", "context length", "context window",
                                              "exceeds the available context", "maximum context"))


def _finish_reason(data: dict[str, Any]) -> str | None:
    try:
        reason = data["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return str(reason) if reason is not None else None


def _content(data: dict[str, Any]) -> str:
    """The reply text; for a tool call (servers given ``tools``), the call's arguments, which hold the JSON."""
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("The model server's reply has no choices[0].message.") from None
    content = message.get("content") or ""
    calls = message.get("tool_calls") or []
    if not content.strip() and calls:
        function = (calls[0] or {}).get("function") or {}
        return str(function.get("arguments") or "")
    return str(content)
