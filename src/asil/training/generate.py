"""``asil tasks generate``: templates -> candidates -> overlap audit -> soundness check -> ``train``/``val``.

Quotas follow the ASIL paper (Appendix D): per app 32 train + 8 validation tasks, GIMP 64 + 16. Candidates come
in a seeded order (``templates.candidates``), so the same seed gives the same tasks. A candidate is kept only if
the audit does not reject it and it is sound: its reference succeeds, its untouched state fails, and the app's
raw validator agrees with the evaluator on every checkpoint of both (``check_task(raw=True)``). Kept tasks are
written as ``<out>/<suite>/<app>/<id>.json``, apart from the benchmark suites.
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from asil.tasks.loader import builtin_root, live_root, load_tasks
from asil.tasks.model import Task
from asil.training.audit import HeldOut, Verdict
from asil.training.templates import Candidate, candidates, load_templates

QUOTAS = {"gimp": (64, 16)}
DEFAULT_QUOTA = (32, 8)
SUITES = ("train", "val")


def quota(app: str) -> tuple[int, int]:
    """(train, val) tasks to generate for ``app``."""
    return QUOTAS.get(app, DEFAULT_QUOTA)


@dataclass
class AppGeneration:
    """What generation did for one app."""

    app: str
    kept: dict[str, list[Task]] = field(default_factory=lambda: {s: [] for s in SUITES})
    verdicts: list[Verdict] = field(default_factory=list)
    kept_verdicts: dict[str, list[Verdict]] = field(default_factory=lambda: {s: [] for s in SUITES})
    unsound: list[str] = field(default_factory=list)
    seconds: float = 0.0

    wanted: tuple[int, int] = (0, 0)

    @property
    def complete(self) -> bool:
        want = self.wanted
        return all(len(self.kept[s]) >= n for s, n in zip(SUITES, want, strict=True))


@functools.lru_cache(maxsize=1)
def _benchmark_tasks() -> dict[str, Task]:
    return {t.id: t for t in load_tasks(root=builtin_root())}


def app_candidates(app: str, seed: int) -> Iterator[Candidate]:
    """The seeded candidate stream of one app's templates (their bases are benchmark tasks)."""
    templates = load_templates(app)
    held = _benchmark_tasks()
    missing = [t.base for t in templates if t.base not in held]
    if missing:
        raise ValueError(f"Template base task {missing[0]!r} of {app} is not a benchmark task.")
    return candidates(templates, held, seed)


def generate_app(app: str, seed: int, held_out: HeldOut, check: bool = True,
                 wanted: tuple[int, int] | None = None,
                 progress: Callable[[str], None] | None = None) -> AppGeneration:
    """Fill ``app``'s train and val quotas from its templates (fewer if its templates run out)."""
    from asil.runner.check import check_task

    started = time.monotonic()
    train_n, val_n = wanted or quota(app)
    result = AppGeneration(app, wanted=(train_n, val_n))
    seen: set[str] = set()
    for candidate in app_candidates(app, seed):
        if len(result.kept["train"]) >= train_n and len(result.kept["val"]) >= val_n:
            break
        content = candidate.task.model_dump_json(exclude={"id", "suite", "instruction"})
        if content in seen:  # internal duplicate: two value sets that end up as the same task
            continue
        seen.add(content)
        verdict = held_out.assess(candidate.task, candidate.source)
        result.verdicts.append(verdict)
        if verdict.decision == "reject":
            continue
        if check:
            outcome = check_task(candidate.task, raw=True)
            if not outcome.ok:
                result.unsound.append(f"{candidate.task.id}: {outcome.detail}")
                if progress:
                    progress(f"unsound {candidate.task.id}: {outcome.detail}")
                continue
        suite = "train" if len(result.kept["train"]) < train_n else "val"
        candidate.task.suite = suite
        result.kept[suite].append(candidate.task)
        result.kept_verdicts[suite].append(verdict)
        if progress:
            progress(f"{suite} {candidate.task.id} risk {verdict.risk:.3f} ({verdict.decision})")
    result.seconds = time.monotonic() - started
    return result


def _generate_in_worker(app: str, seed: int, check: bool, wanted: tuple[int, int] | None) -> AppGeneration:
    """One app in a worker process: its programs start here and are stopped before the worker moves on."""
    from asil.runner.worker import stop_programs

    try:
        return generate_app(app, seed, HeldOut.benchmark(), check, wanted,
                            progress=_printer(app))
    finally:
        stop_programs()


def _printer(app: str) -> Callable[[str], None]:
    def show(line: str) -> None:
        print(f"[{app}] {line}", flush=True)

    return show


def generate(apps: list[str], seed: int, workers: int = 1, check: bool = True,
             wanted: dict[str, tuple[int, int]] | None = None,
             on_done: Callable[[AppGeneration], None] | None = None) -> list[AppGeneration]:
    """Generate every app's tasks, ``workers`` apps at a time (each app in its own process when workers > 1).

    ``wanted`` overrides the (train, val) quota of an app; ``on_done`` gets each app's result as soon as it is
    finished (the command writes it then, so a long run keeps the apps it has finished).
    """
    wanted = wanted or {}
    done = on_done or (lambda result: None)
    results = []
    if workers <= 1:
        held_out = HeldOut.benchmark()
        for app in apps:
            results.append(generate_app(app, seed, held_out, check, wanted.get(app), progress=_printer(app)))
            done(results[-1])
        return results
    with ProcessPoolExecutor(max_workers=workers, max_tasks_per_child=1) as pool:
        futures = [pool.submit(_generate_in_worker, app, seed, check, wanted.get(app)) for app in apps]
        for future in as_completed(futures):
            results.append(future.result())
            done(results[-1])
    order = {app: index for index, app in enumerate(apps)}
    return sorted(results, key=lambda r: order[r.app])


class RejectedTask(ValueError):
    pass


def write_suites(results: list[AppGeneration], out: Path, held_out: HeldOut) -> list[Path]:
    """Write the kept tasks as ``out/<suite>/<app>/<id>.json``, replacing what those apps had there before.

    Refuses (``RejectedTask``, nothing written) if the audit rejects any of them.
    """
    tasks = [t for r in results for s in SUITES for t in r.kept[s]]
    rejected = [v for v in held_out.assess_many([(t, None) for t in tasks]) if v.decision == "reject"]
    if rejected:
        first = rejected[0]
        raise RejectedTask(f"The overlap audit rejects {len(rejected)} task(s), e.g. {first.task_id} "
                           f"(risk {first.risk:.3f} against {first.nearest}"
                           f"{'; ' + '; '.join(first.hard_rejects) if first.hard_rejects else ''}); nothing was written.")
    written = []
    for result in results:
        for suite in SUITES:
            folder = out / suite / result.app
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            for task in result.kept[suite]:
                path = folder / f"{task.id}.json"
                data = task.model_dump(mode="json", exclude_defaults=False)
                path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
                written.append(path)
    return written


def generated_apps() -> list[str]:
    """Apps with templates (the 14 apps that run on this machine; Gitea needs a live server)."""
    return sorted({t.app for t in load_templates()})


def held_out_roots() -> list[Path]:
    return [builtin_root(), live_root()]
