"""Hypothesis strategies that derive actions from an app's published schema (`asil schema APP`).

One generator serves every app: action types, function names and parameter values come from the
:class:`~asil.protocol.ActionSchema`, targets and names from the live observation (element ids,
labels, views), and about half of what is drawn is a near miss: a wrong type, an unknown id, a
number out of range, a huge or strange string, a path that tries to leave the workspace, a missing
or extra parameter, an action type the app does not take.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from asil.protocol import ActionSchema, Observation

# Where a path trick would land if an adapter followed it: the test checks nothing appears there.
ESCAPE_NAME = "asil-fuzz-escape"
PATH_TRICKS = [f"../{ESCAPE_NAME}", f"../{ESCAPE_NAME}.png", f"sub/../../{ESCAPE_NAME}.txt", f"/tmp/{ESCAPE_NAME}/x.svg",
               f"/tmp/{ESCAPE_NAME}.odt", "~/.bashrc", "/etc/passwd", "..", ".", "./", "/", "a\x00b", "C:\\x\\y",
               f"file:///tmp/{ESCAPE_NAME}"]
STRANGE_TEXT = ["", " ", "\u202eevil\u202c", "😀 ünïcødé 漢字", "\ud800", "line\nbreak\ttab", "\x00", "'\"<>&;$(rm -rf ~)",
                "%s%n{0}", "NaN", "-0", "1e309", "null"]
HUGE_TEXT = ["x" * 100_000, "é" * 20_000]
WRONG_TYPES: list[Any] = [None, True, 0, -1, 2**63, -(2**63) - 1, 1e308, float("nan"), float("inf"), -float("inf"), [],
                          {}, [[[]]], {"a": {"b": 1}}, [1, "2", None]]
HOSTILE = st.sampled_from(PATH_TRICKS + STRANGE_TEXT + HUGE_TEXT + WRONG_TYPES)
UNKNOWN_TYPES = ["set_value", "invoke_function", "modify_file", "api_call", "navigate", "batch", "bogus", ""]


class Names:
    """What an agent would name in the app's current state: element ids and labels, views, short string values.

    Strategies draw a position and read the name here when the example runs, so the choices Hypothesis makes
    do not depend on the state (which moves on from example to example): replays stay consistent.
    """

    def __init__(self, observation: Observation | None = None, fixed: Sequence[str] = ()):
        self.current: list[str] = list(fixed) or ["x"]
        if observation is not None:
            self.update(observation)

    def update(self, observation: Observation) -> None:
        found = [e.id for e in observation.elements] + [e.label for e in observation.elements if e.label]
        found += observation.navigation.views
        found += [e.value for e in observation.elements if isinstance(e.value, str) and 0 < len(e.value) <= 40]
        self.current = list(dict.fromkeys(found))[:200] or ["x"]

    def pick(self) -> st.SearchStrategy[str]:
        return st.integers(min_value=0, max_value=10_000).map(lambda i: self.current[i % len(self.current)])


NameSource = Names | Sequence[str]


def _pick(names: NameSource) -> st.SearchStrategy[str]:
    return names.pick() if isinstance(names, Names) else st.sampled_from(list(names))


def near(names: NameSource) -> st.SearchStrategy[str]:
    """A name that is almost one of ``names``: case changed, a character added or cut, a path tacked on."""
    name = _pick(names)
    return st.one_of(name.map(str.swapcase), name.map(lambda n: n + "x"), name.map(lambda n: n[:-1]),
                     name.map(lambda n: f"../{n}"), name.map(lambda n: f"{n}/../../{ESCAPE_NAME}"))


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolve(root.get("$defs", {})[ref.rsplit("/", 1)[1]], root)
    return schema


def _number(schema: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if "exclusiveMinimum" in schema:
        low = schema["exclusiveMinimum"] + (1 if integer else 1e-6)
    if "exclusiveMaximum" in schema:
        high = schema["exclusiveMaximum"] - (1 if integer else 1e-6)
    if integer:
        return st.integers(min_value=None if low is None else int(low), max_value=None if high is None else int(high))
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def _string(schema: dict[str, Any], names: NameSource) -> st.SearchStrategy[Any]:
    low, high = schema.get("minLength", 0), min(schema.get("maxLength", 40), 40)
    text = st.text(min_size=low, max_size=max(low, high))
    if "pattern" in schema:
        try:
            text = st.from_regex(re.compile(schema["pattern"]), fullmatch=False).filter(lambda s: len(s) <= 200)
        except re.error:  # a pattern Python's re does not read (pydantic uses Rust's regex): any text
            pass
    return st.one_of(_pick(names), text)


def value_for(schema: dict[str, Any], names: NameSource, root: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    """A value that fits the JSON Schema ``schema``, preferring the ``names`` the app shows for strings."""
    root = root or schema
    schema = _resolve(schema, root)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([value_for(option, names, root) for option in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([value_for({**schema, "type": k}, names, root) for k in kind])
    if kind == "object" or "properties" in schema:
        return params_for(schema, names, root)
    if kind == "array":
        low = schema.get("minItems", 0)
        high = min(schema.get("maxItems", low + 3), low + 3)
        return st.lists(value_for(schema.get("items", {}), names, root), min_size=low, max_size=high)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "string":
        return _string(schema, names)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return st.one_of(_pick(names), st.integers(-5, 100), st.booleans(), st.none())  # any value


def params_for(schema: dict[str, Any], names: NameSource, root: dict[str, Any] | None = None) -> st.SearchStrategy[
        dict[str, Any]]:
    """An object that fits ``schema``: every required property and some of the optional ones."""
    root = root or schema
    properties: dict[str, Any] = schema.get("properties", {})
    required = [k for k in properties if k in schema.get("required", [])]
    optional = [k for k in properties if k not in required]
    return st.fixed_dictionaries({k: value_for(properties[k], names, root) for k in required},
                                 optional={k: value_for(properties[k], names, root) for k in optional})


@st.composite
def spoiled(draw: st.DrawFn, params: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``params`` with one thing wrong: a value replaced by a hostile one, a required key gone, or an extra key."""
    how = draw(st.sampled_from(["hostile", "hostile", "drop", "extra"]))
    spoilt = dict(params)
    if how == "hostile" and spoilt:
        spoilt[draw(st.sampled_from(sorted(spoilt)))] = draw(HOSTILE)
    elif how == "drop" and spoilt:
        del spoilt[draw(st.sampled_from(sorted(spoilt)))]
    else:
        spoilt[draw(st.sampled_from(["junk", "path", "value", "name", "id"]))] = draw(HOSTILE)
    return spoilt


