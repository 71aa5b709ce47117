"""What every file-backed ODF engine (Calc, Writer, Impress) answers the same way: a batch and a save."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import unquote, urlparse

from asil.adapters.odf.package import OdfPackage
from asil.adapters.odf.text import UNSUPPORTED
from asil.protocol import ActionFailed, AsilError


def needs_libreoffice(op: str, what: str, missing: str) -> ActionFailed:
    """The refusal of a request the file path cannot answer (``what``: e.g. "PDF export and page renders",
    for an export; ``missing``: what LibreOffice has that the path lacks, e.g. "layout")."""
    subject = f"{what} need" if op == "export" else f"'{op}' needs"
    return ActionFailed(f"{subject} LibreOffice's {missing}, which the file-backed access path does not have; "
                        'the dispatch access path (access_path "dispatch") has it.',
                        hint="Save and finish, or use the dispatch access path.", code=UNSUPPORTED)

P = TypeVar("P", bound=OdfPackage)


class FileEngineOps(Generic[P]):
    """Mixed into an engine that has ``package``, ``dirty`` and a ``call(op, **args)`` that undoes a failed change
    whole, so a batch needs no snapshot file of its own."""

    package: P
    dirty: bool

    def call(self, op: str, **args: Any) -> Any:
        raise NotImplementedError

    def op_batch(self, steps: list[dict[str, Any]], snapshot_url: str = "") -> bool:
        """Run steps in order; ``call`` undoes the whole batch when one fails (no snapshot file needed)."""
        for number, step in enumerate(steps, 1):
            request = dict(step)
            try:
                self.call(request.pop("op"), **request)
            except AsilError as exc:
                exc.message = f"Batch step {number} failed and the batch was undone: {exc.message}"
                raise
        return True

    def op_save(self, url: str) -> bool:
        Path(unquote(urlparse(url).path)).write_bytes(self.package.to_bytes())
        self.dirty = False
        return True
