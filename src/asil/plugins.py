"""App plugins: one record per app that says everything the rest of ASIL needs to know about it.

An :class:`AppPlugin` names its parts as ``"package.module:attr"`` strings, so reading a record
imports nothing heavy: ``import asil`` still starts no program and imports no UNO or bpy. Each
built-in app package (``asil/adapters/<app>/__init__.py``) holds its record as ``PLUGIN``, and
:data:`APPS` declares it in one line. A third-party app is a package with such a record and an
entry point in the ``asil.apps`` group (``myapp = "my_package:PLUGIN"``), or a call to
:func:`register_app`.

How to add an app is a checklist in ARCHITECTURE.md; ``tests/test_plugin_checklist.py`` follows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from asil.protocol import AsilError
from asil.registry import Registry, load_target

if TYPE_CHECKING:
    from asil.adapters.base import Adapter

Pattern = Literal["file", "script", "service"]
PATTERNS: tuple[Pattern, ...] = ("file", "script", "service")


class UnknownApp(AsilError):
    code = "unknown_app"


@dataclass(frozen=True)
class AppPlugin:
    """Everything ASIL needs to know about one app; parts are lazy ``"module:attr"`` strings.

    Attributes:
        name: the app's name in tasks, traces and on the command line ("calc").
        adapter: the :class:`~asil.adapters.base.Adapter` subclass.
        pattern: how the app is realized: ``file`` (a document on disk), ``script`` (a program's
            scripting runtime) or ``service`` (a running program or server).
        extensions: file endings the app opens (``asil observe FILE`` picks the app by them).
        checkpoints: modules whose ``@checkpoint_type`` functions read this app's state.
        validator: the independent raw validator, ``raw_judge(checkpoint, workspace, outcome, answer)``.
        builders: setup-file kinds this app builds, ``kind -> "module:function"``.
        warm_up: started once per bench worker before its first episode (a warm program).
        stop: stops what ``warm_up`` started, before the worker exits.
        suite: the app's folder of single-app tasks, relative to the ``asil.tasks`` package
            (``suites/core/calc``); ``asil apps`` counts its tasks.
        render: whether the adapter renders its state to a PNG (``Adapter.render``).
        scratch: workspace paths (``fnmatch`` patterns) where the app's program keeps its own working
            files, not state any checkpoint reads — a Thunderbird profile; kept final states leave them out.
        gui: the app's GUI launch spec for the GUI participant (``asil.gui``), ``"module:function"``:
            ``launch(workspace, document)`` starts the real program's window on the task's files in a
            private display and returns a session with ``display_name``, ``size``, ``sync()`` (bring the
            GUI's state to the files the evaluator reads) and ``stop()``; None for apps without one.
        region: the benchmark region the app's single-app tasks are reported under (one of
            :data:`REGIONS`, or a region of its own); None puts them under :data:`OTHER_REGION`.
    """

    name: str
    adapter: str
    pattern: Pattern
    extensions: tuple[str, ...] = ()
    checkpoints: tuple[str, ...] = ()
    validator: str | None = None
    builders: Mapping[str, str] = field(default_factory=dict)
    warm_up: str | None = None
    stop: str | None = None
    suite: str | None = None
    render: bool = False
    region: str | None = None
    gui: str | None = None
    scratch: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"app {self.name!r}: pattern must be one of {', '.join(PATTERNS)}, not {self.pattern!r}")

    def adapter_class(self) -> type[Adapter]:
        """Import the adapter class (once) and stamp this record's name, pattern and extensions on it."""
        return _adapter_class(self)

    def load_checkpoints(self) -> None:
        """Import the modules that register this app's checkpoint types."""
        for module in self.checkpoints:
            load_target(f"{module}:")


def packaged_app(package: str, adapter: str, pattern: Pattern, *, builders: Mapping[str, str] | None = None,
                 **fields: Any) -> AppPlugin:
    """The record of an app laid out as ASIL's own apps are, in the package ``package`` (``asil.adapters.calc``).

    Its parts are found in the package's standard modules: ``adapter.py`` (the class named ``adapter``),
    ``checkpoints.py``, ``validator.py`` (``raw_judge``) and ``builders.py`` (``builders`` maps a setup-file
    kind to a function name there); its tasks are in ``suites/core/<name>``; it renders its state. ``fields`` sets or overrides
    any other field of :class:`AppPlugin`.
    """
    name = package.rpartition(".")[2]
    record: dict[str, Any] = {
        "name": name, "adapter": f"{package}.adapter:{adapter}", "pattern": pattern,
        "checkpoints": (f"{package}.checkpoints",), "validator": f"{package}.validator:raw_judge",
        "builders": {kind: f"{package}.builders:{function}" for kind, function in (builders or {}).items()},
        "suite": f"suites/core/{name}", "render": True,
    }
    return AppPlugin(**{**record, **fields})


_LOADED: dict[str, type[Adapter]] = {}


