"""SFT export: replayed reference steps and verified agent steps as chat rows that datasets and TRL read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asil.agents.react import parse_action_reply, system_prompt
from asil.cli import main
from asil.llm.client import OpenAICompatibleClient
from asil.tasks import load_tasks
from asil.training.sft import GUIDED, V0, guided_rows, merge, replay_rows, table7, write_jsonl
from tests.chat_server import ChatServer

NAUTILUS = [t for t in load_tasks(suite="train") if t.apps == ["nautilus"]]
# Imported while collecting, before any test starts LibreOffice: python-uno's import hook breaks tqdm's
# relative imports inside datasets when datasets is first imported after it.
datasets = pytest.importorskip("datasets")
trl_data_utils = pytest.importorskip("trl.data_utils", reason="the 'rl' extra (TRL) is not installed")
is_conversational = trl_data_utils.is_conversational  # TRL's own test of its conversational format


def _assert_trl_rows(rows: list[dict[str, Any]]) -> None:
    for item in rows:
        assert is_conversational(item)
        roles = [m["role"] for m in item["messages"]]
        assert roles == ["system", "user", "assistant"]
        assert all(isinstance(m["content"], str) and m["content"] for m in item["messages"])
        reply = json.loads(item["messages"][-1]["content"])
        assert reply["thought"].strip()
        parse_action_reply(reply)  # the action JSON is what the ReAct agent accepts


@pytest.mark.slow
def test_sft_v0_replays_the_reference_in_the_real_app_as_react_prompts() -> None:
    task = NAUTILUS[0]
    rows, problem = replay_rows(task)
    assert not problem
    assert len(rows) == len(task.reference_steps())
    _assert_trl_rows(rows)
    for item, action in zip(rows, task.reference_steps(), strict=True):
        reply = json.loads(item["messages"][-1]["content"])
        assert parse_action_reply(reply) == action
        assert item["source"] == V0 and item["thought_source"] == "template" and item["task_id"] == task.id
    first = rows[0]["messages"]
    assert first[1]["content"].startswith(f"Task: {task.instruction}")
    assert '"metadata":{"app":"nautilus"' in first[1]["content"]  # the real observation, as the agent sees it
    from asil.plugins import adapter_class

    assert first[0]["content"] == system_prompt({"nautilus": adapter_class("nautilus").action_schema()})


@pytest.mark.slow
def test_a_teacher_model_writes_the_thoughts_and_a_failed_annotation_drops_the_row() -> None:
    task = NAUTILUS[1]
    steps = len(task.reference_steps())
    server = ChatServer()
    try:
        server.behaviours += [{"text": "I see the folder and act on it."}] + [{"status": 500}] * (steps - 1)
        teacher = OpenAICompatibleClient("teacher-m", base_url=server.url, server="openai", context_length=32768,
                                         retries=0)
        rows, problem = replay_rows(task, teacher, "teacher-m")
    finally:
        server.close()
    assert not problem and len(rows) == 1  # the steps whose annotation failed give no row
    assert rows[0]["thought_source"] == "teacher:teacher-m"
    assert json.loads(rows[0]["messages"][-1]["content"])["thought"] == "I see the folder and act on it."
    assert task.instruction in server.requests[0]["body"]["messages"][1]["content"]


@pytest.mark.slow
def test_guided_rows_keep_verified_error_free_steps_and_merge_dedups(tmp_path: Path) -> None:
    task = NAUTILUS[2]
    tasks_dir = tmp_path / "tasks"
    tasks_dir.mkdir()
    (tasks_dir / f"{task.id}.json").write_text(task.model_dump_json(), encoding="utf-8")
    runs = tmp_path / "run"
    assert main(["bench", "--tasks-dir", str(tasks_dir), "--agent", "react", "--model", "scripted",
                 "--full-observations", "--out", str(runs)]) == 0
    assert main(["bench", "--tasks-dir", str(tasks_dir), "--agent", "react", "--model", "scripted",
                 "--out", str(tmp_path / "digest-only")]) == 0
    rows, skipped = guided_rows([runs, tmp_path / "digest-only"], {task.id: task})
    assert skipped == {"no full observations (run bench with --full-observations)": 1}
    assert len(rows) == len(task.reference_steps())
    _assert_trl_rows(rows)
    assert {r["source"] for r in rows} == {GUIDED}
    v0, _ = replay_rows(task)
    merged = merge(v0, rows, v0)
    assert len(merged) == len({json.dumps(r["messages"]) for r in v0 + rows})
    assert len(merge(v0, v0)) == len(v0)


def test_rows_load_with_hugging_face_datasets_and_table_7_counts_them(tmp_path: Path) -> None:
    rows = [{"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": f"Task: t{i}"},
                          {"role": "assistant", "content": json.dumps({"thought": "go", "action": {
                              "action_type": "done"}})}],
             "task_id": f"t{i // 2}", "apps": ["calc"], "step": i % 2 + 1, "source": V0, "thought_source": "template"}
            for i in range(4)]
    write_jsonl(tmp_path / "rows.jsonl", rows)
    loaded = datasets.load_dataset("json", data_files=str(tmp_path / "rows.jsonl"), split="train",
                                   cache_dir=str(tmp_path / "hf-cache"))
    assert loaded.num_rows == 4 and loaded[0]["messages"][2]["role"] == "assistant"
    _assert_trl_rows([dict(r) for r in loaded])
    table = table7([("SFT-v0", rows)])
    assert "Table 7" in table
    assert table.splitlines()[-1].split()[1:5] == ["4", "2", "1", "2.00"]


@pytest.mark.slow
def test_the_export_command_writes_three_splits_that_datasets_loads(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["export", "sft", "--out", str(tmp_path / "sft"), "--suite", "train", "--app", "nautilus",
                 "--limit", "2"])
    out = capsys.readouterr().out
    assert code == 0 and "Table 7" in out
    for name in ("sft_v0", "agentic_guided", "merged"):
        assert (tmp_path / "sft" / f"{name}.jsonl").is_file()
    loaded = datasets.load_dataset("json", data_files=str(tmp_path / "sft" / "merged.jsonl"), split="train",
                                   cache_dir=str(tmp_path / "hf-cache"))
    assert loaded.num_rows == sum(len(t.reference_steps()) for t in NAUTILUS[:2])
    assert set(loaded["task_id"]) == {t.id for t in NAUTILUS[:2]}


def test_export_refuses_a_missing_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "sft", "--out", str(tmp_path), "--runs", str(tmp_path / "nope")]) == 2
    assert "is not a run folder" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
