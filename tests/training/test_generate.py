"""Task generation: reproducible from the seed, quota-complete, kept apart from the benchmark, and sound."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.tasks.loader import TRAINING_SUITES, TaskError, get_task
from asil.training.audit import HeldOut
from asil.training.generate import app_candidates, generate_app, generated_apps, quota
from asil.training.templates import instantiate, load_templates

APPS = generated_apps()
TRAIN = load_tasks(suite="train")
VAL = load_tasks(suite="val")


def _first(app: str, seed: int, count: int = 12) -> list[str]:
    return [c.task.model_dump_json() for c in itertools.islice(app_candidates(app, seed), count)]


def test_a_slot_whose_literal_an_earlier_slot_replaced_is_refused() -> None:
    template = next(t for t in load_templates("blender") if t.name == "blender-rename-into-collection")
    shadowed = dataclasses.replace(template, slots=tuple(reversed(template.slots)))  # 'Planet' before 'Planets'
    with pytest.raises(TaskError, match="finds no 'Planets'"):
        instantiate(shadowed, get_task(template.base), shadowed.combinations()[0], "train", 0)


def test_templates_cover_the_fourteen_live_apps() -> None:
    assert len(APPS) == 14 and "gitea" not in APPS
    assert {t.app for t in load_templates()} == set(APPS)


@pytest.mark.parametrize("app", APPS)
def test_the_same_seed_gives_the_same_candidates_and_another_seed_others(app: str) -> None:
    assert _first(app, 3) == _first(app, 3)
    assert _first(app, 3) != _first(app, 4)


@pytest.mark.parametrize("app", APPS)
def test_templates_offer_more_distinct_tasks_than_the_quota(app: str) -> None:
    wanted = sum(quota(app))
    assert sum(len(t.combinations()) for t in load_templates(app)) > wanted
    first = [c.task for c in itertools.islice(app_candidates(app, 0), wanted)]
    assert len({t.model_dump_json(exclude={"id", "suite", "instruction"}) for t in first}) == wanted
    assert len({t.id for t in first}) == wanted


@pytest.mark.parametrize("app", APPS)
def test_the_committed_suites_fill_the_papers_quotas(app: str) -> None:
    train = [t for t in TRAIN if t.apps == [app]]
    val = [t for t in VAL if t.apps == [app]]
    assert (len(train), len(val)) == quota(app) == ((64, 16) if app == "gimp" else (32, 8))
    assert not {t.id for t in train} & {t.id for t in val}


def test_training_suites_never_mix_with_the_benchmark() -> None:
    benchmark = load_tasks()  # what bench, tasks check and the task tests load by default
    assert benchmark and not [t for t in benchmark if t.suite in TRAINING_SUITES]
    assert {t.suite for t in TRAIN} == {"train"} and {t.suite for t in VAL} == {"val"}
    assert not {t.id for t in benchmark} & {t.id for t in TRAIN + VAL}


@pytest.mark.slow
@pytest.mark.parametrize("app", APPS)
def test_a_sample_of_each_apps_generated_tasks_is_sound(app: str) -> None:
    """One train task per app (the whole ~600 are checked when they are generated): the reference succeeds, the
    untouched state fails, and the raw validator agrees with the evaluator on every checkpoint of both."""
    task = next(t for t in TRAIN if t.apps == [app])
    outcome = check_task(task, raw=True)
    assert outcome.ok, f"{task.id}: {outcome.detail}"


@pytest.mark.slow
def test_generation_with_the_real_check_is_reproducible() -> None:
    held_out = HeldOut.benchmark()
    first = generate_app("nautilus", 11, held_out, check=True, wanted=(2, 1))
    second = generate_app("nautilus", 11, held_out, check=True, wanted=(2, 1))
    assert first.complete and not first.unsound
    ids = {s: [t.id for t in first.kept[s]] for s in ("train", "val")}
    assert ids == {s: [t.id for t in second.kept[s]] for s in ("train", "val")}
    assert [t.model_dump_json() for t in first.kept["train"]] == [t.model_dump_json() for t in second.kept["train"]]
