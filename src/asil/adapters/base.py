"""The adapter contract: observe, validate, execute, schema, and optional hooks.

``execute`` is a template: validate first, hand errors back as data, apply only valid
actions, and time the whole step. Subclasses implement ``_check`` and ``_apply``.
"""

from __future__ import annotations

import errno
import functools
import stat
import sys
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from asil.adapters.functions import FunctionTable, Vocabulary
from asil.adapters.modify import as_batch, name_operation
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
    Status,
)
from asil.workspace import Workspace, atomic_write


@dataclass(frozen=True)
class Readiness:
    """Whether an adapter's real application is installed and usable here."""

    ready: bool
    detail: str
    # The program runs elsewhere (a server named by configuration, e.g. Gitea): when it is not
    # configured here, `asil doctor` reports it as such instead of counting it as missing.
    external: bool = False


def only_view(view: str | None, name: str) -> None:
    """Refuse an observation of any view but ``name`` (None asks for the view in place)."""
    if view not in (None, name):
        raise InvalidAction(f"There is no view {view!r}.", hint=f"The only view is {name!r}.")


def turn_page(offset: int | None, limit: int | None, current: tuple[int, int], most: int) -> tuple[int, int]:
    """The page an observation shows: ``offset`` (from 0) and ``limit`` (1 to ``most``) where asked, else ``current``."""
    old_offset, old_limit = current
    return (old_offset if offset is None else max(0, offset),
            old_limit if limit is None else max(1, min(limit, most)))


DOCUMENT_CHANGED = "document_changed"  # the document was rewritten on disk by someone other than this adapter
UNFORESEEN = "app_failed"  # the code of a failure no AsilError described: a crash, or a bug in the adapter


# Write failures that say what is wrong with the workspace itself, not with the program or the action.
_DISK_ERRORS = {errno.ENOSPC: ("workspace_full", "the disk holding the workspace is full"),
                errno.EDQUOT: ("workspace_full", "the disk quota of the workspace is used up"),
                errno.EROFS: ("workspace_read_only", "the workspace is on a read-only file system")}


def _failure(exc: Exception, while_doing: str) -> ActionError:
    """The error of a step that failed: ASIL's own errors as they are, anything else named plainly."""
    if isinstance(exc, AsilError):
        return exc.to_error()
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRORS:
        code, what = _DISK_ERRORS[exc.errno]
        return ActionError(code=code, message=f"The action could not be saved: {what}; the document on disk was "
                           "left as it was.", hint="Free space or make the workspace writable, then repeat the action.")
    return ActionError(code=UNFORESEEN, message=f"The program failed while {while_doing} "
                       f"({type(exc).__name__}: {exc}).".replace("\n", " "),
                       hint="Observe the state again; if the program keeps failing, end the episode as infeasible.")


def _remembering_disk(hook: Any) -> Any:
    """``hook`` (a save) followed by noting the document's new stamp as this adapter's own."""
    @functools.wraps(hook)
    def remembering(self: Adapter, *args: Any, **kwargs: Any) -> Any:
        try:
            return hook(self, *args, **kwargs)
        finally:
            if getattr(self, "_known_disk", None) is not None:
                self._known_disk = self._disk_stamp()
    remembering._remembers_disk = True  # type: ignore[attr-defined]
    return remembering


