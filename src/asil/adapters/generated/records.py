"""The plugin record and adapter class of each generated app, made from its committed bundle.

``asil.plugins`` declares a generated app as ``"asil.adapters.generated.records:<app>"``; the module
builds the record when that name is first looked up (nothing is read at import), and the record names
the adapter class as ``"...records:<app>_adapter"``, made here the same way.
"""

from __future__ import annotations

from asil.adapters.generated.adapter import GeneratedAdapter
from asil.adapters.generated.bundle import Bundle, BundleError, function_table, has_bundle, load_bundle, use_bundle, vocabulary
from asil.plugins import AppPlugin, register_app

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


_CLASSES: dict[str, type[GeneratedAdapter]] = {}


def _adapter(app: str) -> type[GeneratedAdapter]:
    bundle = load_bundle(app)
    if app not in _CLASSES or _CLASSES[app].bundle is not bundle:
        _CLASSES[app] = adapter_for(bundle)
    return _CLASSES[app]


def register_bundle(bundle: Bundle) -> AppPlugin:
    """Register an app from a bundle that is not committed (a notebook, a test): its record, in this process."""
    use_bundle(bundle)
    _CLASSES.pop(bundle.app, None)
    return register_app(record(bundle))


def __getattr__(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)
    if name.endswith(ADAPTER_SUFFIX):
        return _adapter(name.removesuffix(ADAPTER_SUFFIX))
    if not has_bundle(name):
        raise AttributeError(name)
    try:
        return record(load_bundle(name))
    except BundleError as exc:
        raise AttributeError(f"{name}: {exc.message}") from None
