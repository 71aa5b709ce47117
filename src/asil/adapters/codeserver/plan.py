"""A plan of changes: file texts and extension operations, worked out before anything is touched.

Every action (and every action of a batch, in order) is first applied to a ``Plan`` — an overlay
of file texts over the disk plus the list of extensions to install or remove (and of tasks to run,
which the adapter does after committing). Validation is
planning without committing. Committing snapshots what it will touch, runs the extension
operations through code-server's CLI, writes the files atomically, and on any failure puts every
snapshot back, so a failed action or batch leaves the state as it was.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import state
from asil.apps.codeserver import Profile, run_cli
from asil.protocol import ActionFailed, DocumentError, InvalidAction
from asil.workspace import atomic_write

MAX_TEXT_BYTES = 5 * 1024 * 1024


@dataclass
class ExtensionOp:
    kind: str  # install | uninstall
    argument: str  # the .vsix path, or the extension id
    ident: str


@dataclass
class TaskRun:
    task: dict[str, Any]  # the task's entry in tasks.json
    timeout_s: float


@dataclass
class EditorOp:
    op: str  # a bridge request: open | close | focus | select
    data: dict[str, Any]


@dataclass
class Move:
    old: str  # workspace-relative paths
    new: str


@dataclass
class Plan:
    profile: Profile
    texts: dict[Path, str | None] = field(default_factory=dict)  # None: delete the file
    extension_ops: list[ExtensionOp] = field(default_factory=list)
    task_runs: list[TaskRun] = field(default_factory=list)  # run after the commit; a run cannot be undone
    editor_ops: list[EditorOp] = field(default_factory=list)  # sent to the VS Code window after the commit
    moves: list[Move] = field(default_factory=list)  # renames and moves, made after the commit
    installed: dict[str, str] | None = None  # id -> version as the plan leaves it

    # ---- the overlay
    def read(self, path: Path, what: str) -> str:
        """The text of ``path`` as the plan leaves it ('' when it does not exist)."""
        if path in self.texts:
            return self.texts[path] or ""
        if path.is_dir():
            raise InvalidAction(f"{what} is a folder, not a file.", hint="Give the path of a text file.")
        if path.is_file() and path.stat().st_size > MAX_TEXT_BYTES:
            raise InvalidAction(f"{what} is larger than {MAX_TEXT_BYTES // 2**20} MB; it is not edited here.")
        try:
            return state.read_text(path)
        except DocumentError:
            raise InvalidAction(f"{what} is not a UTF-8 text file.", hint="Only text files can be edited.",
                                code="not_text") from None

    def exists(self, path: Path) -> bool:
        return self.texts[path] is not None if path in self.texts else path.is_file()

    def write(self, path: Path, text: str) -> None:
        self.texts[path] = text

    def delete(self, path: Path) -> None:
        self.texts[path] = None

    def extensions(self) -> dict[str, str]:
        if self.installed is None:
            self.installed = {k: v["version"] for k, v in state.extensions(self.profile).items()}
        return self.installed

    # ---- committing
    def commit(self) -> None:
        """Make the planned state real; on failure restore everything and raise ActionFailed."""
        files = {path: (path.read_bytes() if path.is_file() else None) for path in self.texts}
        extensions = _ExtensionSnapshot(self.profile, self.extension_ops) if self.extension_ops else None
        try:
            for op in self.extension_ops:
                _run_extension_op(self.profile, op)
            for path, text in self.texts.items():
                if text is None:
                    path.unlink(missing_ok=True)
                else:
                    atomic_write(path, text.encode("utf-8"))
        except BaseException:
            for path, data in files.items():
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    atomic_write(path, data)
            if extensions is not None:
                extensions.restore()
            raise
        finally:
            if extensions is not None:
                extensions.discard()


def _run_extension_op(profile: Profile, op: ExtensionOp) -> None:
    flag = "--install-extension" if op.kind == "install" else "--uninstall-extension"
    done = run_cli(profile, [flag, op.argument, "--force"] if op.kind == "install" else [flag, op.argument])
    installed = state.extensions(profile)
    if done.returncode != 0 or (op.ident in installed) != (op.kind == "install"):
        detail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise ActionFailed(f"code-server could not {op.kind} {op.ident} ({detail[0][:300]}); nothing was changed.",
                           hint="Check the extension package and its engines.vscode range.")


class _ExtensionSnapshot:
    """VS Code's extension registry files and the folders an operation may remove, kept for a rollback."""

    REGISTRY = ("extensions.json", ".obsolete")

    def __init__(self, profile: Profile, ops: list[ExtensionOp]):
        self.folder = profile.extensions
        self.keep = profile.root / "rollback"
        shutil.rmtree(self.keep, ignore_errors=True)
        self.keep.mkdir(parents=True)
        self.registry = {name: (self.folder / name).read_bytes() if (self.folder / name).is_file() else None
                         for name in self.REGISTRY}
        self.before = {p.name for p in self.folder.iterdir()} if self.folder.is_dir() else set()
        installed = state.extensions(profile)
        for op in ops:  # an uninstall may delete the folder: keep a copy to put back
            if op.kind == "uninstall" and op.ident in installed:
                name = installed[op.ident]["folder"]
                shutil.copytree(self.folder / name, self.keep / name, symlinks=True)

    def restore(self) -> None:
        for path in self.folder.iterdir():
            if path.name not in self.before:
                shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
        for kept in self.keep.iterdir():
            if not (self.folder / kept.name).exists():
                shutil.copytree(kept, self.folder / kept.name, symlinks=True)
        for name, data in self.registry.items():
            if data is None:
                (self.folder / name).unlink(missing_ok=True)
            else:
                atomic_write(self.folder / name, data)

    def discard(self) -> None:
        shutil.rmtree(self.keep, ignore_errors=True)
