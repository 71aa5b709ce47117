"""verl RL rows (parquet in verl's dataset format) and the verl reward function, on real draw.io tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from asil.agents.react import reply_text, system_prompt
from asil.cli import main
from asil.plugins import adapter_class
from asil.tasks import load_tasks
from asil.tasks.loader import get_task
from asil.training.verl import FIELDS, compute_score, initial_prompt, overlong_penalty, replies

DRAWIO = [t for t in load_tasks(suite="train") if t.apps == ["drawio"]]
# Imported while collecting, before any test starts LibreOffice (see test_sft.py).
datasets = pytest.importorskip("datasets")


def _string_fields(struct: pa.DataType) -> set[str]:
    assert pa.types.is_struct(struct)
    fields = [struct.field(i) for i in range(struct.num_fields)]
    assert all(f.type == pa.string() for f in fields)
    return {f.name for f in fields}


def test_export_verl_writes_rows_with_exactly_verls_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "verl", "--out", str(tmp_path), "--suite", "train", "--app", "drawio", "--limit", "3"]) == 0
    assert "train: 3 rows" in capsys.readouterr().out
    table = pq.read_table(tmp_path / "train.parquet")
    assert tuple(table.column_names) == FIELDS  # verl's data_source, prompt, ability, reward_model, extra_info, agent_name
    prompt_type = table.schema.field("prompt").type  # a chat: a list of {role, content} strings
    assert pa.types.is_list(prompt_type) and _string_fields(prompt_type.value_type) == {"role", "content"}
    assert _string_fields(table.schema.field("reward_model").type) == {"style", "ground_truth"}
    rows = table.to_pylist()
    for index, (row, task) in enumerate(zip(rows, DRAWIO[:3], strict=True)):
        assert row["data_source"] == "asil" and row["ability"] == "drawio" and row["agent_name"] == "tool_agent"
        assert row["reward_model"] == {"style": "rule", "ground_truth": task.id}
        info = row["extra_info"]
        assert info["index"] == index and info["split"] == "train"
        create = info["tools_kwargs"]["asil"]["create_kwargs"]
        assert create == {"task_id": task.id, "suite": "train"} and info["interaction_kwargs"]["task_id"] == task.id
        assert get_task(create["task_id"]) == task  # the row is enough to restore the task
        system, user = row["prompt"]
        assert system == {"role": "system", "content": system_prompt({"drawio": adapter_class("drawio").action_schema()})}
        assert user["role"] == "user" and user["content"].startswith(f"Task: {task.instruction}")
        assert '"metadata":{"app":"drawio"' in user["content"]  # the real initial observation
    assert rows[0]["prompt"] == initial_prompt(DRAWIO[0])  # the same prompt every time (the agent's first call)
    loaded = datasets.load_dataset("parquet", data_files=str(tmp_path / "train.parquet"), split="train",
                                   cache_dir=str(tmp_path / "hf-cache"))  # how verl's RLHFDataset reads it
    assert loaded.num_rows == 3 and loaded[0]["prompt"][1]["role"] == "user"


def test_export_verl_names_the_suites_that_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "verl", "--out", str(tmp_path / "out"), "--suite", "trian"]) == 2
    err = capsys.readouterr().err
    assert "'trian'" in err and "core" in err and "train" in err and "val" in err
    assert not (tmp_path / "out").exists()


def test_compute_score_replays_the_episode_in_the_real_app() -> None:
    task = DRAWIO[0]
    steps = task.reference_steps()
    # a response as verl decodes it: replies with tool output and prose between them
    solution = "\n".join(f"{reply_text('Next.', a)}\n<tool_response>{{\"status\": \"ok\"}}</tool_response>"
                         for a in steps)
    assert list(replies(solution)) == steps
    assert compute_score("asil", solution, task.id) == 1.0
    assert compute_score("asil", "I could not find a way.", task.id) == 0.0  # the untouched state fails
    assert compute_score("asil", solution, task.id, {"response_tokens": 1000, "max_response_tokens": 1024}) == \
        pytest.approx(1.0 - 0.1 * (1000 - 768) / 256)
    with pytest.raises(ValueError, match="data_source"):
        compute_score("openai/gsm8k", solution, task.id)


def test_compute_score_reads_the_tool_calls_of_verls_tool_agent_loop() -> None:
    task = DRAWIO[1]
    steps = task.reference_steps()
    calls = [{"name": "asil", "arguments": a.model_dump(mode="json", exclude_defaults=True)} for a in steps]
    calls[0]["arguments"] = json.dumps(calls[0]["arguments"])  # OpenAI-style arguments as JSON text
    # hermes format, as Qwen-style chat templates have the model write them, with the tool's answers between
    solution = "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>\n<tool_response>status: ok</tool_response>"
                         for c in calls)
    assert list(replies(solution)) == steps
    assert compute_score("asil", solution, task.id) == 1.0
    other_tool = json.dumps({"name": "search", "arguments": calls[1]["arguments"]})
    assert list(replies(other_tool)) == []


def test_overlong_shaping_is_zero_within_the_budget_and_falls_through_the_buffer() -> None:
    assert overlong_penalty(768, 1024) == 0.0
    assert overlong_penalty(896, 1024) == pytest.approx(-0.05)
    assert overlong_penalty(1024, 1024) == pytest.approx(-0.1)
    assert overlong_penalty(1000, 1024, coefficient=0.0) == 0.0
