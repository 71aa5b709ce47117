"""Optional features live behind pip extras; using one without its packages names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from asil.protocol import AsilError


class MissingExtra(AsilError):
    """An optional feature was used but its packages are not installed."""

    code = "missing_extra"


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise MissingExtra naming ``pip install 'asil[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"This feature needs the optional package {module.split('.')[0]!r}, which is not installed.",
                           hint=f"Install it with: pip install 'asil[{extra}]'") from None