class Adapter(ABC):
    """One application exposed through the ASIL protocol.

    Adapters are synchronous and know nothing of agents. ``name``, ``pattern`` and
    ``extensions`` come from the app's plugin record (:mod:`asil.plugins`); ``vocabulary`` and
    ``functions`` (:mod:`asil.adapters.functions`) declare what it accepts.
    """

    name: ClassVar[str] = ""
    pattern: ClassVar[str] = ""  # file | script | service
    extensions: ClassVar[tuple[str, ...]] = ()
    vocabulary: ClassVar[Vocabulary]
    functions: ClassVar[FunctionTable[Any]]
    # Error codes of failures that change the state on purpose and say so (a notebook cell that raised keeps
    # its outputs, as JupyterLab does); every other invalid or error step leaves the state as it was.
    recorded_failures: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Take name, pattern and extensions from the app's plugin record when the record names this class.

        The record (``PLUGIN`` in the app's package) is the one place they are written; this makes them
        right even when the class is imported directly rather than through ``asil.plugins``.
        """
        super().__init_subclass__(**kwargs)
        package = sys.modules.get(cls.__module__.rpartition(".")[0])
        record = getattr(package, "PLUGIN", None)
        if record is not None and record.adapter == f"{cls.__module__}:{cls.__qualname__}":
            cls.name, cls.pattern, cls.extensions = record.name, record.pattern, record.extensions
        for hook in ("save", "sync_from_gui"):  # the adapter's own writes of the document are not outside changes
            own = cls.__dict__.get(hook)
            if own is not None and not getattr(own, "_remembers_disk", False):
                setattr(cls, hook, _remembering_disk(own))

    def __init__(self, workspace: Workspace, document: str | None = None, **options: Any):
        workspace.require_writable()  # refused here in one sentence, not halfway through a program's start
        self.workspace = workspace
        self.document = document
        self.step = 0
        self.output: str | None = None  # what the action answered (an api_call's response), for ActionResult.output
        # The document file as this adapter last left it (inode, size, mtime): another program's write shows
        # as a different stamp, and the next action is refused instead of overwriting that write from memory.
        self._known_disk: tuple[int, int, int] | None = None

    def _disk_stamp(self) -> tuple[int, int, int] | None:
        if self.document is None:
            return None
        try:
            info = self.workspace.resolve(self.document).stat()
        except (OSError, AsilError):
            return None
        return (info.st_ino, info.st_size, info.st_mtime_ns) if stat.S_ISREG(info.st_mode) else None

    def _changed_on_disk(self) -> ActionError | None:
        """The refusal when the document was rewritten behind this adapter's back since its last action."""
        now = self._disk_stamp()
        if self._known_disk is None or now is None or now == self._known_disk:
            self._known_disk = self._known_disk or now
            return None
        return ActionError(code=DOCUMENT_CHANGED,
                           message=f"The document {self.document} was changed on disk by another program since "
                                   "ASIL last read or wrote it; nothing was applied, so that change is kept.",
                           hint="Reopen the document (start a new episode) to work on the version now on disk.")

    def _open_document(self, needed: str, hint: str | None = None) -> tuple[Path, str]:
        """The path and name of the document this adapter was given; DocumentError says it ``needed`` one."""
        if self.document is None:
            raise DocumentError(f"The {self.name} adapter needs {needed} to open.", hint=hint)
        return self.workspace.resolve(self.document), self.document

    # ---- required
    @abstractmethod
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        """The current state as an Observation, windowed for large state."""

    @classmethod
    def action_schema(cls) -> ActionSchema:
        """The app's published schema, derived from its vocabulary and function table."""
        return cls.vocabulary.schema(cls.functions)

    @abstractmethod
    def _check(self, action: Action) -> None:
        """Raise InvalidAction if the action cannot be applied to the current state."""

    @abstractmethod
    def _apply(self, action: Action) -> list[str]:
        """Apply a checked action; return the ids of changed elements. Raise ActionFailed on failure."""

    # ---- contract
    def schema(self) -> ActionSchema:
        return self.action_schema()

    def validate_action(self, action: Action) -> ActionError | None:
        """None if the action is valid here, else the error an agent should see."""
        if action.is_control:
            return None
        try:
            self._check(self._native(action))
        except InvalidAction as exc:
            return name_operation(exc, action).to_error()
        return None

    def _native(self, action: Action) -> Action:
        """The action the app's own ``_check``/``_apply`` take: a modify_file becomes the batch of its
        operations (where the app takes modify_file; elsewhere the app's refusal stands)."""
        if action.action_type == "modify_file" and "modify_file" in self.vocabulary.action_types:
            return as_batch(action, self.vocabulary, self.functions, self.document)
        return action

    def _apply_native(self, action: Action) -> list[str]:
        """Apply a checked action; a modify_file is its batch, then one save of the document."""
        changed = self._apply(self._native(action))
        if action.action_type == "modify_file":
            self.save()
        return changed

    def execute(self, action: Action, observe: bool = True) -> ActionResult:
        """Validate and apply one action; never raises: bad input, failures and crashes come back as data."""
        started = time.perf_counter()
        self.step += 1
        self.output = None
        changed: list[str] = []
        status: Status = "ok"
        error = None if action.is_control else self._changed_on_disk()
        if error is not None:
            status = "error"
        else:
            try:
                error = self.validate_action(action)
                status = "ok" if error is None else "invalid"
            except Exception as exc:  # the program failed while checking (crashed, timed out, would not restart)
                error, status = _failure(exc, "checking the action"), "error"
        if error is None and not action.is_control:
            try:
                changed = self._apply_native(action)
            except InvalidAction as exc:
                status, error = "invalid", name_operation(exc, action).to_error()
            except ActionFailed as exc:
                status, error = "error", name_operation(exc, action).to_error()
            except Exception as exc:
                status, error = "error", _failure(exc, "applying the action")
            self._known_disk = self._disk_stamp()
        observation = None
        if observe:
            try:
                observation = self.observe()
            except Exception as exc:  # the action's outcome stands; the agent is told the state is unreadable
                status, error = "error", _failure(exc, "reading the state after the action" if error is None else
                                                  f"reading the state after an {status} action ({error.message})")
        return ActionResult(
            ok=status == "ok", status=status, error=error, changed=changed, observation=observation,
            latency_ms=(time.perf_counter() - started) * 1000, output=self.output,
        )

    # ---- optional hooks
    @classmethod
    def readiness(cls) -> Readiness:
        return Readiness(True, "no external program needed")

    sample: ClassVar[str | None] = None  # a small document's text, for apps whose documents are text
    # A modify_file operation that is well formed but fails on the sample document once its examples ran: the
    # conformance check puts it after good operations to show that a failed modify_file keeps nothing.
    doomed_operation: ClassVar[dict[str, Any] | None] = None
    # An api_call's params that are allowed but that the program refuses in the sample state (the conformance
    # check shows that the service state stays as it was).
    doomed_api_call: ClassVar[dict[str, Any] | None] = None

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str | None:
        """Make a small document for the conformance check (``sample{extension}`` from ``sample``); its path."""
        if cls.sample is None:
            return None
        name = f"sample{cls.extensions[0]}"
        atomic_write(workspace.resolve(name), cls.sample.encode("utf-8"))
        return name

    def save(self) -> None:
        """Persist pending changes atomically (file-backed adapters)."""
        return None

    def render(self, path: Path) -> Path:
        raise NotImplementedError(f"The {self.name} adapter does not render its state.")

    def gui_launch_spec(self) -> dict[str, Any] | None:
        return None

    def sync_from_gui(self) -> None:
        return None

    def close(self) -> None:
        """Release the document and any program session. Does not save."""
        return None

    def __enter__(self) -> Adapter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
