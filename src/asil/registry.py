"""A named registry: the one extension mechanism used across ASIL.

Apps, checkpoint types, comparators, setup-file builders, agents, LLM providers, server profiles
and app functions are all registries. An item is added either eagerly with the decorator
(``@COMPARATORS.register("approx")``) or lazily as a ``"package.module:attr"`` string
(``AGENTS.declare("react", "asil.agents.react:ReActAgent")``) that is imported the first time the
name is asked for, as Gymnasium's registry does. A registry may also read a Python entry-point
group, so a third-party package adds items by declaring them in its own metadata.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from asil.protocol import AsilError

T = TypeVar("T")


class UnknownName(AsilError):
    code = "unknown_name"


def load_target(target: str) -> Any:
    """Import ``"package.module:attr"`` (``attr`` may be dotted) and return the attribute."""
    module, _, attr = target.partition(":")
    item: Any = importlib.import_module(module)
    for part in filter(None, attr.split(".")):
        item = getattr(item, part)
    return item


class Registry(Mapping[str, T], Generic[T]):
    """``name -> item``. Lazy entries are imported on first access; misses are explained.

    Args:
        what: what an item is, for error messages ("comparator", "app").
        group: an entry-point group whose entries (``name = "module:attr"``) are declared lazily.
        error: the AsilError subclass ``require`` raises for an unknown name.
        discover: called on a miss or a listing to add items declared elsewhere (checkpoint types
            and setup builders come from the app plugin records this way, including apps registered
            later); it must be idempotent.
    """

    def __init__(self, what: str, *, group: str | None = None, error: type[AsilError] = UnknownName,
                 discover: Callable[[], None] | None = None):
        self.what = what
        self.group = group
        self.error = error
        self._items: dict[str, T] = {}
        self._declared: dict[str, str] = {}
        self._discover = discover
        self._discovering = False

    def _discover_more(self) -> None:
        if self._discover is None or self._discovering:
            return
        self._discovering = True  # what discovery imports may register items, and so ask again
        try:
            self._discover()
        finally:
            self._discovering = False

    # ---- adding
    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@registry.register("name")`` adds the decorated item now."""

        def wrap(item: T) -> T:
            self.add(name, item)
            return item

        return wrap

    def add(self, name: str, item: T) -> None:
        self._items[name] = item
        self._declared.pop(name, None)

    def remove(self, name: str) -> None:
        """Forget ``name`` (loaded or declared); entry points are read again on the next lookup."""
        self._items.pop(name, None)
        self._declared.pop(name, None)

    def declare(self, name: str, target: str, *, replace: bool = True) -> None:
        """Make ``name`` load from ``"module:attr"`` on first use, without importing it now.

        With ``replace=False`` an item already added under ``name`` is kept.
        """
        if ":" not in target:
            raise ValueError(f"{self.what} {name!r}: {target!r} is not of the form 'package.module:attr'")
        if not replace and name in self._items:
            return
        self._items.pop(name, None)
        self._declared[name] = target

    # ---- reading
    def _plugin_points(self) -> dict[str, str]:
        return {ep.name: ep.value for ep in entry_points(group=self.group)} if self.group else {}

    def target(self, name: str) -> str | None:
        """The ``"module:attr"`` a lazy entry loads from (None for eager or unknown names)."""
        return self._declared.get(name) or (None if name in self._items else self._plugin_points().get(name))

    def __getitem__(self, name: str) -> T:
        if name not in self._items and name not in self._declared:
            self._discover_more()
        if name not in self._items:
            target = self.target(name)
            if target is None:
                raise KeyError(name)
            self._items[name] = load_target(target)
            self._declared.pop(name, None)
        return self._items[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._items and name not in self._declared:
            self._discover_more()
        return name in self._items or name in self._declared or name in self._plugin_points()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def names(self) -> list[str]:
        """Every known name (loaded, declared or from entry points), in registration order."""
        self._discover_more()
        seen = dict.fromkeys([*self._items, *self._declared, *self._plugin_points()])
        return list(seen)

    def require(self, name: str) -> T:
        """The item named ``name``; an error naming the known items otherwise."""
        if name not in self:
            known = ", ".join(sorted(self.names())) or "none"
            raise self.error(f"Unknown {self.what} {name!r}.", hint=f"Known: {known}.")
        return self[name]