def _param_schema(found: dict[str, Any]) -> dict[str, Any] | None:
    """The params schema of set_value or navigate; a few apps publish one schema per kind of target."""
    if not found:
        return None
    if "properties" in found or "type" in found:
        return found
    return {"anyOf": list(found.values())}


@st.composite
def _params(draw: st.DrawFn, schema: dict[str, Any] | None, names: NameSource, well: bool) -> dict[str, Any]:
    if schema is None:
        return {} if well else draw(st.dictionaries(st.sampled_from(["value", "junk"]), HOSTILE, max_size=2))
    good = draw(value_for(schema, names, schema))
    good = good if isinstance(good, dict) else {"value": good}
    return good if well else draw(spoiled(good, schema))


def _target(names: NameSource, well: bool) -> st.SearchStrategy[str | None]:
    if well:
        return st.one_of(_pick(names), _pick(names), _pick(names), st.none())
    return st.one_of(near(names), st.sampled_from(PATH_TRICKS + STRANGE_TEXT + HUGE_TEXT[:1]))


@st.composite
def simple_action(draw: st.DrawFn, schema: ActionSchema, names: NameSource) -> dict[str, Any]:
    """One non-batch action as an agent would send it (a dict; parse_action may refuse it).

    Most are well formed (a function the app has, params that fit its schema, a target it shows); the rest
    have exactly one thing wrong: the action type, the function's name, the target or one parameter.
    """
    kinds = [k for k in schema.action_types if k not in ("batch", "done", "infeasible")]
    wrong = draw(st.sampled_from(["nothing"] * 6 + ["type", "function", "target", "params"]))
    kind = draw(st.sampled_from(UNKNOWN_TYPES if wrong == "type" else kinds))
    if kind == "invoke_function" and schema.functions:
        functions = sorted(schema.functions)
        name = draw(st.sampled_from(functions) if wrong != "function" else
                    st.one_of(near(functions), st.sampled_from(["", "__init__", "save;rm", "nope"])))
        spec = schema.functions.get(name)
        params = draw(_params(spec.params if spec else None, names, wrong != "params"))
        return {"action_type": kind, "target": name, "params": params}
    params_schema = {"set_value": schema.set_value_params, "navigate": schema.navigate_params}.get(kind, {})
    return {"action_type": kind, "target": draw(_target(names, wrong != "target")),
            "params": draw(_params(_param_schema(params_schema), names, wrong != "params"))}


@st.composite
def actions(draw: st.DrawFn, schema: ActionSchema, names: Names) -> dict[str, Any]:
    """An action for the app in the state ``names`` was last updated from: simple, a batch of a few, or malformed."""
    shape = draw(st.sampled_from(["simple"] * 6 + ["batch", "malformed"]))
    if shape == "batch" and "batch" in schema.action_types:
        members = draw(st.lists(simple_action(schema, names), min_size=1, max_size=3))
        return {"action_type": "batch", "params": {"actions": members}}
    if shape == "malformed":
        raw = draw(simple_action(schema, names))
        field = draw(st.sampled_from(["target", "params", "extra", "app"]))
        if field == "extra":
            raw["bogus_field"] = 1
        elif field == "app":
            raw["app"] = draw(st.sampled_from(["nope", schema.app, ""]))
        else:
            raw[field] = draw(st.sampled_from([[], 5, {"x": 1}, "params"]))
        return raw
    return draw(simple_action(schema, names))
