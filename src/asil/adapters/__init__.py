"""Adapters: the contract, the declarative function table and the conformance checker.

Which adapters exist, and everything else about each app, is in its plugin record (:mod:`asil.plugins`).
"""

from asil.adapters.base import Adapter, Readiness
from asil.adapters.functions import AppFunction, FunctionTable, Vocabulary
from asil.plugins import AppPlugin, UnknownApp, adapter_class, app_for_path, app_names, register_app

__all__ = [
    "Adapter",
    "AppFunction",
    "AppPlugin",
    "FunctionTable",
    "Readiness",
    "UnknownApp",
    "Vocabulary",
    "adapter_class",
    "app_for_path",
    "app_names",
    "register_app",
]
