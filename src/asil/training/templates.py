"""Task templates: a known-sound task skeleton with slots, instantiated into new tasks.

A template names a *base* task (its setup, evaluator and reference are the skeleton), a few instruction
phrasings of its own with ``{slot}`` placeholders, and slots. A slot has the ``literal`` it replaces in the
skeleton (a file name, a label, a value, a target) and the values it may take; instantiating replaces the
literal consistently everywhere in the setup files, evaluator, reference and hint. String literals are
replaced inside strings (so a name in a file's contents or a regex changes too); number literals replace
equal numbers. Every instance must still pass the soundness check before it is kept (``generate.py``).

Templates are data: one TOML file per app in ``asil/training/templates/``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from asil.tasks.loader import TaskError
from asil.tasks.model import Task

Value = str | int | float


@dataclass(frozen=True)
class Slot:
    name: str
    literal: Value
    values: tuple[Value, ...]


@dataclass(frozen=True)
class Template:
    name: str
    app: str
    base: str
    instructions: tuple[str, ...]
    slots: tuple[Slot, ...]
    domain: str | None = None

    def combinations(self) -> list[dict[str, Value]]:
        """Every assignment of values to slots (the literal itself is never a value: it is the benchmark's)."""
        names = [slot.name for slot in self.slots]
        choices = [[v for v in slot.values if v != slot.literal] for slot in self.slots]
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]


@dataclass(frozen=True)
class Candidate:
    """One instantiated template: the task and where it came from."""

    task: Task
    template: str
    values: dict[str, Value]

    @property
    def source(self) -> str:
        return f"template:{self.template}"


def load_templates(app: str | None = None) -> list[Template]:
    """The shipped templates (of one app, or of all), in file order."""
    folder = resources.files("asil.training").joinpath("templates")
    found = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml") or (app is not None and entry.name != f"{app}.toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        found += [_template(entry.name.removesuffix(".toml"), item) for item in data.get("template", [])]
    return found


def _template(app: str, item: dict[str, Any]) -> Template:
    slots = tuple(Slot(name, spec["literal"], tuple(spec["values"])) for name, spec in item.get("slots", {}).items())
    return Template(name=item["name"], app=app, base=item["base"], instructions=tuple(item["instructions"]),
                    slots=slots, domain=item.get("domain"))


def instantiate(template: Template, base: Task, values: dict[str, Value], suite: str, phrasing: int) -> Candidate:
    """The task ``template`` makes from ``base`` with ``values``: new id, instruction, files, evaluator, reference."""
    data = base.model_dump(mode="json", exclude={"id", "suite", "instruction", "source_dir"})
    data["setup"]["files"] = [_inline(item, base) for item in data["setup"]["files"]]
    for slot in template.slots:
        if not _contains(data, slot.literal):  # e.g. an earlier slot replaced it: the instruction would lie
            raise TaskError(f"Template {template.name!r}: slot {slot.name!r} finds no {slot.literal!r} in the task "
                            "(an earlier slot's literal contains it?); order the slots so it comes first.")
        data = _replace(data, slot.literal, values[slot.name])
    digest = hashlib.sha256(json.dumps([template.name, values], sort_keys=True).encode()).hexdigest()[:8]
    shown = {name: _shown(value) for name, value in values.items()}
    instruction = template.instructions[phrasing % len(template.instructions)].format(**shown)
    data.update(id=f"gen-{template.name}-{digest}", suite=suite, instruction=instruction)
    if template.domain:
        data["domain"] = template.domain
    try:
        task = Task.model_validate(data)
    except ValueError as exc:
        raise TaskError(f"Template {template.name!r} makes an invalid task with {values}: {exc}") from None
    return Candidate(task, template.name, values)


def candidates(templates: list[Template], bases: dict[str, Task], seed: int) -> Iterator[Candidate]:
    """Candidates in a seeded, reproducible order: each template's combinations shuffled, templates interleaved.

    Each candidate is made for the ``train`` suite; the generator moves it to ``val`` once train's quota is full.
    """
    rng = random.Random(f"asil-generate:{seed}")
    queues = []
    for template in templates:
        combos = template.combinations()
        rng.shuffle(combos)
        queues.append([(template, combo, rng.randrange(1 << 16)) for combo in combos])
    for row in itertools.zip_longest(*queues):
        for item in row:
            if item is not None:
                template, combo, phrasing = item
                yield instantiate(template, bases[template.base], combo, "train", phrasing)


def _inline(item: dict[str, Any], base: Task) -> dict[str, Any]:
    """A text asset of the base task becomes a ``text`` file, so slots reach its contents and the generated task
    shares no asset file with the benchmark."""
    if item.get("kind") != "asset" or base.source_dir is None:
        return item
    source = base.source_dir / str(item["source"])
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise TaskError(f"Template base {base.id!r} has an asset that is not text ({source.name}); "
                        "templates take bases whose files are text or built from a spec.") from None
    return {"path": item["path"], "kind": "text", "content": text}


def _shown(value: Value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _contains(node: Any, literal: Value) -> bool:
    if isinstance(node, dict):
        return any(_contains(item, literal) for item in node.values())
    if isinstance(node, list):
        return any(_contains(item, literal) for item in node)
    if isinstance(literal, str):
        return isinstance(node, str) and literal in node
    return isinstance(node, int | float) and not isinstance(node, bool) and node == literal


def _replace(node: Any, literal: Value, value: Value) -> Any:
    if isinstance(node, dict):
        return {key: _replace(item, literal, value) for key, item in node.items()}
    if isinstance(node, list):
        return [_replace(item, literal, value) for item in node]
    if isinstance(literal, str) and isinstance(node, str):
        return node.replace(literal, str(value))
    if (not isinstance(literal, str) and isinstance(node, int | float) and not isinstance(node, bool)
            and node == literal):
        return value
    return node
