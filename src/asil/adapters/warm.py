"""The skeleton shared by adapters that drive one warm program each (Blender, GIMP, Audacity).

The program's session object (from ``asil.apps``) starts on first use; when it has died it is
thrown away and the next call starts a new one, which the adapter brings back to the last good
state. How it gets there differs per program (Blender and GIMP reopen a private checkpoint file,
Audacity replays a journal), so that is a hook; :class:`CheckpointedAdapter` adds the
"checkpoint after success, reopen the checkpoint on failure" edit loop the first two share.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar, Generic, Protocol, TypeVar

from asil.adapters.base import Adapter, only_view, turn_page
from asil.adapters.batch import in_batch
from asil.protocol import Action, ActionFailed, InvalidAction
from asil.workspace import Workspace


class WarmSession(Protocol):
    """What the adapter needs of a program session from ``asil.apps``."""

    @property
    def alive(self) -> bool: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...


SessionT = TypeVar("SessionT", bound=WarmSession)
StepT = TypeVar("StepT")


class WarmProgramAdapter(Adapter, Generic[SessionT]):
    """An adapter with a warm program of its own: session life, paging, batch failures, close."""

    state_name: ClassVar[str] = ""  # what the only view shows ("scene"): named in views and batch errors
    max_limit: ClassVar[int] = 200  # the largest page an observation may ask for

    def __init__(self, workspace: Workspace, document: str | None, *, limit: int):
        super().__init__(workspace, document)
        self.session: SessionT | None = None
        self.restarts = 0  # how often a dead program was replaced
        self.dirty = False
        self.offset, self.limit = 0, limit

    # ------------------------------------------------------------ hooks
    @abstractmethod
    def _start_session(self) -> SessionT:
        """Start the program with the document open as it was after the last good change.

        Raise DocumentError if the program cannot read the user's document.
        """

    def _after_start(self) -> None:
        """Called once a new session is in ``self.session`` (Audacity replays its journal here)."""

    @abstractmethod
    def _work_files(self) -> tuple[Path, ...]:
        """The adapter's private files, removed on close."""

    # ------------------------------------------------------------ the program's life
    def _program(self) -> SessionT:
        """The running program, started on first use or after it died."""
        if self.session is not None and self.session.alive:
            return self.session
        self._discard_session()
        session = self._start_session()
        self.session = session
        self._after_start()
        return session

    def _discard_session(self) -> None:
        """Throw the program away: the next call starts a new one from the last good state."""
        if self.session is not None:
            self.session.kill()
            self.restarts += 1
        self.session = None

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None
        for path in self._work_files():
            path.unlink(missing_ok=True)

    # ------------------------------------------------------------ observe
    def _turn_page(self, view: str | None, offset: int | None, limit: int | None) -> None:
        """Check the view an observation asks for and keep its page for the next ones."""
        only_view(view, self.state_name)
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), self.max_limit)

    # ------------------------------------------------------------ navigate
    def _navigate(self, action: Action, ids: Callable[[], list[str]], *, keep_offset: bool = True) -> list[str]:
        """Turn the page as a checked navigate action asks: to the element ``target`` (``ids()`` in page
        order), else to params.offset; without either the offset stays (or goes back to 0 when not
        ``keep_offset``)."""
        params = self.vocabulary.parse_navigate(action)
        self.limit = params.limit or self.limit
        if action.target:
            self.offset = ids().index(action.target)
        elif params.offset is not None or not keep_offset:
            self.offset = params.offset or 0
        return []

    # ------------------------------------------------------------ batches
    def _batch_failed(self, exc: InvalidAction | ActionFailed, index: int) -> InvalidAction | ActionFailed:
        """The error of a batch whose ``index``-th member failed after everything was undone."""
        return in_batch(exc, index, f"Nothing in the {self.state_name} was changed.")


class CheckpointedAdapter(WarmProgramAdapter[SessionT]):
    """A warm program whose last good state is a private file (``self.work``) the program reopens."""

    work: Path
    crashed: ClassVar[type[ActionFailed]] = ActionFailed  # the error of a lost program: nothing to reopen in

    @abstractmethod
    def _checkpoint(self) -> None:
        """Write the program's state to ``self.work``."""

    @abstractmethod
    def _roll_back(self) -> None:
        """Reopen ``self.work`` in the running program, if it still runs."""

    def _work_files(self) -> tuple[Path, ...]:
        return (self.work,)

    def _edit(self, steps: Sequence[StepT], run: Callable[[int, StepT], list[str]], *, is_batch: bool,
              changes: bool = True) -> list[str]:
        """Run checked steps in order, all or nothing; a failure reopens the state from before them.

        ``run(index, step)`` returns the ids it changed; ``changes`` False (e.g. only renders) keeps
        the document clean and the checkpoint as it is.
        """
        if not self.work.is_file():
            self._checkpoint()
        changed: list[str] = []
        try:
            for index, step in enumerate(steps, start=1):
                try:
                    done = run(index, step)
                except (InvalidAction, ActionFailed) as exc:
                    if not is_batch:
                        raise
                    raise self._batch_failed(exc, index) from None
                changed += [c for c in done if c not in changed]
        except self.crashed:  # the program is gone; the next call restarts it from the checkpoint
            raise
        except (InvalidAction, ActionFailed):
            self._roll_back()
            raise
        if changes:
            self.dirty = True
            self._checkpoint()
        return changed


__all__ = ["CheckpointedAdapter", "WarmProgramAdapter", "WarmSession"]
