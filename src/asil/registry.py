"""A named registry with a decorator: the one extension mechanism used across ASIL.

Comparators, checkpoint types, setup-file builders, server profiles and LLM providers are
all registries, so a new kind is one decorated function, never a new branch in an if/elif.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from asil.protocol import AsilError

T = TypeVar("T")


class UnknownName(AsilError):
    code = "unknown_name"


class Registry(dict[str, T]):
    """``name -> item``; ``@registry.register("name")`` adds an item, ``registry.require`` explains misses."""

    def __init__(self, what: str):
        super().__init__()
        self.what = what

    def register(self, name: str) -> Callable[[T], T]:
        def wrap(item: T) -> T:
            self[name] = item
            return item

        return wrap

    def require(self, name: str) -> T:
        if name not in self:
            raise UnknownName(f"Unknown {self.what} {name!r}.", hint=f"Known: {', '.join(sorted(self))}.")
        return self[name]
