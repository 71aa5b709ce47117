"""The LLM layer: an OpenAI-compatible client, JSON decision extraction, and registered providers."""

from asil.llm.base import LLMError, LLMReply, Provider, Usage, estimate_tokens
from asil.llm.params import SERVER_PROFILES, RuntimeParams
from asil.llm.parse import DecisionParseError, extract_json
from asil.llm.providers import PROVIDERS, make_provider

__all__ = ["PROVIDERS", "SERVER_PROFILES", "DecisionParseError", "LLMError", "LLMReply", "Provider", "RuntimeParams",
           "Usage", "estimate_tokens", "extract_json", "make_provider"]
