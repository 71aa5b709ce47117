"""What an OpenAI-compatible server says about itself: which kind it is and how long its context is."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from asil.llm.params import SERVER_PROFILES


@dataclass
class ServerInfo:
    kind: str | None = None  # a SERVER_PROFILES name, when /v1/models identifies the server
    context_length: int | None = None  # tokens, when the server states it
    models: tuple[str, ...] = ()


def _get(url: str, headers: dict[str, str], timeout_s: float) -> Any:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout_s) as response:
            return json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError):  # not offered by this server, or not JSON
        return None


def detect_server(base_url: str, headers: dict[str, str], timeout_s: float = 10.0) -> ServerInfo:
    """Read ``/v1/models`` (vLLM: ``max_model_len``; llama.cpp: ``meta.n_ctx_train``; the owner names the
    server) and llama.cpp's ``/props`` (the context the server was started with). Missing answers leave
    fields unknown; nothing here raises."""
    info = ServerInfo()
    listing = _get(f"{base_url}/models", headers, timeout_s)
    entries = listing.get("data", []) if isinstance(listing, dict) else []
    info.models = tuple(str(entry.get("id")) for entry in entries if isinstance(entry, dict))
    for entry in (e for e in entries if isinstance(e, dict)):
        owner = str(entry.get("owned_by", ""))
        info.kind = info.kind or next((p.name for p in map(SERVER_PROFILES.require, SERVER_PROFILES)
                                       if owner in p.owned_by), None)
        length = entry.get("max_model_len") or (entry.get("meta") or {}).get("n_ctx")
        info.context_length = info.context_length or (int(length) if length else None)
    props = _get(f"{base_url.removesuffix('/v1')}/props", headers, timeout_s)
    if isinstance(props, dict):
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
        info.context_length = int(n_ctx) if n_ctx else info.context_length
    return info


# Body fields a server may refuse, and what to do about each (a 400 that names one of them).
OPTIONAL_FIELDS = {
    "top_k": "--server openai sends only the standard fields",
    "response_format": "leave out --constrained (this server has no JSON-Schema constraints)",
    "thinking": "--server openai sends no thinking budget",
    "reasoning": "--server openai sends no thinking budget",
    "chat_template_kwargs": "--server openai sends no chat-template options",
    "stream_options": "--no-stream asks for whole replies",
    "seed": "this server takes no seed; --server openai still sends one, so use a server that accepts it",
}


def refusal_hint(status: int, detail: str, sent: dict[str, Any], server: str) -> str:
    """One sentence on what to change after the server refused a request."""
    lowered = detail.lower()
    if "context_length" in lowered or "context length" in lowered or "context window" in lowered:
        return ("The prompt plus the completion cap is longer than the context the server was started with: "
                "give --context-length (ASIL then keeps each call inside it), use --caps local, or start the "
                "server with a larger context (llama.cpp: -c / --n_ctx; vLLM: --max-model-len).")
    if status in (401, 403):
        return "Check the API key (--api-key, $ASIL_API_KEY)."
    if status == 404:
        return "Check the base URL (it usually ends in /v1) and the model name the server serves."
    for field, advice in OPTIONAL_FIELDS.items():
        if field in lowered and any(field in key for key in sent):
            return f"The {server} server does not accept the field {field!r} that was sent: {advice}."
    return (f"Check the model name and the request options the server accepts (--server {server}; known kinds: "
            f"{', '.join(SERVER_PROFILES)}, or auto).")
