"""The easy60 band: 60 single-app core tasks chosen by structural proxies, kept in a committed file."""

from __future__ import annotations

import json
from pathlib import Path

from asil.runner.bands import observation_bytes
from asil.tasks import load_tasks
from asil.tasks.bands import BandTask, build_band, is_candidate, read_band, select, stale_candidates, static_proxies
from tests.bench_helpers import asil, outcomes

TASKS = load_tasks()
REFRESH = "the committed band file does not match the rule on the current tasks; refresh it with: asil band easy60 --write"


def test_the_committed_easy60_file_matches_the_rule_on_the_current_tasks() -> None:
    band = read_band("easy60")
    stale = stale_candidates(band, TASKS)
    assert not stale, f"new or changed core tasks {stale[:5]}: {REFRESH}"
    current = {t.id for t in TASKS if is_candidate(t, "core")}
    assert {c.id for c in band.candidates} == current, f"tasks removed from core: {REFRESH}"
    sizes = {c.id: c.observation_bytes for c in band.candidates}
    assert build_band("easy60", TASKS, sizes) == band, REFRESH


def test_easy60_is_60_feasible_single_app_core_tasks_over_every_core_app() -> None:
    band = read_band("easy60")
    chosen = {t.id: t for t in load_tasks(suite="easy60")}
    assert len(chosen) == 60 and sorted(chosen) == band.selected
    assert all(t.suite == "core" and t.feasible and len(t.apps) == 1 for t in chosen.values())
    core_apps = {t.apps[0] for t in TASKS if t.suite == "core"}
    assert {t.apps[0] for t in chosen.values()} == core_apps
    for candidate in band.candidates:  # the attributes in the file are the task's own
        assert static_proxies(next(t for t in TASKS if t.id == candidate.id)) == {
            "actions": candidate.actions, "checkpoints": candidate.checkpoints, "functions": candidate.functions}
    picked = [c for c in band.candidates if c.selected]
    assert sum(c.actions for c in picked) / 60 <= sum(c.actions for c in band.candidates) / len(band.candidates)


def test_tasks_added_to_one_app_change_no_other_apps_picks() -> None:
    def task(app: str, number: int, actions: int, size: int = 100) -> BandTask:
        return BandTask(id=f"{app}-{number:02d}", app=app, fingerprint="-", actions=actions, checkpoints=1,
                        functions=1, observation_bytes=size)

    base = [task(app, n, 1 + n % 4) for app in ("a", "b", "c") for n in range(10)]
    before = select(base, 7)  # quota 2 per app, one seat filled from any app
    after = select(base + [task("a", n, 1, size=50) for n in range(10, 20)], 7)  # easier than every old task
    others_before = {i for i in before if not i.startswith("a-")}
    others_after = {i for i in after if not i.startswith("a-")}
    assert others_after <= others_before and len(others_after) >= 4  # b and c keep their two quota seats each
    assert len(before) == len(after) == 7 and len({i for i in after if i.startswith("a-")} - set(before)) >= 1


def test_the_cached_observation_size_is_what_the_app_shows_now() -> None:
    band = read_band("easy60")
    calc = next(c for c in band.candidates if c.app == "calc" and c.selected)
    assert observation_bytes(next(t for t in TASKS if t.id == calc.id)) == calc.observation_bytes


def test_band_prints_the_rule_and_bench_runs_the_band(tmp_path: Path) -> None:
    shown = asil("band", "easy60")
    assert shown.returncode == 0 and "rule: feasible single-app tasks" in shown.stdout
    assert len([line for line in shown.stdout.splitlines() if line.split()[0] in read_band("easy60").selected]) == 60
    unknown = asil("band", "easy99")
    assert unknown.returncode == 2 and "no band 'easy99'" in unknown.stderr and "easy60" in unknown.stderr
    ran = asil("bench", "--suite", "easy60", "--app", "calc", "--out", str(tmp_path / "run"))
    assert ran.returncode == 0, ran.stderr
    expected = {c.id for c in read_band("easy60").candidates if c.selected and c.app == "calc"}
    assert set(outcomes(tmp_path / "run")) == expected and all(ok for ok, *_ in outcomes(tmp_path / "run").values())
    assert json.loads((tmp_path / "run" / "run.json").read_text())["suite"] == "easy60"
