"""The plugin record and adapter class of each generated app, made from its committed bundle.

``asil.plugins`` declares a generated app as ``"asil.adapters.generated.records:<app>"``; the module
builds the record when that name is first looked up (nothing is read at import), and the record names
the adapter class as ``"...records:<app>_adapter"``, made here the same way.
"""

from __future__ import annotations

from functools import cache

from asil.adapters.generated.adapter import GeneratedAdapter
from asil.adapters.generated.bundle import Bundle, BundleError, bundle_path, function_table, load_bundle, vocabulary
from asil.plugins import AppPlugin

ADAPTER_SUFFIX = "_adapter"


def record(bundle: Bundle) -> AppPlugin:
    return AppPlugin(
        name=bundle.app, adapter=f"{__name__}:{bundle.app}{ADAPTER_SUFFIX}", pattern=bundle.pattern,
        extensions=bundle.extensions, checkpoints=("asil.adapters.generated.checkpoints",),
        validator="asil.adapters.generated.validator:raw_judge",
        builders={"profile_state": "asil.adapters.generated.builders:build_profile_state"},
        suite=f"suites/onboarded/{bundle.app}", render=bool(bundle.render))


def adapter_for(bundle: Bundle) -> type[GeneratedAdapter]:
    """A GeneratedAdapter subclass bound to ``bundle`` (its function table and vocabulary derived from it)."""
    return type(f"{bundle.app.title()}Adapter", (GeneratedAdapter,), {
        "bundle": bundle, "functions": function_table(bundle), "vocabulary": vocabulary(bundle),
        "__module__": __name__})


@cache
def _adapter(app: str) -> type[GeneratedAdapter]:
    return adapter_for(load_bundle(app))


def __getattr__(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)
    if name.endswith(ADAPTER_SUFFIX):
        return _adapter(name.removesuffix(ADAPTER_SUFFIX))
    if not bundle_path(name).is_file():
        raise AttributeError(name)
    try:
        return record(load_bundle(name))
    except BundleError as exc:
        raise AttributeError(f"{name}: {exc.message}") from None
