"""Adapter registry: names map lazily to ``module:Class``; classes register by decorator.

Nothing here imports an adapter module until someone asks for that adapter, so
``import asil`` never imports UNO, bpy or starts a program. Third-party adapters
can be added with ``declare_adapter`` or the ``asil.adapters`` entry-point group.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from asil.protocol import AsilError

if TYPE_CHECKING:
    from asil.adapters.base import Adapter

PATTERNS = ("file", "script", "service")

# Built-in adapters, by name. Later adapters add a line here.
_DECLARED: dict[str, str] = {
    "blender": "asil.adapters.blender.adapter:BlenderAdapter",
    "gimp": "asil.adapters.gimp.adapter:GimpAdapter",
    "calc": "asil.adapters.calc.adapter:CalcAdapter",
    "codeserver": "asil.adapters.codeserver.adapter:CodeServerAdapter",
    "drawio": "asil.adapters.drawio.adapter:DrawioAdapter",
    "inkscape": "asil.adapters.inkscape.adapter:InkscapeAdapter",
    "jupyter": "asil.adapters.jupyter.adapter:JupyterAdapter",
    "writer": "asil.adapters.writer.adapter:WriterAdapter",
    "impress": "asil.adapters.impress.adapter:ImpressAdapter",
    "obs": "asil.adapters.obs.adapter:ObsAdapter",
    "gitea": "asil.adapters.gitea.adapter:GiteaAdapter",
    "kdenlive": "asil.adapters.kdenlive.adapter:KdenliveAdapter",
    "nautilus": "asil.adapters.nautilus.adapter:NautilusAdapter",
    "audacity": "asil.adapters.audacity.adapter:AudacityAdapter",
    "thunderbird": "asil.adapters.thunderbird.adapter:ThunderbirdAdapter",
}
_REGISTERED: dict[str, type[Adapter]] = {}
A = TypeVar("A", bound="type[Adapter]")


class UnknownApp(AsilError):
    code = "unknown_app"


def register_adapter(name: str, *, pattern: str, extensions: tuple[str, ...] = ()) -> Callable[[A], A]:
    """Class decorator: ``@register_adapter("calc", pattern="file", extensions=(".ods",))``."""
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {PATTERNS}, not {pattern!r}")

    def wrap(cls: A) -> A:
        cls.name, cls.pattern, cls.extensions = name, pattern, extensions
        _REGISTERED[name] = cls
        return cls

    return wrap


def declare_adapter(name: str, entry_point: str) -> None:
    """Make ``name`` loadable from ``"package.module:Class"`` without importing it now."""
    _DECLARED[name] = entry_point


def _plugin_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="asil.adapters")}


def adapter_names() -> list[str]:
    return sorted(set(_DECLARED) | set(_REGISTERED) | set(_plugin_points()))


def get_adapter_class(name: str) -> type[Adapter]:
    """Import (once) and return the adapter class registered as ``name``."""
    if name not in _REGISTERED:
        target = _DECLARED.get(name) or _plugin_points().get(name)
        if target is None:
            raise UnknownApp(f"Unknown app {name!r}.", hint=f"Known apps: {', '.join(adapter_names())}.")
        module, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if _REGISTERED.get(name) is not cls:
            raise TypeError(f"{target} is not decorated with @register_adapter({name!r}, ...)")
    return _REGISTERED[name]


def app_for_path(path: str | Path) -> str:
    """The adapter name that handles a file, chosen by its extension."""
    suffix = Path(path).suffix.lower()
    for name in adapter_names():
        if suffix in get_adapter_class(name).extensions:
            return name
    known = sorted({ext for n in adapter_names() for ext in get_adapter_class(n).extensions})
    raise UnknownApp(f"No adapter handles {suffix or 'files without an extension'!r} files.",
                     hint=f"Known file types: {', '.join(known)}; or pass --app.")
