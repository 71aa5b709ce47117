"""The overlap audit: planted near-duplicates are rejected, the committed suites are not, the judge is asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.cli import main
from asil.llm.client import OpenAICompatibleClient
from asil.tasks import load_tasks
from asil.tasks.loader import get_task
from asil.training.audit import REJECT_AT, WARN_AT, HeldOut, PoolRow, decide, table10
from asil.training.generate import AppGeneration, RejectedTask, write_suites
from asil.training.judge import judge_pairs
from tests.chat_server import ChatServer


@pytest.fixture(scope="module")
def held_out() -> HeldOut:
    return HeldOut.benchmark()


def _near_duplicate(task_id: str = "calc-total-column") -> object:
    task = get_task(task_id).model_copy(deep=True)
    task.id = "gen-planted-copy"
    task.suite = "train"
    task.instruction = task.instruction.replace("grand total", "overall total")
    return task


def test_the_thresholds_are_the_papers() -> None:
    assert (WARN_AT, REJECT_AT) == (0.55, 0.72)
    assert decide(0.54, []) == "accept" and decide(0.55, []) == "warn" and decide(0.72, []) == "reject"
    assert decide(0.1, ["same id"]) == "reject"


def test_a_planted_near_duplicate_of_a_benchmark_task_is_rejected(held_out: HeldOut) -> None:
    verdict = held_out.assess(_near_duplicate())  # type: ignore[arg-type]
    assert verdict.decision == "reject"
    assert verdict.nearest == "calc-total-column" and verdict.risk >= REJECT_AT
    assert any("same target artifact" in reason for reason in verdict.hard_rejects)


def test_a_benchmark_task_under_its_own_id_is_a_hard_reject(held_out: HeldOut) -> None:
    verdict = held_out.assess(get_task("obs-create-scene"))
    assert verdict.decision == "reject"
    assert any("id obs-create-scene" in reason for reason in verdict.hard_rejects)


def test_an_unrelated_task_is_accepted(held_out: HeldOut) -> None:
    task = get_task("obs-create-scene").model_copy(deep=True)
    task.id = "gen-unrelated"
    task.apps = ["writer"]
    task.instruction = "Compose a haiku about autumn rain falling on quiet mountain temples at dusk."
    assert held_out.assess(task).decision == "accept"


def test_writing_refuses_a_rejected_task_and_writes_nothing(tmp_path: Path, held_out: HeldOut) -> None:
    result = AppGeneration("calc")
    result.kept["train"].append(_near_duplicate())  # type: ignore[arg-type]
    with pytest.raises(RejectedTask, match="gen-planted-copy"):
        write_suites([result], tmp_path, held_out)
    assert not list(tmp_path.iterdir())


def test_table_10_counts_each_iteration(held_out: HeldOut) -> None:
    verdicts = held_out.assess_many([(_near_duplicate(), None), (load_tasks(suite="val")[0], None)])  # type: ignore[list-item]
    text = table10([PoolRow("planted", verdicts)])
    assert "Table 10(a)" in text
    row = next(line for line in text.splitlines() if line.startswith("planted"))
    assert row.split()[1:5] == ["2", str(sum(v.decision == "accept" for v in verdicts)),
                                str(sum(v.decision == "warn" for v in verdicts)), "1"]


def test_the_audit_command_rejects_a_planted_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "planted"
    folder.mkdir()
    task = _near_duplicate()
    (folder / "planted.json").write_text(task.model_dump_json(), encoding="utf-8")  # type: ignore[attr-defined]
    code = main(["tasks", "audit", "--tasks-dir", str(folder), "--out", str(tmp_path / "verdicts.jsonl")])
    out = capsys.readouterr().out
    assert code == 1 and "Table 10(a)" in out and "Table 10(b)" in out
    verdict = json.loads((tmp_path / "verdicts.jsonl").read_text())
    assert verdict["decision"] == "reject" and verdict["nearest"] == "calc-total-column"


def test_the_committed_train_and_val_suites_have_zero_rejects(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tasks", "audit", "--out", str(tmp_path / "verdicts.jsonl")])  # default: --suite train --suite val
    out = capsys.readouterr().out
    verdicts = [json.loads(line) for line in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    rejected = [v for v in verdicts if v["decision"] == "reject"]
    assert code == 0 and len(verdicts) == 600 and not rejected, rejected[:3]
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("train ", "val "))}
    assert rows["train"][1:2] == ["480"] and rows["val"][1:2] == ["120"]  # 13 x 32 + 64, 13 x 8 + 16


def test_the_llm_judge_labels_the_riskiest_pairs_over_http(held_out: HeldOut) -> None:
    planted = _near_duplicate()
    other = load_tasks(suite="val")[0]
    verdicts = held_out.assess_many([(planted, None), (other, None)])  # type: ignore[list-item]
    server = ChatServer()
    try:
        server.behaviours += [{"text": '{"label": "near duplicate"}'}, {"text": "they look alike to me"}]
        client = OpenAICompatibleClient("judge-m", base_url=server.url, server="openai", context_length=32768,
                                        retries=0)
        judge_pairs(client, verdicts, {planted.id: planted, other.id: other},  # type: ignore[attr-defined]
                    {t.id: t for t in held_out.tasks})
    finally:
        server.close()
    assert verdicts[0].judge == "near duplicate"
    assert verdicts[1].judge is not None and verdicts[1].judge.startswith("malformed")
    first = server.requests[0]["body"]["messages"]
    assert "near duplicate" in first[0]["content"] and "overall total" in first[1]["content"]
    assert get_task("calc-total-column").instruction in first[1]["content"]


def test_the_judge_that_does_not_answer_is_recorded_as_an_error(held_out: HeldOut) -> None:
    verdicts = held_out.assess_many([(_near_duplicate(), None)])  # type: ignore[list-item]
    server = ChatServer()
    try:
        server.behaviours += [{"status": 500}] * 2
        client = OpenAICompatibleClient("judge-m", base_url=server.url, server="openai", context_length=32768,
                                        retries=0)
        judge_pairs(client, verdicts, {"gen-planted-copy": _near_duplicate()},  # type: ignore[dict-item]
                    {t.id: t for t in held_out.tasks})
    finally:
        server.close()
    assert verdicts[0].judge is not None and verdicts[0].judge.startswith("error")


def test_the_audit_command_asks_the_judge_about_the_top_pairs(capsys: pytest.CaptureFixture[str]) -> None:
    server = ChatServer()
    try:
        server.behaviours += [{"text": '{"label": "same template"}'}] * 2
        code = main(["tasks", "audit", "--suite", "val", "--judge-model", "judge-m", "--judge-url", server.url,
                     "--judge-top", "2"])
    finally:
        server.close()
    out = capsys.readouterr().out
    assert code == 0 and len(server.requests) == 2
    assert out.count("-> same template") == 2 and "LLM judge on the riskiest pairs" in out
