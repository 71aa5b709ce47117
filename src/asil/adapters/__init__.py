"""Adapters: the contract, the registry and the conformance checker."""

from asil.adapters.base import Adapter, Readiness
from asil.adapters.registry import (
    UnknownApp,
    adapter_names,
    app_for_path,
    declare_adapter,
    get_adapter_class,
    register_adapter,
)

__all__ = [
    "Adapter",
    "Readiness",
    "UnknownApp",
    "adapter_names",
    "app_for_path",
    "declare_adapter",
    "get_adapter_class",
    "register_adapter",
]
