"""The two access paths of the LibreOffice adapters (the ASIL paper's path-restriction study, Table 4(b);
docs/path_restriction.md).

* ``dispatch`` (default): every engine request goes to ASIL's engine script in a warm headless LibreOffice.
* ``file``: the same requests are answered by a file engine that edits the ODF package's XML in memory
  (lxml) and writes it back atomically; no LibreOffice runs while the agent acts.

An adapter mixes :class:`AccessPaths` in before its LibreOffice base and names its file engine; the
planner, function table and observation builder are the adapter's own, shared by both paths.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar, Protocol

from asil.protocol import ActionSchema, AppUnavailable, InvalidAction

PATHS = ("dispatch", "file")


class FileEngine(Protocol):
    """What a file engine offers: the dispatch engine's requests, answered from the package's XML."""

    def call(self, op: str, **args: Any) -> Any: ...


class AccessPaths:
    """Mixin for an ``OfficeAdapter``: the ``access_path`` option and the routing of engine requests."""

    FILE_ENGINE: ClassVar[str] = ""  # "module:Class" of the file engine (imported only on that path)
    ENGINE_NAMES: ClassVar[dict[str, str]] = {}  # access path -> what acts on the document (shown in observations)
    FILE_PATH_TIP: ClassVar[str] = ""  # what an agent must know on the file path (appended to the schema's tips)
    access_path: str = "dispatch"
    _file: FileEngine | None = None

    def choose_path(self, access_path: str) -> None:
        """Remember ``access_path``; an unknown one is refused (``bad_option``) before anything opens."""
        if access_path not in PATHS:
            raise InvalidAction(f"Unknown {type(self).__name__.removesuffix('Adapter')} access path {access_path!r}.",
                                hint=f"Use one of: {', '.join(PATHS)}.", code="bad_option")
        self.access_path = access_path

    def _open(self) -> None:
        if self.access_path != "file":
            super()._open()  # type: ignore[misc]
            return
        module, _, name = self.FILE_ENGINE.partition(":")
        try:  # only this path needs lxml; the dispatch path must not
            engine = getattr(importlib.import_module(module), name)
        except ImportError:
            raise AppUnavailable("The file-backed access path needs lxml.", hint="Install it with: pip install lxml") from None
        self._file = engine(self.path)  # type: ignore[attr-defined]
        self._forget()  # type: ignore[attr-defined]

    def _call(self, op: str, **args: Any) -> Any:
        if self._file is None:
            return super()._call(op, **args)  # type: ignore[misc]
        return self._file.call(op, **args)

    def close(self) -> None:
        self._file = None
        super().close()  # type: ignore[misc]

    def path_environment(self) -> dict[str, str]:
        """The observation's ``environment`` entries that say which path produced it."""
        return {"engine": self.ENGINE_NAMES[self.access_path], "access_path": self.access_path}

    def schema(self) -> ActionSchema:
        """On the file path the instance schema (what the agent's prompt shows) ends with a tip naming it
        (``FILE_PATH_TIP``); the default path's schema stays the class's, as training prompts use it."""
        schema: ActionSchema = super().schema()  # type: ignore[misc]
        if self.access_path != "dispatch":
            schema.tips.append(f"Access path: {self.access_path} (engine: {self.ENGINE_NAMES[self.access_path]}); "
                               f"{self.FILE_PATH_TIP}")
        return schema


__all__ = ["PATHS", "AccessPaths", "FileEngine"]
