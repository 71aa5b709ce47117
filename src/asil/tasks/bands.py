"""Task bands: named selections drawn from a suite by a documented rule, kept in a committed file.

The ASIL paper's *easy60* is a 60-task single-application band of the main benchmark, chosen by
structural proxies to be comparable with OSWorld-style short tasks. Here the rule is:

1. Candidates: the feasible single-app tasks of the ``core`` suite (infeasible tasks test refusal, a
   different skill; they end with ``infeasible`` and have no actions to measure).
2. Each candidate's proxies, from its task file and its initial observation:
   ``actions`` — meaningful reference actions (a batch counts its members; done/infeasible do not count);
   ``checkpoints`` — checkpoints of its shortest success path;
   ``functions`` — distinct functions in the reference (an ``invoke_function``'s function name, otherwise
   the action type); ``observation_bytes`` — size of the initial observation's agent JSON.
3. Easiness order: by ``(actions, checkpoints, functions, observation_bytes, id)``, smallest first.
4. Per-app quota: every app takes its ``60 // apps`` easiest candidates; the seats left are filled with
   the easiest remaining candidates of any app. Tasks added to one app change only that app's picks
   and the fill, so the band stays stable as the suite grows.

The file ``asil/tasks/selections/<band>.json`` keeps the rule, every candidate's proxies (with a fingerprint of its task
file, so a changed task is measured again) and the selection. ``asil band easy60 --write`` rewrites it
(observation sizes need the real apps; sizes of unchanged tasks are reused from the file); a test
checks that the committed file matches the rule on the current tasks.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from asil.protocol import CONTROL_ACTIONS, Action, AsilError
from asil.tasks.model import Task

BANDS = {"easy60": ("core", 60)}  # band -> (the suite it is drawn from, its size)
RULE = ("feasible single-app tasks of the source suite; easiness = (meaningful reference actions, checkpoints of the "
        "shortest success path, distinct functions, initial observation bytes, id), smallest first; each app takes "
        "its size // apps easiest, the remaining seats go to the easiest remaining tasks of any app")
REFRESH = "asil band {band} --write"


class BandError(AsilError):
    code = "bad_band"


class BandTask(BaseModel):
    """One candidate's structural proxies."""

    model_config = ConfigDict(extra="forbid")

    id: str
    app: str
    fingerprint: str = Field(description="sha256 of the task as loaded (first 16 hex digits)")
    actions: int
    checkpoints: int
    functions: int
    observation_bytes: int
    selected: bool = False

    def easiness(self) -> tuple[int, int, int, int, str]:
        return self.actions, self.checkpoints, self.functions, self.observation_bytes, self.id


class BandFile(BaseModel):
    """``selections/<band>.json``: the rule, every candidate's proxies, the selected ids."""

    model_config = ConfigDict(extra="forbid")

    band: str
    source_suite: str
    size: int
    rule: str
    refresh: str
    selected: list[str]
    candidates: list[BandTask]


def bands_root() -> Path:
    return Path(str(resources.files("asil.tasks").joinpath("selections")))


def band_path(band: str) -> Path:
    return bands_root() / f"{band}.json"


def require_band(band: str) -> tuple[str, int]:
    if band not in BANDS:
        raise BandError(f"There is no band {band!r}.", hint=f"Known bands: {', '.join(sorted(BANDS))}.")
    return BANDS[band]


def fingerprint(task: Task) -> str:
    data = json.dumps(task.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def is_candidate(task: Task, suite: str) -> bool:
    return task.suite == suite and task.feasible and len(task.apps) == 1


READ_ONLY_ACTIONS = ("navigate",)  # they change nothing in the document: not a step of the work


def meaningful_actions(actions: list[Action] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reference's meaningful actions, as dicts: every action but control (done, infeasible) and read-only
    ones (navigate); a batch counts its members, nested batches included. The hard suite needs 6..15 of them."""
    found: list[dict[str, Any]] = []
    for item in actions:
        action = item.model_dump(mode="json") if isinstance(item, Action) else item
        kind = action.get("action_type")
        if kind == "batch":
            members = (action.get("params") or {}).get("actions", [])
            found += meaningful_actions([m for m in members if isinstance(m, dict)])
        elif kind not in CONTROL_ACTIONS and kind not in READ_ONLY_ACTIONS:
            found.append(action)
    return found


def static_proxies(task: Task) -> dict[str, int]:
    """The proxies read from the task file: meaningful actions, checkpoints, distinct functions."""
    actions = meaningful_actions(task.reference)
    functions = {str(a.get("target")) if a.get("action_type") == "invoke_function" else str(a.get("action_type"))
                 for a in actions}
    return {"actions": len(actions), "checkpoints": min(len(path) for path in task.evaluator.paths),
            "functions": len(functions)}


def select(candidates: list[BandTask], size: int) -> list[str]:
    """The band's ids under the rule: per-app quotas of the easiest, then the easiest remaining."""
    apps = sorted({c.app for c in candidates})
    if not apps:
        return []
    quota = size // len(apps)
    ordered = sorted(candidates, key=BandTask.easiness)
    chosen: list[BandTask] = []
    for app in apps:
        chosen += [c for c in ordered if c.app == app][:quota]
    taken = {c.id for c in chosen}
    chosen += [c for c in ordered if c.id not in taken][:size - len(chosen)]
    return sorted(c.id for c in chosen)


def build_band(band: str, tasks: list[Task], observation_bytes: dict[str, int]) -> BandFile:
    """The band file for ``tasks`` given each candidate's measured observation size."""
    suite, size = require_band(band)
    candidates = [BandTask(id=t.id, app=t.apps[0], fingerprint=fingerprint(t), observation_bytes=observation_bytes[t.id],
                           **static_proxies(t)) for t in tasks if is_candidate(t, suite)]
    selected = select(candidates, size)
    for candidate in candidates:
        candidate.selected = candidate.id in selected
    return BandFile(band=band, source_suite=suite, size=size, rule=RULE, refresh=REFRESH.format(band=band),
                    selected=selected, candidates=sorted(candidates, key=lambda c: c.id))


def read_band(band: str, path: Path | None = None) -> BandFile:
    require_band(band)
    path = path or band_path(band)
    try:
        return BandFile.model_validate_json(path.read_bytes())
    except OSError:
        raise BandError(f"The band file {path} is missing.", hint=f"Write it with: {REFRESH.format(band=band)}") from None


def stale_candidates(band: BandFile, tasks: list[Task]) -> list[str]:
    """Ids of candidates that are new or changed since the file was written (their sizes must be measured)."""
    known = {c.id: c.fingerprint for c in band.candidates}
    return [t.id for t in tasks if is_candidate(t, band.source_suite) and known.get(t.id) != fingerprint(t)]


def band_tasks(band: str, tasks: list[Task]) -> list[Task]:
    """The band's tasks among ``tasks`` (all tasks of the built-in suites, usually), in id order."""
    chosen = set(read_band(band).selected)
    found = [t for t in tasks if t.id in chosen]
    missing = sorted(chosen - {t.id for t in found})
    if missing:
        raise BandError(f"The band {band!r} names tasks that do not exist: {', '.join(missing[:3])}.",
                        hint=f"Refresh it with: {REFRESH.format(band=band)}")
    return found
