"""A workspace served to remote clients: documents by path, one live adapter per document, the policy,
the audit log, and a save after every successful action. Nothing here knows MCP; the tools are thin.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asil.adapters.base import Adapter
from asil.mcp_server.audit import AUDIT_LOG, AuditLog
from asil.mcp_server.policy import ServePolicy, enforce
from asil.plugins import UnknownApp, adapter_class
from asil.protocol import (
    Action,
    ActionError,
    ActionFailed,
    ActionResult,
    ActionSchema,
    AsilError,
    DocumentError,
    InvalidAction,
    Observation,
    parse_action,
)
from asil.workspace import PathOutsideWorkspace, Workspace, document_lock

Stamp = tuple[int, int, int]


class NoRender(AsilError):
    code = "no_render"


@dataclass
class OpenDocument:
    """A live adapter and the file identity it last saw, to notice edits made behind the server's back."""

    adapter: Adapter
    path: Path
    stamp: Stamp | None

    def restamp(self) -> None:
        self.stamp = file_stamp(self.path)


def file_stamp(path: Path) -> Stamp | None:
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def to_action(data: Any) -> Action:
    """An action from a JSON object or string; a list of actions becomes one atomic batch."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError:
            return parse_action(data)  # raises the standard one-sentence JSON error
    if isinstance(data, list):
        if not data:
            raise InvalidAction("The list of actions is empty.", hint="Send one action object, or a non-empty list.")
        return Action(action_type="batch", params={"actions": data})
    return parse_action(data)


class ServedWorkspace:
    """Documents in one folder, opened on demand by the adapters of the served apps."""

    def __init__(self, root: str | os.PathLike[str], apps: list[str], policy: ServePolicy | None = None,
                 **adapter_options: Any):
        if not apps:
            raise UnknownApp("No app to serve.", hint="Name at least one, e.g. --app calc.")
        self.adapter_classes = {app: adapter_class(app) for app in apps}
        self.workspace = Workspace(root)
        self.policy = policy or ServePolicy()
        self.audit = AuditLog(None if self.policy.read_only else self.workspace.root / AUDIT_LOG)
        self._options = adapter_options
        self._open: dict[tuple[str, str], OpenDocument] = {}

    @property
    def apps(self) -> list[str]:
        return list(self.adapter_classes)

    # ------------------------------------------------------------ what is served
    def documents(self) -> list[dict[str, str]]:
        """The workspace's documents that a served app opens (hidden files and the audit log excluded)."""
        found = []
        for relative in self.workspace.files():
            if any(part.startswith(".") for part in Path(relative).parts) or not self._inside(relative):
                continue
            apps = self._apps_for_suffix(Path(relative).suffix.lower())
            if apps:
                found.append({"path": relative, "app": apps[0]})
        return found

    def schema(self, app: str | None = None) -> ActionSchema:
        return self.adapter_classes[self._pick_app(app)].action_schema()

    def schemas(self) -> dict[str, ActionSchema]:
        return {app: cls.action_schema() for app, cls in self.adapter_classes.items()}

    # ------------------------------------------------------------ operations
    def observe(self, document: str, app: str | None = None, view: str | None = None, offset: int | None = None,
                limit: int | None = None) -> Observation:
        with document_lock(self._resolve(document)):
            return self._document(document, app).adapter.observe(view=view, offset=offset, limit=limit)

    def validate(self, document: str, data: Any, app: str | None = None) -> ActionError | None:
        """None if ``act`` would accept the action now, else the error it would give."""
        try:
            path = self._resolve(document)
        except InvalidAction as exc:
            return exc.to_error()
        with document_lock(path):
            try:
                action = to_action(data)
                opened = self._document(document, app)
                enforce(self.policy, action, opened.adapter.schema())
            except InvalidAction as exc:
                return exc.to_error()
            return opened.adapter.validate_action(action)

    def act(self, document: str, data: Any, app: str | None = None, client: str = "unknown") -> ActionResult:
        """Check, execute and save one action (or a list as a batch). Refusals raise; outcomes are returned.

        Actions on one document take turns (``document_lock``), across threads and server processes: each
        starts from the file as the previous one saved it (a stale copy is reopened), so no update is lost.
        """
        try:
            path = self._resolve(document)
        except AsilError as exc:
            self.audit.record(client=client, document=document, app=app, action=data, status="refused",
                              error=exc.message)
            raise
        with document_lock(path):
            return self._act(document, data, app, client)

    def _act(self, document: str, data: Any, app: str | None, client: str) -> ActionResult:
        where = {"client": client, "document": document, "app": app, "action": data}
        try:
            action = to_action(data)
            opened = self._document(document, app)
            enforce(self.policy, action, opened.adapter.schema())
        except AsilError as exc:
            self.audit.record(**where, status="refused", error=exc.message)
            raise
        where.update(app=opened.adapter.name, action=action.model_dump(mode="json"))
        result = opened.adapter.execute(action)
        saved = result.ok and not self.policy.read_only and self._save(opened, document)
        self.audit.record(**where, status=result.status, error=result.error.message if result.error else None,
                          changed=result.changed, saved=saved)
        return result

    def render(self, document: str, app: str | None = None, view: str | None = None,
               offset: int | None = None) -> tuple[bytes, Observation]:
        """PNG bytes of the document's current view (moved first when view/offset are given)."""
        with document_lock(self._resolve(document)):
            return self._render(document, app, view, offset)

    def _render(self, document: str, app: str | None, view: str | None, offset: int | None
                ) -> tuple[bytes, Observation]:
        opened = self._document(document, app)
        observation = opened.adapter.observe(view=view, offset=offset)
        with tempfile.TemporaryDirectory(prefix="asil-mcp-render-") as scratch:
            try:
                image = opened.adapter.render(Path(scratch) / "view.png")
            except NotImplementedError:
                raise NoRender(f"The {opened.adapter.name} adapter cannot render its state as an image.",
                               hint="Use observe for the structured state.") from None
            return image.read_bytes(), observation

    def close(self) -> None:
        for opened in self._open.values():
            opened.adapter.close()
        self._open.clear()

    # ------------------------------------------------------------ plumbing
    def _save(self, opened: OpenDocument, document: str) -> bool:
        """Save so the file always matches the server; if that fails, drop the live change instead."""
        try:
            opened.adapter.save()
        except (OSError, AsilError) as exc:
            self._forget(opened)
            detail = exc.message if isinstance(exc, AsilError) else str(exc)
            raise ActionFailed(f"The action was applied but {document!r} could not be saved ({detail}); the change "
                               "was discarded so the file and the server agree.", hint="Fix the cause and repeat.") from None
        opened.restamp()
        return True

    def _document(self, document: str, app: str | None) -> OpenDocument:
        path = self._resolve(document)
        chosen = self._pick_app(app, document)
        key = (chosen, self.workspace.relative(path))
        opened = self._open.get(key)
        if opened is not None and opened.stamp != file_stamp(path):
            self._forget(opened)  # changed on disk by someone else: reopen, never overwrite their edit
            opened = None
        if opened is None:
            adapter = self.adapter_classes[chosen](self.workspace, key[1], **self._options)
            opened = self._open[key] = OpenDocument(adapter, path, file_stamp(path))
        return opened

    def _forget(self, opened: OpenDocument) -> None:
        opened.adapter.close()
        self._open = {k: v for k, v in self._open.items() if v is not opened}

    def _resolve(self, document: str) -> Path:
        path = self.workspace.resolve(document)  # refuses absolute paths, '..' and symlinks out
        if any(part.startswith(".") for part in Path(self.workspace.relative(path)).parts):
            raise PathOutsideWorkspace(f"{document!r} is a hidden file, which this server does not serve.",
                                       hint="List the served documents with the documents tool.")
        if not path.is_file():
            raise DocumentError(f"{document!r} does not exist in the workspace.",
                                hint="List the served documents with the documents tool.")
        return path

    def _inside(self, relative: str) -> bool:
        try:
            self.workspace.resolve(relative)
        except PathOutsideWorkspace:
            return False  # a symlink leading out of the workspace is not offered
        return True

    def _apps_for_suffix(self, suffix: str) -> list[str]:
        return [app for app, cls in self.adapter_classes.items() if suffix in cls.extensions]

    def _pick_app(self, app: str | None, document: str | None = None) -> str:
        if app is not None:
            if app not in self.adapter_classes:
                raise UnknownApp(f"This server does not serve the app {app!r}.", hint=f"Served apps: {', '.join(self.apps)}.")
            return app
        if document is None:
            if len(self.apps) == 1:
                return self.apps[0]
            raise UnknownApp("Several apps are served; say which one with 'app'.", hint=f"Served apps: {', '.join(self.apps)}.")
        suffix = Path(document).suffix.lower()
        matches = self._apps_for_suffix(suffix)
        if len(matches) == 1:
            return matches[0]
        if not matches:
            kinds = sorted({ext for cls in self.adapter_classes.values() for ext in cls.extensions})
            raise DocumentError(f"No served app opens {suffix or 'files without an extension'!r} files.",
                                hint=f"Served file types: {', '.join(kinds)}.")
        raise UnknownApp(f"Several served apps open {suffix!r} files; say which one with 'app'.",
                         hint=f"Candidates: {', '.join(matches)}.")
