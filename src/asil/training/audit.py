"""The overlap audit (ASIL paper, Appendix D): how close is a candidate training task to any held-out task?

Each task becomes a ``Fingerprint`` (app, normalized instruction tokens, character n-grams, action-operation
signature, evaluator-rule signature, literal tokens, target artifacts, asset ids, source tag). A candidate's
risk against one held-out task is ``0.36 lexical + 0.18 char n-gram + 0.28 structural + 0.18 semantic``
(semantic: TF-IDF cosine from scikit-learn); its risk is the maximum over every held-out task. Hard rejects:
the same id, the same source, the same target artifact with high text overlap, a forbidden held-out asset.
Decision: accept below 0.55, warn below 0.72, reject from 0.72 or on any hard reject.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from asil.extras import require
from asil.protocol import Action
from asil.tasks.loader import builtin_root, hard_root, live_root, load_tasks
from asil.tasks.model import Task

WEIGHTS = {"lexical": 0.36, "char": 0.18, "structural": 0.28, "semantic": 0.18}
WARN_AT, REJECT_AT = 0.55, 0.72
HIGH_TEXT_OVERLAP = 0.5  # lexical similarity from which a shared target artifact is a hard reject
FORBIDDEN_ASSET_APPS = ("gimp",)  # the paper forbids held-out GIMP assets; other apps' assets only add risk
CHAR_N = 4
Decision = Literal["accept", "warn", "reject"]

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[a-z0-9]+)*")
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Fingerprint:
    task_id: str
    apps: frozenset[str]
    tokens: frozenset[str]
    text: str
    char_ngrams: frozenset[str]
    operations: frozenset[str]
    rules: frozenset[str]
    literals: frozenset[str]
    artifacts: frozenset[str]
    assets: frozenset[str]
    source: str


def fingerprint(task: Task, source: str | None = None) -> Fingerprint:
    """The audit's view of a task. ``source`` is its provenance tag (a template, or the task file)."""
    stop_words = require("sklearn.feature_extraction.text", "train").ENGLISH_STOP_WORDS
    text = " ".join(_TOKEN.findall(task.instruction.lower()))
    tokens = frozenset(t for t in text.split() if t not in stop_words)
    literals = {m.group(1) or m.group(2) for m in _QUOTED.finditer(task.instruction)}
    literals |= set(_NUMBER.findall(task.instruction))
    return Fingerprint(
        task_id=task.id, apps=frozenset(task.apps), tokens=tokens, text=text,
        char_ngrams=frozenset(text[i:i + CHAR_N] for i in range(max(0, len(text) - CHAR_N + 1))),
        operations=frozenset(_operations(task.reference)),
        rules=frozenset(f"{c.app or task.apps[0]}:{c.type}:{c.compare or ''}" for path in task.evaluator.paths
                        for c in path),
        literals=frozenset(v.lower() for v in literals), artifacts=frozenset(_artifacts(task)),
        assets=frozenset(_assets(task)), source=source or _file_source(task))


def _operations(actions: Iterable[Action]) -> Iterable[str]:
    for action in actions:
        if action.action_type == "batch":
            yield "batch"
            yield from _operations(Action.model_validate(a) for a in action.params.get("actions", []))
        elif action.action_type == "invoke_function":
            yield f"invoke_function:{action.target}"
        else:
            yield action.action_type


def _artifacts(task: Task) -> Iterable[str]:
    """The files a task produces or judges: evaluator documents and file-like targets, and opened documents."""
    for path in task.evaluator.paths:
        for checkpoint in path:
            if checkpoint.document:
                yield checkpoint.document
            if checkpoint.target and re.fullmatch(r"[\w./-]+\.[A-Za-z0-9]{2,8}", checkpoint.target):
                yield checkpoint.target
    yield from task.setup.open.values()


def _assets(task: Task) -> Iterable[str]:
    """Asset ids: the content digest of each asset file the task copies in (missing files are skipped)."""
    for item in task.setup.files:
        if item.kind == "asset" and item.source and task.source_dir is not None:
            try:
                yield hashlib.sha256((task.source_dir / item.source).read_bytes()).hexdigest()[:16]
            except OSError:
                continue


def _file_source(task: Task) -> str:
    return f"file:{task.source_dir.name}/{task.id}" if task.source_dir else f"task:{task.id}"


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass
class Verdict:
    """The audit of one candidate against every held-out task."""

    task_id: str
    risk: float
    nearest: str
    decision: Decision
    parts: dict[str, float] = field(default_factory=dict)
    hard_rejects: list[str] = field(default_factory=list)
    judge: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "risk": round(self.risk, 4), "nearest": self.nearest,
                "decision": self.decision, "parts": {k: round(v, 4) for k, v in self.parts.items()},
                "hard_rejects": self.hard_rejects, "judge": self.judge}


def decide(risk: float, hard_rejects: list[str]) -> Decision:
    if hard_rejects or risk >= REJECT_AT:
        return "reject"
    return "warn" if risk >= WARN_AT else "accept"


