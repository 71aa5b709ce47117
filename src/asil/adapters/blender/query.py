"""Matching objects by their properties: the filter of the ``blender_matching_objects`` checkpoint.

A task often cares that *some* object has a shape or a material, not what it is called ("a mesh
with dimensions ~ (2, 2, 3) that uses Steel"). A query is clauses joined by ``;``, each
``field OP value``:

* ``=`` equals (``type=MESH``, ``parent=Table``, ``mesh.vertices=24``); on a list field
  (``materials``, ``collections``) it means "contains" (``materials=Steel``);
* ``^=`` starts with (``name^=Crate``);
* ``~`` is approximately, within the checkpoint's tolerance, for numbers and vectors
  (``dimensions~2,2,3``, ``location~0,0,1``, ``mesh.vertices~24``).

Both read paths (the adapter's scene data and the raw validator's own dump) give objects as
dicts with these fields, so both judge with this one pure function.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

FIELDS = ("name", "type", "location", "rotation", "scale", "dimensions", "materials", "collections", "parent",
          "mesh.vertices", "mesh.polygons")
OPERATORS = ("^=", "~", "=")  # "^=" before "=": it contains it


class QueryError(ValueError):
    """The query cannot be read; the checkpoint fails closed."""


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    value: str


def parse_query(text: str) -> list[Clause]:
    """The clauses of ``text``; QueryError names the first part that is not ``field OP value``."""
    clauses = []
    for part in (p.strip() for p in text.split(";")):
        op = next((o for o in OPERATORS if o in part), None)
        if op is None:
            raise QueryError(f"{part!r} is not 'field=value', 'field^=prefix' or 'field~numbers'")
        field, _, value = (s.strip() for s in part.partition(op))
        if field not in FIELDS:
            raise QueryError(f"unknown field {field!r}; known: {', '.join(FIELDS)}")
        clauses.append(Clause(field, op, value))
    if not clauses:
        raise QueryError("the query is empty")
    return clauses


def _field(obj: dict[str, Any], name: str) -> Any:
    value: Any = obj
    for key in name.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _numbers(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise QueryError(f"{text!r} is not a number or a comma-separated vector") from None


def _holds(clause: Clause, actual: Any, tolerance: float) -> bool:
    if clause.op == "~":
        wanted = _numbers(clause.value)
        have = actual if isinstance(actual, list) else [actual]
        return len(have) == len(wanted) and all(isinstance(a, (int, float)) and math.isclose(
            a, w, abs_tol=tolerance) for a, w in zip(have, wanted, strict=True))
    if isinstance(actual, list):
        return clause.op == "=" and clause.value in actual
    shown = "" if actual is None else str(actual)
    return shown.startswith(clause.value) if clause.op == "^=" else shown == clause.value


def matches(obj: dict[str, Any], clauses: list[Clause], tolerance: float) -> bool:
    """True when ``obj`` satisfies every clause."""
    return all(_holds(c, _field(obj, c.field), tolerance) for c in clauses)


def matching_names(objects: dict[str, dict[str, Any]], query: str, tolerance: float) -> list[str]:
    """The names of the objects (name -> fields) that satisfy ``query``, sorted."""
    clauses = parse_query(query)
    return sorted(name for name, obj in objects.items() if matches({**obj, "name": name}, clauses, tolerance))
