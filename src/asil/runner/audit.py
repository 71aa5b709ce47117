"""``asil audit RUN_DIR``: the raw validators judge the final states a run kept, against the evaluator.

The ASIL paper checks its evaluator with a fail-closed raw validator on balanced final states (60/60
agree). A run made with ``asil bench --keep-final-state`` keeps each episode's judged files; the audit
unpacks them, asks each checkpoint's raw validator (``asil.evaluate.raw``, which never calls an
adapter), applies the evaluator's success rule (some path whose required checkpoints all pass) and
compares with the verdict in ``result.json``. ``balanced`` draws the same number of evaluator
successes and failures (a seeded random sample, so the same run gives the same sample).
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from asil.evaluate.raw import raw_verdict
from asil.protocol import AsilError
from asil.runner.final_state import ARCHIVE, open_final_state
from asil.runner.results import load_results
from asil.runner.trace import EpisodeResult

SAMPLE_SEED = 0


class AuditError(AsilError):
    code = "bad_audit_input"


@dataclass
class Verdict:
    """One audited episode: the evaluator's verdict (from result.json) and the raw validators'."""

    task_id: str
    evaluator: bool
    raw: bool
    checkpoints: list[tuple[str, bool, bool]] = field(default_factory=list)  # (checkpoint, evaluator, raw)

    @property
    def agrees(self) -> bool:
        return self.evaluator == self.raw


@dataclass
class Audit:
    verdicts: list[Verdict]
    without_state: list[str]  # finished episodes that kept no final state (timeouts, crashes, other runs)
    wanted: int | None  # --balanced N, or None for every episode

    @property
    def disagreements(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.agrees]


def raw_episode(result: EpisodeResult, archive: Path) -> Verdict:
    """The raw validators' verdict on one kept final state, checkpoint by checkpoint."""
    with tempfile.TemporaryDirectory(prefix="asil-audit-") as scratch:
        state = open_final_state(archive, Path(scratch))
        task, app = state.task, state.task.apps[0]
        # result.json keeps the checkpoints of the evaluator's best path; the others have no stored verdict
        evaluator_passed = {(c.type, c.target): c.passed for c in result.checkpoints}
        paths_ok = []
        rows = []
        for path in task.evaluator.paths:
            passed = [raw_verdict(cp, state.workspace, state.outcome, state.answer, app) for cp in path]
            paths_ok.append(bool(path) and all(ok for cp, ok in zip(path, passed, strict=True) if cp.required))
            rows += [(f"{cp.type} {cp.target or ''}".strip(), evaluator_passed[(cp.type, cp.target)], ok)
                     for cp, ok in zip(path, passed, strict=True) if (cp.type, cp.target) in evaluator_passed]
    return Verdict(result.task_id, result.success, any(paths_ok), rows)


def balanced_sample(results: list[EpisodeResult], total: int) -> list[EpisodeResult]:
    """Up to ``total // 2`` evaluator successes and as many failures (the rest of ``total`` from the other
    class when one class is short), drawn with a fixed seed."""
    rng = random.Random(SAMPLE_SEED)
    passed = sorted((r for r in results if r.success), key=lambda r: r.task_id)
    failed = sorted((r for r in results if not r.success), key=lambda r: r.task_id)
    half = total // 2
    take_passed = min(len(passed), max(half, total - len(failed)))
    take_failed = min(len(failed), total - take_passed)
    return sorted(rng.sample(passed, take_passed) + rng.sample(failed, take_failed), key=lambda r: r.task_id)


def audit_run(folder: Path, balanced: int | None = None) -> Audit:
    """Audit the kept final states of a run folder (all of them, or a balanced sample of ``balanced``)."""
    if not folder.is_dir():
        raise AuditError(f"The run folder {str(folder)!r} does not exist.", hint="Give a folder written by 'asil bench'.")
    if balanced is not None and balanced < 2:
        raise AuditError(f"--balanced must be 2 or more, not {balanced}.", hint="e.g. --balanced 60")
    results = load_results(folder)
    kept = [r for r in results.values() if (folder / r.task_id / ARCHIVE).is_file()]
    if not kept:
        raise AuditError(f"The run folder {str(folder)!r} kept no final states.",
                         hint="Run the benchmark with 'asil bench --keep-final-state', then audit it.")
    chosen = balanced_sample(kept, balanced) if balanced is not None else sorted(kept, key=lambda r: r.task_id)
    verdicts = [raw_episode(r, folder / r.task_id / ARCHIVE) for r in chosen]
    without = sorted(set(results) - {r.task_id for r in kept})
    return Audit(verdicts, without, balanced)


def format_audit(audit: Audit) -> str:
    verdicts = audit.verdicts
    passed = sum(v.evaluator for v in verdicts)
    agree = sum(v.agrees for v in verdicts)
    label = f"balanced sample of {audit.wanted}" if audit.wanted is not None else "every kept final state"
    lines = [f"audited {len(verdicts)} final states ({label}): {passed} evaluator successes, "
             f"{len(verdicts) - passed} failures",
             f"raw validator agrees with the evaluator on {agree}/{len(verdicts)}"]
    if audit.wanted is not None and len(verdicts) < audit.wanted:
        lines.append(f"note: only {len(verdicts)} episodes kept a final state, fewer than the {audit.wanted} asked for")
    if audit.without_state:
        lines.append(f"not auditable (no final state kept): {', '.join(audit.without_state)}")
    for verdict in audit.disagreements:
        lines.append(f"DISAGREE {verdict.task_id}: evaluator {_word(verdict.evaluator)}, raw {_word(verdict.raw)}")
        lines += [f"    {name}: evaluator {_word(ev)}, raw {_word(raw)}" for name, ev, raw in verdict.checkpoints
                  if ev != raw]
    return "\n".join(lines)


def _word(passed: bool) -> str:
    return "pass" if passed else "fail"
