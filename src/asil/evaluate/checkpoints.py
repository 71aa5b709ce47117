"""Typed checkpoints and their registry.

A checkpoint type is a function that reads one *actual* value from the final state;
a comparator then holds it against ``expected``. Adapters register their own types
(``cell_value`` for Calc, ...); the generic file and outcome types live here.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from asil.evaluate.compare import COMPARATORS, check_regex
from asil.plugins import adapter_class, load_all_checkpoints
from asil.protocol import AsilError
from asil.registry import Registry
from asil.workspace import Workspace

if TYPE_CHECKING:
    from asil.adapters.base import Adapter

T = TypeVar("T")


class Checkpoint(BaseModel):
    """One checkable fact about the final state."""

    model_config = ConfigDict(extra="forbid")

    type: str
    app: str | None = None
    document: str | None = Field(None, description="Workspace-relative file the checkpoint reads.")
    target: str | None = None
    expected: Any = None
    compare: str | None = Field(None, description="Comparator; the checkpoint type's default when omitted.")
    tolerance: float = 1e-6
    required: bool = True
    weight: float = Field(1.0, gt=0)
    note: str | None = None

    @field_validator("compare")
    @classmethod
    def _known_compare(cls, value: str | None) -> str | None:
        if value is not None and value not in COMPARATORS:
            raise ValueError(f"unknown comparator {value!r}; known: {', '.join(COMPARATORS)}")
        return value

    @model_validator(mode="after")
    def _safe_regex(self) -> Checkpoint:
        regex_compare = self.compare == "regex" or (self.compare is None and self.type == "text_regex")
        if regex_compare and isinstance(self.expected, str):
            check_regex(self.expected)
        return self


class CheckpointUnreadable(AsilError):
    """The state needed by a checkpoint cannot be read; the checkpoint fails (fail closed)."""

    code = "checkpoint_unreadable"


@dataclass
class EvalContext:
    """What checkpoint types may read: the workspace, the episode's outcome, and adapters."""

    workspace: Workspace
    outcome: str | None = None  # "done", "infeasible" or None (no control action)
    answer: str | None = None
    _adapters: dict[tuple[str, str], Adapter] = field(default_factory=dict)

    def adapter(self, app: str, document: str) -> Adapter:
        key = (app, document)
        if key not in self._adapters:
            try:
                self._adapters[key] = adapter_class(app)(self.workspace, document)
            except AsilError as exc:
                raise CheckpointUnreadable(f"cannot open {document!r}: {exc.message}") from None
        return self._adapters[key]

    def close(self) -> None:
        for adapter in self._adapters.values():
            adapter.close()
        self._adapters.clear()


Reader = Callable[[EvalContext, Checkpoint], Any]


@dataclass(frozen=True)
class CheckpointType:
    read: Reader
    default_compare: str


# The generic types are defined below; each app's come from the modules its plugin record names.
CHECKPOINT_TYPES: Registry[CheckpointType] = Registry("checkpoint type", discover=load_all_checkpoints)


def checkpoint_type(name: str, default_compare: str = "exact") -> Callable[[Reader], Reader]:
    """Register a reader: ``@checkpoint_type("cell_value", default_compare="approx")``."""

    def wrap(func: Reader) -> Reader:
        CHECKPOINT_TYPES.add(name, CheckpointType(func, default_compare))
        return func

    return wrap


def default_compare(cp: Checkpoint) -> str:
    """The comparator a checkpoint uses: its own, else its type's default, else exact."""
    if cp.compare:
        return cp.compare
    return CHECKPOINT_TYPES[cp.type].default_compare if cp.type in CHECKPOINT_TYPES else "exact"


def require(value: str | None, what: str) -> str:
    if not value:
        raise CheckpointUnreadable(f"the checkpoint needs a {what}")
    return value


def entry(found: Mapping[str, T], name: str, kind: str) -> T:
    """``found[name]``; CheckpointUnreadable says there is no such ``kind`` when it is missing."""
    if name not in found:
        raise CheckpointUnreadable(f"there is no {kind} {name!r}")
    return found[name]


def dig(data: Any, path: list[str], what: str) -> Any:
    """Follow ``path`` through nested dicts; CheckpointUnreadable names ``what`` when a step is missing."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            raise CheckpointUnreadable(f"{what} has no {key!r}")
        data = data[key]
    return data


def png_size(path: Path, what: str) -> list[int]:
    """``[width, height]`` from the header of the PNG at ``path`` (called ``what`` in refusals)."""
    try:
        head = path.read_bytes()[:24]
    except OSError:
        raise CheckpointUnreadable(f"cannot read {what}") from None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise CheckpointUnreadable(f"{what} is not a PNG image")
    return list(struct.unpack(">II", head[16:24]))


@checkpoint_type("file_exists")
def file_exists(ctx: EvalContext, cp: Checkpoint) -> bool:
    """True when the file at ``target`` exists; compare with ``expected: true``."""
    return ctx.workspace.resolve(require(cp.target, "target path")).is_file()


@checkpoint_type("file_absent")
def file_absent(ctx: EvalContext, cp: Checkpoint) -> bool:
    return not ctx.workspace.resolve(require(cp.target, "target path")).exists()


@checkpoint_type("text_regex", default_compare="regex")
def text_regex(ctx: EvalContext, cp: Checkpoint) -> str:
    """The text of the file at ``target``; by default ``expected`` is a regex searched in it."""
    path = ctx.workspace.resolve(require(cp.target, "target path"))
    if not path.is_file():
        raise CheckpointUnreadable(f"{cp.target!r} does not exist")
    return path.read_text(encoding="utf-8", errors="replace")


@checkpoint_type("outcome")
def outcome(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """How the agent ended the episode: 'done', 'infeasible', or None."""
    return ctx.outcome


@checkpoint_type("answer")
def answer(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The text the agent gave with its ``done`` action."""
    return ctx.answer