class HeldOut:
    """The held-out tasks' fingerprints and a TF-IDF model fitted on their instructions."""

    def __init__(self, tasks: list[Task]):
        if not tasks:
            raise ValueError("The overlap audit needs at least one held-out task.")
        self.tasks = tasks
        self.prints = [fingerprint(t) for t in tasks]
        text = require("sklearn.feature_extraction.text", "train")
        self.vectorizer = text.TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, stop_words="english")
        self.matrix = self.vectorizer.fit_transform([p.text for p in self.prints])
        self.ids = {p.task_id for p in self.prints}
        self.sources = {p.source for p in self.prints}
        self.forbidden_assets = frozenset(a for t, p in zip(tasks, self.prints, strict=True)
                                          if set(t.apps) & set(FORBIDDEN_ASSET_APPS) for a in p.assets)

    @classmethod
    def benchmark(cls) -> HeldOut:
        """Every benchmark suite: the built-in suites (core, multi, any other), the live tasks and the hard suite."""
        return cls(load_tasks(root=builtin_root()) + load_tasks(root=live_root()) + load_tasks(root=hard_root()))

    def semantic(self, texts: list[str]) -> Any:
        """Cosine similarity of each text to every held-out instruction (rows: texts)."""
        pairwise = require("sklearn.metrics.pairwise", "train")
        return pairwise.cosine_similarity(self.vectorizer.transform(texts), self.matrix)

    def assess(self, task: Task, source: str | None = None) -> Verdict:
        return self.assess_many([(task, source)])[0]

    def assess_many(self, items: list[tuple[Task, str | None]]) -> list[Verdict]:
        prints = [fingerprint(task, source) for task, source in items]
        semantic = self.semantic([p.text for p in prints])
        return [self._verdict(p, semantic[row]) for row, p in enumerate(prints)]

    def pair_risk(self, candidate: Fingerprint, held: Fingerprint, semantic: float) -> dict[str, float]:
        same_app = 1.0 if candidate.apps & held.apps else 0.0
        structural = same_app * (0.4 * jaccard(candidate.operations, held.operations)
                                 + 0.4 * jaccard(candidate.rules, held.rules)
                                 + 0.2 * jaccard(candidate.literals, held.literals))
        parts = {"lexical": jaccard(candidate.tokens, held.tokens),
                 "char": jaccard(candidate.char_ngrams, held.char_ngrams),
                 "structural": structural, "semantic": float(semantic)}
        parts["risk"] = sum(WEIGHTS[name] * parts[name] for name in WEIGHTS)
        return parts

    def _verdict(self, candidate: Fingerprint, semantic_row: Any) -> Verdict:
        best: dict[str, float] = {"risk": -1.0}
        nearest = ""
        hard: list[str] = []
        for index, held in enumerate(self.prints):
            parts = self.pair_risk(candidate, held, semantic_row[index])
            if candidate.artifacts & held.artifacts and parts["lexical"] >= HIGH_TEXT_OVERLAP:
                hard.append(f"same target artifact as {held.task_id} "
                            f"({', '.join(sorted(candidate.artifacts & held.artifacts))}) with high text overlap")
            if parts["risk"] > best["risk"]:
                best, nearest = parts, held.task_id
        if candidate.task_id in self.ids:
            hard.append(f"the id {candidate.task_id} is a held-out task's")
        if candidate.source in self.sources:
            hard.append(f"the same source as a held-out task ({candidate.source})")
        if candidate.assets & self.forbidden_assets:
            hard.append("uses a forbidden held-out asset")
        risk = best.pop("risk")
        return Verdict(candidate.task_id, risk, nearest, decide(risk, hard), best, hard)


def top_pairs(verdicts: list[Verdict], count: int) -> list[Verdict]:
    """The ``count`` riskiest candidates (each with its nearest held-out task), for the LLM judge."""
    return sorted(verdicts, key=lambda v: v.risk, reverse=True)[:count]


@dataclass
class PoolRow:
    """One row of Table 10(a): one iteration (pool) of candidates."""

    name: str
    verdicts: list[Verdict]

    @property
    def counts(self) -> dict[str, int]:
        return {d: sum(v.decision == d for v in self.verdicts) for d in ("accept", "warn", "reject")}

    @property
    def max_risk(self) -> float:
        return max((v.risk for v in self.verdicts), default=0.0)


def table10(rows: list[PoolRow]) -> str:
    """The paper's Table 10(a): candidates, accept, warn, reject, non-reject rate, max risk, per iteration."""
    lines = ["Table 10(a): overlap audit per iteration (accept < 0.55 <= warn < 0.72 <= reject)",
             f"{'iteration':<22} {'candidates':>10} {'accept':>7} {'warn':>6} {'reject':>7} {'non-reject':>11} "
             f"{'max risk':>9}"]
    for row in rows:
        counts, total = row.counts, len(row.verdicts)
        rate = (counts["accept"] + counts["warn"]) / total if total else 0.0
        lines.append(f"{row.name:<22} {total:>10} {counts['accept']:>7} {counts['warn']:>6} {counts['reject']:>7} "
                     f"{rate:>10.1%} {row.max_risk:>9.3f}")
    return "\n".join(lines)


def write_verdicts(path: Path, verdicts: list[Verdict]) -> None:
    import json

    path.write_text("".join(json.dumps(v.as_dict()) + "\n" for v in verdicts), encoding="utf-8")
