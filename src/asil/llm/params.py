"""Runtime parameters (LocalLSTC Table 5) and how each kind of server accepts them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.registry import Registry


class RuntimeParams(BaseModel):
    """Sampling defaults shared across LocalLSTC experiments (paper Table 5)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = 0.0
    top_p: float = 0.95
    top_k: int = 20
    seed: int = 42
    thinking_budget: int = Field(16384, description="tokens a thinking model may spend before answering")
    answer_tokens: int = Field(4096, description="tokens for the answer after thinking")
    max_candidates: int = Field(3, ge=1, le=3, description="candidate proposals per planner call")


Body = dict[str, Any]
ServerProfile = Callable[[RuntimeParams], Body]
SERVER_PROFILES: Registry[ServerProfile] = Registry("server kind")
server_profile = SERVER_PROFILES.register


def _standard(p: RuntimeParams) -> Body:
    return {"temperature": p.temperature, "top_p": p.top_p, "seed": p.seed,
            "max_tokens": p.thinking_budget + p.answer_tokens}


@server_profile("openai")
def openai_profile(p: RuntimeParams) -> Body:
    """Hosted OpenAI-style APIs: only the standard sampling fields."""
    return _standard(p)


@server_profile("vllm")
def vllm_profile(p: RuntimeParams) -> Body:
    """vLLM reads top_k from the body; thinking is switched on through the chat template and capped
    with ``thinking_token_budget`` (releases without it ignore the field and log a warning)."""
    return {**_standard(p), "top_k": p.top_k, "chat_template_kwargs": {"enable_thinking": True},
            "thinking_token_budget": p.thinking_budget}


@server_profile("llamacpp")
def llamacpp_profile(p: RuntimeParams) -> Body:
    """llama.cpp's llama-server reads top_k and a per-request reasoning budget from the body."""
    return {**_standard(p), "top_k": p.top_k, "reasoning_budget_tokens": p.thinking_budget}


@server_profile("ollama")
def ollama_profile(p: RuntimeParams) -> Body:
    """Ollama's /v1 endpoint takes the standard fields; top_k must be set in the Modelfile
    (``PARAMETER top_k 20``) because the OpenAI-compatible endpoint does not accept it."""
    return _standard(p)
