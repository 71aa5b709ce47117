"""Task references with bash steps: written {"channel": "bash", "command": ...}, played on the agents' confined
shell by `asil tasks check`, the oracle agent and `asil run --agent oracle`; a failing step stops the replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asil.agents.oracle import OracleAgent, ReferenceFailed
from asil.env import Env
from asil.runner.check import check_task
from asil.tasks.loader import TaskError, load_tasks
from asil.tasks.model import Task
from asil.tasks.reference import ShellStep
from tests.conftest import run_cli

NOTES = "draft\n"


def _task(reference: list[dict[str, Any]], expected: str = "^shipped\n$", **extra: Any) -> Task:
    """A code-server task over notes.txt (a quick real app) whose reference is ``reference``."""
    return Task.model_validate({
        "id": "bash-reference-probe", "suite": "test", "apps": ["codeserver"], "domain": "shell",
        "instruction": "Replace the draft in notes.txt.", "setup": {"files": [
            {"path": "notes.txt", "kind": "text", "content": NOTES}]},
        "evaluator": {"paths": [[{"type": "text_regex", "target": "notes.txt", "expected": expected}]]},
        "reference": reference, **extra})


WRITE_SHIPPED = {"action_type": "invoke_function", "target": "write_file",
                 "params": {"path": "notes.txt", "content": "shipped\n"}}


def test_a_bash_step_is_written_short_and_read_as_the_recorded_bash_action() -> None:
    task = _task([{"channel": "bash", "command": "wc -l notes.txt", "timeout_s": 5}, WRITE_SHIPPED])
    step = task.reference[0]
    assert isinstance(step, ShellStep) and step.command == "wc -l notes.txt" and step.timeout_s == 5.0
    # code that reads references without playing them sees what traces record for a bash step
    assert (step.action_type, step.target, step.is_control) == ("invoke_function", "bash", False)
    written = task.model_dump(mode="json")["reference"]
    assert written[0] == {"channel": "bash", "command": "wc -l notes.txt", "timeout_s": 5.0}
    assert Task.model_validate(task.model_dump(mode="json")).reference == task.reference
    assert [type(s).__name__ for s in task.reference_steps()] == ["ShellStep", "Action", "Action"]  # ends with done


@pytest.mark.parametrize(("step", "sentence"), [
    ({"channel": "bash"}, "a bash step needs 'command', a non-empty shell command"),
    ({"channel": "bash", "command": "  "}, "a bash step needs 'command', a non-empty shell command"),
    ({"channel": "bash", "command": "ls", "cwd": "/"}, "a bash step has only the fields channel, command, timeout_s, not cwd"),
    ({"channel": "bash", "command": "ls", "timeout_s": 0}, "a bash step's 'timeout_s' is a number of seconds above 0"),
    ({"channel": "gui", "command": "ls"}, "the only channel a reference step names is 'bash'"),
])
def test_a_malformed_bash_step_is_refused_when_the_task_loads(tmp_path: Path, step: dict[str, Any],
                                                               sentence: str) -> None:
    good = _task([WRITE_SHIPPED]).model_dump(mode="json")
    (tmp_path / "probe.json").write_text(json.dumps({**good, "reference": [step]}))
    with pytest.raises(TaskError) as refused:
        load_tasks(root=tmp_path)
    assert "field 'reference.0.bash' is wrong" in refused.value.message and sentence in refused.value.message
    listed = run_cli("tasks", "list", "--tasks-dir", str(tmp_path))
    assert listed.returncode != 0 and sentence in listed.stderr and "Traceback" not in listed.stderr


def test_the_committed_task_schema_describes_the_written_form() -> None:
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "task.schema.json").read_text())
    written = _task([{"channel": "bash", "command": "true"}, WRITE_SHIPPED]).model_dump(mode="json")
    jsonschema.validate(written, schema)
    written["reference"][0]["cwd"] = "/"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, schema)


def test_a_reference_bash_step_runs_confined_like_an_agents_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASIL_PROBE_SECRET", "leaked")  # the sandbox passes no variable of the ASIL process
    escape = Path("/tmp/asil-bash-reference-escape.txt")
    escape.unlink(missing_ok=True)
    seen = ("printf '%s|%s|%s\\n' \"${ASIL_PROBE_SECRET:-none}\" \"$(ls -A .asil | wc -l)\" \"$(pwd)\" > seen.txt; "
            f"echo out > {escape}; sed -i s/draft/shipped/ notes.txt")
    task = _task([{"channel": "bash", "command": seen}],
                 expected="^shipped\n$")
    task.evaluator.paths[0].append(task.evaluator.paths[0][0].model_copy(
        update={"target": "seen.txt", "expected": r"^none\|0\|/.+\n$"}))
    check = check_task(task, raw=True)
    assert check.ok, check.detail  # no variable, an empty private area, and the edit reached the document
    assert not escape.exists()  # /tmp inside the sandbox is private


@pytest.mark.parametrize(("step", "detail"), [
    ({"channel": "bash", "command": "echo half > half.txt; echo 'no such column' >&2; exit 3"},
     "reference step 1 (bash: \"echo half > half.txt; echo 'no such column' >&2; exit 3\") was error: "
     "The command exited with code 3. stderr: no such column"),
    ({"channel": "bash", "command": "sleep 5", "timeout_s": 0.5},
     "reference step 1 (bash: 'sleep 5') was error: The command exited with code 124. stderr: "
     "(timed out after 0.5 s)"),
])
def test_a_failing_bash_step_stops_the_tasks_check_with_one_sentence(step: dict[str, Any], detail: str) -> None:
    check = check_task(_task([step, WRITE_SHIPPED]))
    assert not check.reference_success and check.reference_score == 0.0
    assert check.detail == detail  # the write_file after it was never played, so nothing was judged


def test_the_oracle_stops_after_a_failing_bash_step_and_the_document_is_left_alone() -> None:
    task = _task([{"channel": "bash", "command": "exit 7"}, WRITE_SHIPPED])
    env, oracle = Env(task), OracleAgent()
    observation = env.reset()
    try:
        oracle.reset(task, env.schemas())
        decision = oracle.act(observation, None)
        assert decision.channel == "bash"
        failed = env.dispatch(decision.channel, decision.action)  # type: ignore[arg-type]
        assert failed.result.status == "error"
        with pytest.raises(ReferenceFailed) as stopped:
            oracle.act(observation, failed.result)
        assert stopped.value.message == "Reference step 1 (bash: 'exit 7') was error: The command exited with code 7."
        assert env.workspace is not None and (env.workspace.root / "notes.txt").read_text() == NOTES
    finally:
        env.close()


def test_asil_run_oracle_plays_a_core_tasks_bash_step_and_records_it(tmp_path: Path) -> None:
    ran = run_cli("run", "codeserver-bash-first-commit", "--agent", "oracle", "--out", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    folder = tmp_path / "codeserver-bash-first-commit"
    result = json.loads((folder / "result.json").read_text())
    assert result["success"] and result["termination"] == "done"
    lines = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    assert [line["channel"] for line in lines] == ["bash", "api", "api"]
    assert lines[0]["action"]["target"] == "bash" and lines[0]["status"] == "ok"


def test_asil_run_oracle_ends_as_an_agent_error_when_a_bash_step_fails(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    broken = _task([{"channel": "bash", "command": "git log"}, WRITE_SHIPPED])  # no repository here
    (folder / "probe.json").write_text(broken.model_dump_json())
    ran = run_cli("run", "bash-reference-probe", "--tasks-dir", str(folder), "--agent", "oracle",
                  "--out", str(tmp_path / "out"))
    result = json.loads((tmp_path / "out" / "bash-reference-probe" / "result.json").read_text())
    assert not result["success"] and result["termination"] == "agent_error"
    assert "Reference step 1 (bash: 'git log') was error: The command exited with code 128." in result["error"]
    assert "not a git repository" in result["error"] and "Traceback" not in result["error"]
    steps = (tmp_path / "out" / "bash-reference-probe" / "traj.jsonl").read_text().splitlines()
    assert len(steps) == 1, ran.stdout  # the write_file after the failed step was never sent


BASH_CORE = [t for t in load_tasks(suite="core") if any(isinstance(s, ShellStep) for s in t.reference)]


def test_at_least_three_core_tasks_in_different_apps_use_bash_in_their_reference() -> None:
    assert len({t.apps[0] for t in BASH_CORE}) >= 3, [t.id for t in BASH_CORE]


@pytest.mark.parametrize("task", BASH_CORE, ids=lambda t: t.id)
def test_a_core_tasks_reference_needs_its_bash_steps(task: Task) -> None:
    """Without its bash steps the rest of the reference fails: the shell does real work, no checkpoint ignores it."""
    without = task.model_copy(update={"reference": [s for s in task.reference if not isinstance(s, ShellStep)]})
    without.source_dir = task.source_dir
    check = check_task(without)
    assert not check.reference_success, f"{task.id} succeeds without its bash steps"
