"""The held-out hard suite: kept out of the default load and of training, 6..15 meaningful reference actions and
at least 3 required checkpoints per task, licensed photos matching their manifest, the paper's composition, and
every task sound in the real programs (the raw validator agreeing with the evaluator)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from asil.cli import main
from asil.protocol import Action
from asil.tasks import load_tasks
from asil.tasks.bands import meaningful_actions
from asil.tasks.loader import HARD_SUITE, get_task, hard_root
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, build_asset
from tests.test_tasks import test_task_is_sound_and_the_raw_validator_agrees as check_soundly

HARD = load_tasks(suite=HARD_SUITE)
# The ASIL paper's hard suite (§4.2, Appendix A): 80 tasks in five groups, one folder each under tasks/hard/.
COMPOSITION = {"gimp": 24, "office": 12, "developer": 8, "files-mail": 6, "multi": 30}
ASSETS = hard_root() / "assets"


def group_of(task: Task) -> str:
    assert task.source_dir is not None
    return task.source_dir.relative_to(hard_root()).parts[0]


def test_the_hard_suite_loads_by_name_and_never_with_all_tasks() -> None:
    assert HARD and all(t.suite == HARD_SUITE for t in HARD)
    everything = load_tasks()
    assert not {t.id for t in everything} & {t.id for t in HARD}
    assert all(t.suite != HARD_SUITE for t in everything)
    assert load_tasks(suite="core") and not load_tasks(suite=HARD_SUITE, app="no-such-app")
    assert get_task(HARD[0].id).id == HARD[0].id  # asil run <id> finds a hard task


def test_the_overlap_audit_holds_the_hard_suite_out() -> None:
    pytest.importorskip("sklearn")
    from asil.training.audit import HeldOut

    held = HeldOut.benchmark()
    assert {t.id for t in HARD} <= held.ids
    verdict = held.assess(get_task(HARD[0].id))  # a hard task offered as training data is refused
    assert verdict.decision == "reject"


def test_meaningful_actions_skip_control_and_read_only_actions_and_open_batches() -> None:
    edit = {"action_type": "invoke_function", "target": "fill", "params": {"layer": "A", "color": [0, 0, 0]}}
    inner = {"action_type": "batch", "params": {"actions": [edit, {"action_type": "navigate", "params": {}}]}}
    reference = [Action.model_validate(a) for a in (
        edit, {"action_type": "navigate", "params": {"offset": 0}},
        {"action_type": "batch", "params": {"actions": [edit, inner, edit]}}, {"action_type": "done"})]
    assert len(meaningful_actions(reference)) == 4  # the edit, the batch's two edits and its nested batch's edit


@pytest.mark.parametrize("task", HARD, ids=lambda t: t.id)
def test_a_hard_task_needs_six_to_fifteen_actions_and_three_required_checkpoints(task: Task) -> None:
    assert 6 <= len(meaningful_actions(task.reference)) <= 15
    for path in task.evaluator.paths:
        assert sum(cp.required for cp in path) >= 3
    assert group_of(task) in COMPOSITION
    if group_of(task) == "gimp":
        assert task.apps == ["gimp"]


def test_the_groups_keep_to_the_papers_composition() -> None:
    counts = Counter(group_of(t) for t in HARD)
    assert dict(counts) == COMPOSITION and len(HARD) == 80


def test_every_photo_matches_its_manifest_and_has_a_licence() -> None:
    manifest = json.loads((ASSETS / "ASSETS.json").read_text(encoding="utf-8"))["assets"]
    files = {p.name for p in ASSETS.iterdir() if p.name != "ASSETS.json"}
    assert files == {entry["file"] for entry in manifest}
    for entry in manifest:
        assert hashlib.sha256((ASSETS / entry["file"]).read_bytes()).hexdigest() == entry["sha256"], entry["file"]
        assert "public domain" in entry["licence"] or "CC0" in entry["licence"], entry["file"]
        assert entry["function"].startswith("skimage.data.") and entry["source"].startswith("scikit-image ")
    used = {Path(str(f.content["photo"])).name for t in HARD for f in t.setup.files
            if isinstance(f.content, dict) and "photo" in f.content}
    assert used and used <= files


def test_an_asset_comes_from_the_task_folder_or_the_assets_folder_beside_it(tmp_path: Path) -> None:
    task = get_task(HARD[0].id).model_copy()
    task.source_dir = hard_root() / "gimp"
    build_asset(SetupFile(path="p.jpg", kind="asset", source="../assets/coffee.jpg"), task, tmp_path / "p.jpg")
    assert (tmp_path / "p.jpg").read_bytes() == (ASSETS / "coffee.jpg").read_bytes()
    with pytest.raises(SetupError):
        build_asset(SetupFile(path="q.json", kind="asset", source="../../loader.py"), task, tmp_path / "q.py")


@pytest.mark.slow
@pytest.mark.parametrize("task", HARD, ids=lambda t: t.id)
def test_a_hard_task_is_sound_and_the_raw_validator_agrees(task: Task) -> None:
    check_soundly(task)


def test_the_hard_suite_is_never_exported_as_training_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "verl", "--out", str(tmp_path / "out"), "--suite", HARD_SUITE]) == 2
    assert "held out" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
