"""Runtime parameters (LocalLSTC Table 5) and how each kind of server accepts them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.registry import Registry


class RuntimeParams(BaseModel):
    """Sampling defaults shared across LocalLSTC experiments (paper Table 5).

    Table 5's other row, the maximum candidate proposals per planner call, is a control limit, not a
    sampling option: it is ``LSTCConfig.max_candidates`` (``--max-candidates``).
    """

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(0.0, ge=0, description="sampling temperature")
    top_p: float = Field(0.95, gt=0, le=1, description="nucleus sampling mass")
    top_k: int = Field(20, ge=-1, description="sample from the k likeliest tokens (-1: all)")
    seed: int = Field(42, description="sampling seed")
    thinking_budget: int = Field(16384, ge=0, description="tokens a thinking model may spend before answering")
    answer_tokens: int = Field(4096, ge=1, description="tokens for the answer after thinking")


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
    """llama.cpp's llama-server reads top_k and a per-request thinking budget from the body. The budget goes
    under both names builds have read (``thinking_budget_tokens``, older ``reasoning_budget_tokens``);
    a budget set at server start (``--reasoning-budget``) caps it."""
    return {**_standard(p), "top_k": p.top_k, "thinking_budget_tokens": p.thinking_budget,
            "reasoning_budget_tokens": p.thinking_budget}


@server_profile("ollama")
def ollama_profile(p: RuntimeParams) -> Body:
    """Ollama's /v1 endpoint takes the standard fields; it accepts neither top_k nor a thinking token
    budget, so top_k must be set in the Modelfile (``PARAMETER top_k 20``) and the budget only bounds
    ``max_tokens``."""
    return _standard(p)