def _adapter_class(plugin: AppPlugin) -> type[Adapter]:
    if plugin.name not in _LOADED:
        cls: type[Adapter] = load_target(plugin.adapter)
        cls.name, cls.pattern, cls.extensions = plugin.name, plugin.pattern, plugin.extensions
        _LOADED[plugin.name] = cls
    return _LOADED[plugin.name]


APPS: Registry[AppPlugin] = Registry("app", group="asil.apps", error=UnknownApp)
# The built-in apps: a new app is its folder under asil/adapters plus one line here.
for _app in ("audacity", "blender", "calc", "codeserver", "drawio", "gimp", "gitea", "impress", "inkscape",
             "jupyter", "kdenlive", "nautilus", "obs", "thunderbird", "writer"):
    APPS.declare(_app, f"asil.adapters.{_app}:PLUGIN")
# Apps onboarded from an interface profile (`asil onboard --install`): each is a compiled bundle in
# asil/adapters/generated/bundles/, with no adapter module of its own; its record is made from the bundle.
for _bundle in sorted((Path(__file__).parent / "adapters" / "generated" / "bundles").glob("*.json")):
    APPS.declare(_bundle.stem, f"asil.adapters.generated.records:{_bundle.stem}")


# The ASIL paper's regions (Table 1, Appendix A), in its column order. Each built-in app's record names its
# region; tasks over several apps are Multi-App; an app whose record names none is reported under "Other".
CREATIVE, OFFICE, DEVELOPER, FILES = ("Creative Media", "Office & Diagrams", "Developer Workflows",
                                      "Files & Communication")
MULTI_REGION = "Multi-App"
OTHER_REGION = "Other"
REGIONS = (CREATIVE, OFFICE, DEVELOPER, FILES, MULTI_REGION)


def region_of(apps: list[str] | tuple[str, ...]) -> str:
    """The region of a task over ``apps``: Multi-App for several apps, else its app record's region.

    An app that is not registered, or whose record names no region, is in :data:`OTHER_REGION`.
    """
    if len(set(apps)) > 1:
        return MULTI_REGION
    name = apps[0]
    return (plugin(name).region if name in APPS else None) or OTHER_REGION


def region_order(regions: set[str]) -> list[str]:
    """``regions`` in report order: the paper's regions first, then any others by name (Other last)."""
    extra = sorted(regions - set(REGIONS) - {OTHER_REGION})
    return [r for r in REGIONS if r in regions] + extra + ([OTHER_REGION] if OTHER_REGION in regions else [])


def register_app(plugin: AppPlugin) -> AppPlugin:
    """Add (or replace) an app from its record, e.g. from a test or a notebook."""
    APPS.add(plugin.name, plugin)
    _LOADED.pop(plugin.name, None)
    return plugin


def unregister_app(name: str) -> None:
    """Forget an app added with :func:`register_app` (tests, notebooks)."""
    APPS.remove(name)
    _LOADED.pop(name, None)


def app_names() -> list[str]:
    return sorted(APPS.names())


def plugin(name: str) -> AppPlugin:
    """The record of the app ``name``; UnknownApp naming the known apps otherwise."""
    record = APPS.require(name)
    if not isinstance(record, AppPlugin) or record.name != name:
        raise TypeError(f"the app entry {name!r} ({APPS.target(name)}) is not an AppPlugin named {name!r}")
    return record


def adapter_class(name: str) -> type[Adapter]:
    return plugin(name).adapter_class()


def app_for_path(path: str | Path) -> str:
    """The app that opens a file, chosen by its extension."""
    suffix = Path(path).suffix.lower()
    for name in app_names():
        if suffix in plugin(name).extensions:
            return name
    known = sorted({ext for name in app_names() for ext in plugin(name).extensions})
    raise UnknownApp(f"No adapter handles {suffix or 'files without an extension'!r} files.",
                     hint=f"Known file types: {', '.join(known)}; or pass --app.")


def app_builders() -> dict[str, str]:
    """Every app's setup-file builders, ``kind -> "module:function"`` (the first app to declare a kind wins)."""
    builders: dict[str, str] = {}
    for name in app_names():
        for kind, target in plugin(name).builders.items():
            builders.setdefault(kind, target)
    return builders


def lifecycle_hooks(which: Literal["warm_up", "stop"]) -> list[Callable[[], Any]]:
    """The distinct warm-up (or stop) hooks of all apps; apps sharing a program share one hook."""
    targets = dict.fromkeys(getattr(plugin(name), which) for name in app_names())
    return [load_target(target) for target in targets if target]


def load_all_checkpoints() -> None:
    """Import every app's checkpoint modules (to list or look up a type whose app is not named).

    An app whose optional Python packages are not installed is passed over here: its types stay
    unknown, and naming its app (``Checkpoint.app``) brings the import error to light.
    """
    for name in app_names():
        try:
            plugin(name).load_checkpoints()
        except ModuleNotFoundError as exc:
            if (exc.name or "").startswith("asil"):
                raise
