"""The audit log: one JSON line per ``act`` call (executed or refused), kept in the workspace."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

AUDIT_LOG = ".asil-audit.jsonl"  # a dot-file: never offered as a document


class AuditLog:
    """Appends records to ``path``; with ``path=None`` (read-only servers) it writes nothing."""

    def __init__(self, path: Path | None):
        self.path = path

    def record(self, *, client: str, document: str | None, app: str | None, action: Any, status: str,
               error: str | None = None, changed: list[str] | None = None, saved: bool = False) -> None:
        if self.path is None:
            return
        entry = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"), "client": client,
                 "document": document, "app": app, "action": action, "status": status, "error": error,
                 "changed": changed or [], "saved": saved}
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        # O_APPEND keeps concurrent lines whole; O_NOFOLLOW refuses a symlink planted in the log's place.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def entries(self) -> list[dict[str, Any]]:
        if self.path is None or not self.path.is_file():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
