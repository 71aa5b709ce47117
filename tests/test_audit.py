"""asil bench --keep-final-state and asil audit: raw validators on the states agents left, against the evaluator."""

from __future__ import annotations

import io
import itertools
import tarfile
from pathlib import Path

import pytest

from asil.agents.base import Agent, make_agent
from asil.runner.audit import audit_run, balanced_sample
from asil.runner.bench import run_bench
from asil.runner.final_state import ARCHIVE, FILES
from asil.tasks import load_tasks, prepare_workspace
from tests.bench_helpers import asil, outcomes, task_dir

ORACLE_TASKS = ("calc-total-column", "calc-infeasible-macro", "drawio-relabel-typo", "ink-recolor-logo")


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An oracle run over calc, draw.io and Inkscape that kept its final states (through the CLI and workers)."""
    folder = tmp_path_factory.mktemp("audit")
    tasks = task_dir(folder, *ORACLE_TASKS)
    ran = asil("bench", "--tasks-dir", str(tasks), "--workers", "2", "--keep-final-state", "--out", str(folder / "run"))
    assert ran.returncode == 0, ran.stderr
    return folder / "run"


def test_an_oracle_run_keeps_compact_final_states_and_the_audit_agrees(oracle_run: Path) -> None:
    assert all(ok for ok, *_ in outcomes(oracle_run).values())
    for task_id in ORACLE_TASKS:
        archive = oracle_run / task_id / ARCHIVE
        assert archive.stat().st_size < 200_000, task_id
        with tarfile.open(archive) as tar:
            assert "episode.json" in tar.getnames() and any(n.startswith(f"{FILES}/") for n in tar.getnames())
    ran = asil("audit", str(oracle_run))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"raw validator agrees with the evaluator on {len(ORACLE_TASKS)}/{len(ORACLE_TASKS)}" in ran.stdout


def test_a_planted_disagreement_is_caught_with_both_verdicts(oracle_run: Path, tmp_path: Path) -> None:
    """Swap the kept Calc document for the untouched one: the evaluator said success, the raw validators must not."""
    import shutil

    tampered = tmp_path / "run"
    shutil.copytree(oracle_run, tampered)
    task = load_tasks(root=task_dir(tmp_path, "calc-total-column"))[0]
    untouched = prepare_workspace(task)
    archive = tampered / task.id / ARCHIVE
    with tarfile.open(archive) as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]  # type: ignore[union-attr]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member, data in members:
            if member.name == f"{FILES}/sales.ods":
                data = (untouched.root / "sales.ods").read_bytes()
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    archive.write_bytes(buffer.getvalue())
    untouched.cleanup()
    ran = asil("audit", str(tampered))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"agrees with the evaluator on {len(ORACLE_TASKS) - 1}/{len(ORACLE_TASKS)}" in ran.stdout
    assert "DISAGREE calc-total-column: evaluator pass, raw fail" in ran.stdout
    assert "cell_value Orders!D6: evaluator pass, raw fail" in ran.stdout


def test_a_weak_agent_run_is_audited_on_a_balanced_sample(tmp_path: Path) -> None:
    """The scripted provider plays the reference in one episode and gives up at once (premature done) in the next."""
    tasks = load_tasks(root=task_dir(tmp_path, "calc-total-column", "calc-sort-scores", "drawio-relabel-typo",
                                     "drawio-move-resize"))
    faults = itertools.cycle([[], ["premature_done"]])

    def weak_agent() -> Agent:
        return make_agent("react", model="scripted", faults=next(faults))

    run_bench(tasks, weak_agent, tmp_path / "weak", backend="inline", keep_final_state=True)
    results = outcomes(tmp_path / "weak")
    assert sorted(ok for ok, *_ in results.values()) == [False, False, True, True]
    audit = audit_run(tmp_path / "weak", balanced=4)
    assert [v.evaluator for v in audit.verdicts].count(True) == 2 and not audit.disagreements
    ran = asil("audit", str(tmp_path / "weak"), "--balanced", "2")
    assert ran.returncode == 0 and "1 evaluator successes, 1 failures" in ran.stdout and "on 2/2" in ran.stdout


def test_balanced_samples_take_half_of_each_class_and_the_rest_from_the_larger(tmp_path: Path) -> None:
    from asil.runner.trace import EpisodeResult

    def result(task_id: str, success: bool) -> EpisodeResult:
        return EpisodeResult(task_id=task_id, suite="core", apps=["calc"], agent="x", score=float(success),
                             success=success, checkpoints=[], steps=1, budget=15, time_s=0.1, termination="done")

    many = [result(f"p{i}", True) for i in range(10)] + [result(f"f{i}", False) for i in range(2)]
    sample = balanced_sample(many, 6)
    assert sum(r.success for r in sample) == 4 and sum(not r.success for r in sample) == 2
    assert sample == balanced_sample(many, 6)  # seeded: the same run gives the same sample


def test_audit_refuses_a_run_without_final_states(tmp_path: Path) -> None:
    tasks = load_tasks(root=task_dir(tmp_path, "drawio-relabel-typo"))
    run_bench(tasks, lambda: make_agent("oracle"), tmp_path / "plain", backend="inline")
    ran = asil("audit", str(tmp_path / "plain"))
    assert ran.returncode == 2 and "kept no final states" in ran.stderr and "--keep-final-state" in ran.stderr
    assert "Traceback" not in ran.stderr
