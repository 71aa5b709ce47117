"""One client for any OpenAI-compatible chat endpoint: vLLM, Ollama, llama.cpp server, hosted APIs."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from asil.llm.base import LLMError, LLMReply, Message, timed_reply
from asil.llm.params import SERVER_PROFILES, RuntimeParams
from asil.tasks.model import Task

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAICompatibleClient:
    """POSTs to ``{base_url}/chat/completions`` with bounded retries and exponential backoff."""

    name = "openai-compatible"

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 server: str | None = None, params: RuntimeParams | dict[str, Any] | None = None,
                 timeout_s: float = 600.0,
                 retries: int = 3, backoff_s: float = 1.0):
        self.model = model
        self.base_url = (base_url or os.environ.get("ASIL_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                         or "http://127.0.0.1:8000/v1").rstrip("/")
        self.api_key = api_key or os.environ.get("ASIL_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        self.server = server or os.environ.get("ASIL_SERVER") or "openai"
        if self.server not in SERVER_PROFILES:
            raise LLMError(f"Unknown server kind {self.server!r}.", hint=f"Use one of: {', '.join(SERVER_PROFILES)}.")
        self.params = RuntimeParams.model_validate(params or {})  # a dict keeps agent options JSON
        self.timeout_s, self.retries, self.backoff_s = timeout_s, retries, backoff_s

    def bind(self, task: Task) -> None:
        return None

    def request_body(self, messages: list[Message]) -> dict[str, Any]:
        return {"model": self.model, "messages": messages, **SERVER_PROFILES[self.server](self.params)}

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None) -> LLMReply:
        started = time.perf_counter()
        body = json.dumps(self.request_body(messages)).encode()
        last_problem = "no attempt made"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
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

    def _post(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload: dict[str, Any] = json.loads(response.read().decode("utf-8"))
                return payload
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            if exc.code in RETRYABLE_STATUS:
                raise _Retryable(f"HTTP {exc.code}") from None
            raise LLMError(f"The model server refused the request with HTTP {exc.code}: {detail}",
                           hint=_refusal_hint(exc.code, detail)) from None
        except TimeoutError as exc:
            # Not retried: the server is most likely still generating the abandoned reply, and a retry would
            # queue behind it. Leaving the ``with`` block closed the connection, which cancels the request on
            # servers that watch for disconnects.
            raise LLMError(f"The model call timed out after {self.timeout_s:g} s ({exc or 'no reply'}) and was "
                           "cancelled.", hint="Raise --call-timeout, or use a faster model or a smaller completion "
                           "cap (--answer-tokens, --thinking-budget).", code="llm_timeout") from None
        except (urllib.error.URLError, ConnectionError) as exc:  # not reached or dropped: nothing runs, retry
            reason = getattr(exc, "reason", exc)
            raise _Retryable(f"{type(reason).__name__}: {reason}") from None
        except json.JSONDecodeError:
            raise _Retryable("the reply was not JSON") from None


class _Retryable(Exception):
    pass


def _refusal_hint(status: int, detail: str) -> str:
    lowered = detail.lower()
    if "context_length" in lowered or "context length" in lowered or "context window" in lowered:
        return ("The prompt plus the completion cap (max_tokens = --thinking-budget + --answer-tokens) is longer "
                "than the context the server was started with: lower --answer-tokens/--thinking-budget, or start "
                "the server with a larger context (llama.cpp: --n_ctx / -c; vLLM: --max-model-len).")
    if status in (401, 403):
        return "Check the API key (--api-key, $ASIL_API_KEY)."
    if status == 404:
        return "Check the base URL (it usually ends in /v1) and the model name the server serves."
    return "Check the model name and the request options the server accepts (--server)."


def _finish_reason(data: dict[str, Any]) -> str | None:
    try:
        reason = data["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    return str(reason) if reason is not None else None


def _content(data: dict[str, Any]) -> str:
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("The model server's reply has no choices[0].message.") from None
    content = message.get("content") or ""
    return str(content)
