"""An episode's isolated directory: path guard, atomic writes, private scratch space.

Agents name files relative to the workspace root. Anything that resolves outside it
(``..``, absolute paths, symlinks pointing out) is refused with a clear error.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from asil.protocol import AsilError, InvalidAction

PRIVATE_DIR = ".asil"  # snapshots and scratch files; invisible to agents


class PathOutsideWorkspace(InvalidAction):
    code = "path_outside_workspace"


class WorkspaceNotWritable(AsilError):
    """The workspace cannot take writes: the documents, and the programs' state kept beside them, need it."""

    code = "workspace_read_only"


class Workspace:
    """A directory an episode may read and write, and nothing beyond it."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def require_writable(self) -> None:
        """Refuse, with one sentence, a workspace this process cannot write (a read-only mount, no permission)."""
        if not os.access(self.root, os.W_OK):
            raise WorkspaceNotWritable(
                f"The workspace {self.root} is read-only (a read-only mount or no write permission); ASIL writes "
                "the document and the program's state there, so it cannot work in it.",
                hint="Use a writable copy of the folder as the workspace.")

    @classmethod
    def temporary(cls, prefix: str = "asil-ws-") -> Workspace:
        return cls(tempfile.mkdtemp(prefix=prefix))

    def resolve(self, relative: str | os.PathLike[str]) -> Path:
        """Map an agent-given path to an absolute path inside the workspace, or refuse it."""
        text = os.fspath(relative)
        hint = "Use a path relative to the workspace, such as 'report.ods' or 'out/data.csv'."
        if not text or "\x00" in text:
            raise PathOutsideWorkspace(f"The path {text!r} is empty or malformed.", hint=hint)
        if os.path.isabs(text):
            raise PathOutsideWorkspace(f"The absolute path {text!r} is not allowed.", hint=hint)
        parts = Path(text).parts
        if ".." in parts:
            raise PathOutsideWorkspace(f"The path {text!r} climbs out of the workspace with '..'.", hint=hint)
        if parts and parts[0] == PRIVATE_DIR:
            raise PathOutsideWorkspace(f"The path {text!r} is reserved for ASIL itself.", hint=hint)
        full = (self.root / text).resolve()  # follows symlinks
        if full != self.root and self.root not in full.parents:
            raise PathOutsideWorkspace(f"The path {text!r} leads outside the workspace through a symlink.", hint=hint)
        return full

    def relative(self, path: str | os.PathLike[str]) -> str:
        return str(Path(path).resolve().relative_to(self.root))

    def private(self, name: str = "") -> Path:
        """A scratch directory of ASIL's own inside the workspace (snapshots, temp files)."""
        folder = self.root / PRIVATE_DIR
        folder.mkdir(exist_ok=True)
        return folder / name if name else folder

    def write_bytes(self, relative: str, data: bytes) -> Path:
        target = self.resolve(relative)
        atomic_write(target, data)
        return target

    def files(self) -> list[str]:
        """Relative paths of the files an agent can see, sorted."""
        found = []
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if path.is_file() and rel.parts[0] != PRIVATE_DIR:
                found.append(str(rel))
        return found

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def atomic_write(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that readers see the old file or the new one, never half."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _replace(Path(tmp), target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def commit_file(finished: Path, target: Path) -> None:
    """Move a file another program wrote into place atomically: fsync it, rename, persist the rename."""
    with open(finished, "rb") as handle:
        os.fsync(handle.fileno())
    _replace(finished, target)


def _replace(finished: Path, target: Path) -> None:
    os.replace(finished, target)
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def cache_dir() -> Path:
    """ASIL's cache of built inputs (``$ASIL_CACHE_DIR``, else ``~/.cache/asil``), created on first use."""
    root = Path(os.environ.get("ASIL_CACHE_DIR", Path.home() / ".cache" / "asil"))
    root.mkdir(parents=True, exist_ok=True)
    return root


LOCKS = Path(tempfile.gettempdir()) / "asil-locks"


@contextmanager
def document_lock(path: Path) -> Iterator[None]:
    """Hold the machine-wide lock of one document: every process and thread acting on it takes turns.

    An fcntl lock on a file named after the document's absolute path, kept outside the workspace so a
    read-only workspace still locks and no served folder fills with lock files. The kernel drops the lock
    when its holder dies, so a killed client never leaves the document locked.
    """
    LOCKS.mkdir(mode=0o1777, exist_ok=True)
    name = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:32]
    handle = os.open(LOCKS / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock
