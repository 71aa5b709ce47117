"""The LibreOffice UNO native baseline against the real LibreOffice: the scripted demonstrations solve their
tasks through the agent, the scripted provider and the ``uno`` channel, and failing, endless, escaping or
snooping code is refused or contained with one sentence and the document unchanged."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from asil.agents import make_agent
from asil.apps.libreoffice_confined import confined_office
from asil.env import Env
from asil.protocol import Action, ActionResult
from asil.runner.episode import run_episode
from asil.tasks import get_task

pytestmark = [pytest.mark.native_baseline, pytest.mark.slow]

DEMOS = sorted(p.name.removesuffix(".py") for p in resources.files("asil.native").joinpath("demos").iterdir()
               if p.name.endswith(".py"))


def uno(env: Env, code: str, timeout_s: float = 20.0) -> ActionResult:
    return env.dispatch("uno", Action(action_type="invoke_function", target="uno",
                                      params={"code": code, "timeout_s": timeout_s})).result


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def sales() -> Iterator[Env]:
    env = Env(get_task("calc-total-column"))
    env.reset()
    yield env
    env.close()


def d1(env: Env) -> str:
    printed = uno(env, 'print(repr(doc.Sheets.getByName("Orders").getCellRangeByName("D1").getString()))')
    assert printed.ok, printed.error
    return printed.output.strip()


def test_demonstrations_cover_the_three_programs() -> None:
    apps = {get_task(task_id).apps[0] for task_id in DEMOS}
    assert len(DEMOS) >= 5 and apps == {"calc", "writer", "impress"}


@pytest.mark.parametrize("task_id", DEMOS)
def test_scripted_demonstration_solves_its_task(task_id: str, tmp_path: Path) -> None:
    result = run_episode(get_task(task_id), make_agent("uno", model="scripted"), tmp_path)
    assert result.success, result.checkpoints
    steps = [json.loads(line) for line in (tmp_path / task_id / "traj.jsonl").read_text().splitlines()]
    assert [s["channel"] for s in steps] == ["uno", "api"]
    assert steps[0]["status"] == "ok" and steps[1]["action"]["action_type"] == "done"


def test_the_agent_sees_instruction_document_and_its_own_output_not_asil_json(tmp_path: Path) -> None:
    agent = make_agent("uno", model="scripted")
    run_episode(get_task("calc-trim-names"), agent, tmp_path)
    prompts = [messages[-1]["content"] for _, messages in agent.client.provider.calls]  # type: ignore[attr-defined]
    assert "contacts.ods (spreadsheet" in prompts[0] and "(none yet)" in prompts[0]
    assert "cells trimmed: 10" in prompts[1]
    assert all('"elements"' not in prompt and "observation" not in prompt.lower() for prompt in prompts)


def test_code_that_raises_is_undone_and_named_in_one_sentence(sales: Env) -> None:
    document = sales.workspace.root / "sales.ods"  # type: ignore[union-attr]
    before = digest(document)
    result = uno(sales, 'doc.Sheets.getByName("Orders").getCellRangeByName("D1").setString("half")\n'
                        'raise ValueError("the second half failed")')
    assert result.status == "error" and result.error is not None
    assert result.error.message == ("The code raised ValueError: the second half failed; the document was left "
                                    "as it was before this step.")
    assert digest(document) == before and d1(sales) == "''"


def test_endless_code_is_stopped_at_its_time_limit(sales: Env) -> None:
    document = sales.workspace.root / "sales.ods"  # type: ignore[union-attr]
    before = digest(document)
    result = uno(sales, 'doc.Sheets.getByName("Orders").getCellRangeByName("D1").setString("x")\nwhile True:\n    pass',
                 timeout_s=2)
    assert result.error is not None and result.error.message.startswith("The code did not finish within 2 s")
    assert digest(document) == before and d1(sales) == "''"


def test_code_cannot_write_outside_the_workspace(sales: Env, tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    result = uno(sales, f"open({str(outside)!r}, 'w').write('out')")
    assert result.error is not None and "FileNotFoundError" in result.error.message
    assert not outside.exists() and d1(sales) == "''"


def test_code_sees_no_secret_of_the_asil_process(sales: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASIL_TEST_SECRET", "sk-do-not-leak")
    result = uno(sales, "import os\nprint(sorted(os.environ), os.environ.get('ASIL_TEST_SECRET'))")
    assert result.ok and "sk-do-not-leak" not in result.output and "ASIL_TEST_SECRET" not in result.output
    assert result.output.strip().endswith("None")


def test_a_step_without_code_is_refused(sales: Env) -> None:
    result = sales.dispatch("uno", Action(action_type="invoke_function", target="uno", params={})).result
    assert result.status == "invalid" and result.error is not None
    assert result.error.message == "A uno step needs params.code, the Python-UNO source to run (a non-empty string)."


def test_work_is_stored_and_survives_a_restart_of_libreoffice(sales: Env) -> None:
    result = uno(sales, 'doc.Sheets.getByName("Orders").getCellRangeByName("D1").setString("Total")')
    assert result.ok and result.changed == ["sales.ods"]
    sales.primary.close()
    assert sales.workspace is not None
    confined_office(sales.workspace.root).stop()  # a new LibreOffice process: only the file on disk holds the work
    assert d1_reopened(sales) == "'Total'"


def d1_reopened(env: Env) -> str:
    from asil.plugins import adapter_class

    assert env.workspace is not None
    env.adapters["calc"] = adapter_class("calc")(env.workspace, "sales.ods")
    return d1(env)


def test_cli_runs_the_uno_agent_against_a_model_server_and_feeds_errors_back(tmp_path: Path) -> None:
    """``asil run TASK --agent uno --model M --base-url URL``: the real client path; a wrong first try comes back
    as its error line, the fixed code solves the task."""
    from tests.chat_server import ChatServer
    from tests.conftest import run_cli

    wrong = "doc.DrawPages.getByIndex(0).getByIndex(7).setString('Investor update 2025')"
    fixed = (resources.files("asil.native").joinpath("demos", "impress-subtitle-year.py").read_text())
    server = ChatServer()
    for reply in ({"thought": "guess the shape", "code": wrong}, {"thought": "search the shapes", "code": fixed},
                  {"thought": "finished", "done": True}):
        server.behaviours.append({"text": json.dumps(reply)})
    try:
        ran = run_cli("run", "impress-subtitle-year", "--agent", "uno", "--model", "local", "--base-url", server.url,
                      "--no-stream", "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "impress-subtitle-year" / "result.json").read_text())
    assert result["success"] and result["steps"] == 3
    second_prompt = server.requests[1]["body"]["messages"][-1]["content"]
    assert "failed: The code raised com.sun.star.lang.IndexOutOfBoundsException: Index (7)" in second_prompt
