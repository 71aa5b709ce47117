"""Runtime parameters (LocalLSTC Table 5) and how each kind of server accepts them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
    caps: str = Field("local", description="completion caps per call kind: 'local' (short caps that suit small "
                      "local models, see COMPLETION_CAPS) or 'table5' (thinking budget + answer tokens for every call)")

    @field_validator("caps")
    @classmethod
    def _known_caps(cls, value: str) -> str:
        if value not in CAP_PROFILES:
            raise ValueError(f"unknown completion cap profile {value!r}; use one of: {', '.join(CAP_PROFILES)}")
        return value

    def max_tokens(self, kind: str) -> int:
        """The completion cap of one call kind (planner, abstraction, verification, refinement, react, repair)."""
        return CAP_PROFILES.require(self.caps)(self, kind)


# Completion caps per call kind under the 'local' profile. A complete ReAct step or LSTC decision of a small
# model is well under these; streaming stops a call as soon as its JSON is complete, so a cap only bounds a
# model that rambles (benchmarks/real_model.py shows how often SmolLM2-135M reaches them).
COMPLETION_CAPS = {"planner": 1024, "abstraction": 384, "verification": 384, "refinement": 512, "react": 384,
                   "repair": 512}
DEFAULT_CAP = 512  # call kinds not listed (annotation judges, teachers)

CapProfile = Callable[[RuntimeParams, str], int]
CAP_PROFILES: Registry[CapProfile] = Registry("completion cap profile")
CAP_PROFILES.add("local", lambda p, kind: min(COMPLETION_CAPS.get(kind, DEFAULT_CAP), p.thinking_budget + p.answer_tokens))
CAP_PROFILES.add("table5", lambda p, kind: p.thinking_budget + p.answer_tokens)

Body = dict[str, Any]
SchemaFormat = Callable[[dict[str, Any]], Body]


@dataclass(frozen=True)
class TokenCount:
    """How a server counts a text's tokens with its own tokenizer: a POST to ``path`` (under the server root,
    beside ``/v1``) with ``body(model, text)``; ``count`` reads the number from the answer."""

    path: str
    body: Callable[[str, str], Body]
    count: Callable[[Any], int]


def _standard(p: RuntimeParams) -> Body:
    return {"temperature": p.temperature, "top_p": p.top_p, "seed": p.seed}


def _json_schema(schema: dict[str, Any]) -> Body:
    """OpenAI's structured-output form; vLLM, llama.cpp's llama-server and LM Studio read it too."""
    return {"response_format": {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}}


def _json_object_schema(schema: dict[str, Any]) -> Body:
    """llama-cpp-python's server: a grammar built from ``schema`` under ``type: json_object``."""
    return {"response_format": {"type": "json_object", "schema": schema}}


@dataclass(frozen=True)
class ServerProfile:
    """What one kind of OpenAI-compatible server accepts beyond the standard fields.

    ``sampling`` adds its own sampling fields; ``schema_format`` is how it takes a JSON Schema for
    constrained decoding (None: not offered); ``owned_by`` are the ``/v1/models`` owner names that identify it
    for ``--server auto``; ``start`` is a documented command that serves a model with it; ``token_count``
    is its tokenize endpoint (None: it has none), asked when a cautious estimate cannot fit a prompt.
    """

    name: str
    sampling: Callable[[RuntimeParams], Body]
    schema_format: SchemaFormat | None = None
    owned_by: tuple[str, ...] = ()
    start: str = ""
    token_count: TokenCount | None = None

    def body(self, params: RuntimeParams) -> Body:
        return {**_standard(params), **self.sampling(params)}


SERVER_PROFILES: Registry[ServerProfile] = Registry("server kind")


def server_profile(profile: ServerProfile) -> ServerProfile:
    SERVER_PROFILES.add(profile.name, profile)
    return profile


server_profile(ServerProfile(
    "openai", lambda p: {}, _json_schema,
    start="any hosted or local endpoint that takes only the standard OpenAI fields"))
# vLLM reads top_k from the body; thinking is switched on through the chat template and capped with
# ``thinking_token_budget`` (releases without it ignore the field and log a warning).
server_profile(ServerProfile(
    "vllm", lambda p: {"top_k": p.top_k, "chat_template_kwargs": {"enable_thinking": True},
                       "thinking_token_budget": p.thinking_budget},
    _json_schema, owned_by=("vllm",), start="vllm serve MODEL --max-model-len 8192",
    token_count=TokenCount("/tokenize", lambda model, text: {"model": model, "prompt": text},
                           lambda answer: int(answer["count"]))))
# llama.cpp's llama-server reads top_k and a per-request thinking budget from the body, under both names builds
# have read (``thinking_budget_tokens``, older ``reasoning_budget_tokens``); ``--reasoning-budget`` caps it.
server_profile(ServerProfile(
    "llamacpp", lambda p: {"top_k": p.top_k, "thinking_budget_tokens": p.thinking_budget,
                           "reasoning_budget_tokens": p.thinking_budget},
    _json_schema, owned_by=("llamacpp",), start="llama-server -m MODEL.gguf -c 8192 --port 8000",
    token_count=TokenCount("/tokenize", lambda model, text: {"content": text},
                           lambda answer: len(answer["tokens"]))))
# llama-cpp-python's server (``python -m llama_cpp.server``): top_k in the body, no thinking budget, JSON
# Schema constraints under ``json_object``; its /v1/models names the owner "me".
server_profile(ServerProfile(
    "llama-cpp-python", lambda p: {"top_k": p.top_k}, _json_object_schema, owned_by=("me",),
    start="python -m llama_cpp.server --model MODEL.gguf --n_ctx 8192 --port 8000",
    token_count=TokenCount("/extras/tokenize/count", lambda model, text: {"model": model, "input": text},
                           lambda answer: int(answer["count"]))))
# Ollama's /v1 endpoint takes the standard fields, neither top_k (set it in the Modelfile:
# ``PARAMETER top_k 20``) nor a thinking budget (which then only bounds max_tokens).
server_profile(ServerProfile(
    "ollama", lambda p: {}, _json_schema, owned_by=("library", "ollama"),
    start="ollama serve; ollama pull MODEL (OLLAMA_CONTEXT_LENGTH=8192 sets the context)"))
