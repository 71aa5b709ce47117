"""Bench backends give the same results as a sequential run; run settings, summary schema, suites."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import jsonschema
import pytest

from asil.agents.prompting import schema_text
from asil.plugins import adapter_class
from asil.runner.bench import AgentSpec, run_bench, run_settings
from asil.runner.results import RunRecord, RunSettings, open_run
from asil.tasks import load_tasks
from tests.bench_helpers import asil, layout, outcomes, schema, task_dir

TASKS = ("calc-total-column", "calc-delete-column", "calc-infeasible-macro")


@pytest.fixture(scope="module")
def sequential(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The reference: the same tasks one after another in this process, budget 1 so one of them fails."""
    root = tmp_path_factory.mktemp("seq")
    tasks_dir = task_dir(root, *TASKS)
    out = root / "sequential"
    run_bench(load_tasks(root=tasks_dir), AgentSpec("oracle"), out, budget=1, backend="inline")
    return tasks_dir, out


def _check_same(reference: Path, other: Path) -> None:
    expected = outcomes(reference)
    assert len(expected) == len(TASKS)
    assert {s for s, *_ in expected.values()} == {True, False}  # the comparison can tell success from failure
    assert outcomes(other) == expected
    assert layout(other) == layout(reference)
    summary = json.loads((other / "summary.json").read_text())
    jsonschema.validate(summary, schema("summary"))
    for path in other.glob("*/result.json"):
        jsonschema.validate(json.loads(path.read_text()), schema("result"))
    assert summary["total"]["tasks"] == len(TASKS)


@pytest.mark.slow
def test_two_local_workers_match_the_sequential_run(sequential: tuple[Path, Path], tmp_path: Path) -> None:
    tasks_dir, reference = sequential
    out = tmp_path / "pool"
    ran = asil("bench", "--tasks-dir", str(tasks_dir), "--budget", "1", "--workers", "2", "--out", str(out))
    assert ran.returncode == 0, ran.stderr
    _check_same(reference, out)
    assert f"[{len(TASKS)}/{len(TASKS)}] 100%" in ran.stdout and "ETA" in ran.stdout
    record = json.loads((out / "run.json").read_text())
    assert record["settings"] == {"agent": "oracle", "model": None, "budget": 1, "ablations": [], "backend": "local",
                                  "seed": None, "hints": False}
    jsonschema.validate(record, schema("run"))


@pytest.mark.slow
def test_ray_backend_matches_the_sequential_run(sequential: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("ray")
    tasks_dir, reference = sequential
    out = tmp_path / "ray"
    mark = f"ASIL_TEST_RAY_RUN={uuid.uuid4()}"  # inherited by Ray's workers and every program they start
    ran = asil("bench", "--tasks-dir", str(tasks_dir), "--budget", "1", "--backend", "ray", "--workers", "2",
               "--out", str(out), env={**os.environ, mark.split("=")[0]: mark.split("=")[1]})
    assert ran.returncode == 0, ran.stderr
    _check_same(reference, out)
    assert json.loads((out / "run.json").read_text())["settings"]["backend"] == "ray"
    assert _processes_with(mark.encode()) == [], "programs started by Ray workers outlived the run"


def _processes_with(marker: bytes) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_run_settings_are_resolved_from_the_agent_spec_the_budget_and_the_backend() -> None:
    lstc = AgentSpec("lstc", {"model": "m", "ablate": " no-s2l,, no-candidates"})
    assert run_settings(lstc, 50, "ray") == RunSettings(agent="lstc", model="m", budget=50,
                                                       ablations=["no-candidates", "no-s2l"], backend="ray",
                                                       seed=42)  # the model's sampling seed (Table 5 default)
    assert run_settings(AgentSpec("oracle"), None, "local") == RunSettings(agent="oracle")


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    open_run(out, RunRecord(settings=RunSettings(agent="oracle", budget=15)))
    ran = asil("bench", "--suite", "core", "--budget", "50", "--out", str(out))
    assert ran.returncode == 2
    assert "different settings (budget was 15, now 50)" in ran.stderr and "Traceback" not in ran.stderr
    assert not any(p.is_dir() for p in out.iterdir())  # nothing ran


def test_bad_bench_options_get_one_sentence(tmp_path: Path) -> None:
    for args, fragment in [(["--workers", "0"], "--workers must be 1 or more"),
                           (["--episode-timeout", "-3"], "--episode-timeout must be a positive"),
                           (["--ray-address", "ray://x:1"], "--ray-address applies to the ray backend only")]:
        ran = asil("bench", "--suite", "core", "--out", str(tmp_path / "x"), *args)
        assert ran.returncode == 2 and fragment in ran.stderr, ran.stderr


def test_an_unknown_suite_is_refused() -> None:
    unknown = asil("tasks", "check", "--suite", "nosuch")
    assert unknown.returncode == 2 and "No task matches" in unknown.stderr


def test_prompts_name_the_app_field_only_when_a_task_has_several_apps() -> None:
    calc = adapter_class("calc").action_schema()
    assert '"app" field' not in schema_text({"calc": calc})
    several = schema_text({"calc": calc, "writer": calc.model_copy(update={"app": "writer"})})
    assert 'several apps (calc, writer): give every action an "app" field' in several


@pytest.mark.slow
def test_a_service_that_drops_privileges_works_inside_a_bench_worker(tmp_path: Path) -> None:
    """Dovecot serves its Maildir as the mail user, which must reach it inside the worker's scratch folder."""
    out = tmp_path / "mail"
    ran = asil("bench", "--app", "thunderbird", "--suite", "core", "--workers", "1", "--out", str(out),
               "--tasks-dir", str(task_dir(tmp_path, "thunderbird-unflag-invoice-1043")))
    assert ran.returncode == 0, ran.stderr
    assert outcomes(out)["thunderbird-unflag-invoice-1043"][:2] == (True, 1.0)

