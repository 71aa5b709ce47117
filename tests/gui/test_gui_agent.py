"""The GUI participant's network path: ``asil run TASK --agent gui --model M --base-url URL`` sends each
screenshot as an OpenAI image content part to a loopback OpenAI-compatible stand-in, parses the computer-use
actions it answers, feeds an unusable reply back as a parse error, and solves the task on the real LibreOffice."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.chat_server import ChatServer
from tests.conftest import run_cli

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_cli_runs_the_gui_agent_against_a_model_server(tmp_path: Path) -> None:
    server = ChatServer()
    replies = [{"thought": "fly there", "action": "fly"}, {"thought": "still flying", "action": "fly"},
               {"thought": "go to the title's end", "action": "key", "keys": "ctrl+Home End"},
               {"thought": "extend it", "action": "type", "text": " report"},
               {"thought": "finished", "action": "done"}]
    server.behaviours.extend({"text": json.dumps(reply)} for reply in replies)
    try:
        ran = run_cli("run", "writer-retitle", "--agent", "gui", "--model", "local", "--base-url", server.url,
                      "--no-stream", "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "writer-retitle" / "result.json").read_text())
    assert result["success"] and result["agent"] == "gui" and result["steps"] == 4  # the refused step counts
    first = server.requests[0]["body"]["messages"]
    parts = first[-1]["content"]
    assert [part["type"] for part in parts] == ["text", "image_url"]
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.removeprefix("data:image/png;base64,")).startswith(b"\x89PNG")
    assert "1280 x 800 pixels" in first[0]["content"] and "writer-retitle" not in first[0]["content"]
    after_refusal = server.requests[2]["body"]["messages"][-1]["content"][0]["text"]
    assert "PARSE ERROR: your previous reply could not be used: The reply's 'action' must be one of" in after_refusal
    trajectory = [json.loads(line) for line in (tmp_path / "writer-retitle" / "traj.jsonl").read_text().splitlines()]
    assert [line["status"] for line in trajectory] == ["invalid", "ok", "ok", "ok"]


def test_bench_runs_the_gui_participant_and_the_report_scores_it(tmp_path: Path) -> None:
    ran = run_cli("bench", "--agent", "gui", "--task", "calc-sort-scores", "--workers", "1", "--out", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "calc-sort-scores" / "result.json").read_text())
    assert result["success"] and result["budget"] == 50 and result["metrics"]["gui"]["launch_s"] > 0
    assert len(result["metrics"]["gui"]["screenshot_bytes"]) == result["steps"] + 1


def test_an_app_without_a_gui_launch_spec_is_refused_in_one_sentence() -> None:
    from asil.gui.environment import GuiEnv, NoGuiSpec
    from asil.plugins import app_names, plugin
    from asil.tasks.loader import load_tasks

    # the apps with a GUI launch spec grow as apps gain one: the message must name exactly those
    having = [name for name in app_names() if plugin(name).gui]
    assert {"calc", "impress", "writer", "obs", "audacity"} <= set(having)
    # every app with core tasks has a GUI now: the app without one may have tasks in any suite (dia: onboarded)
    without = next(name for name in app_names() if not plugin(name).gui and load_tasks(app=name))
    env = GuiEnv(load_tasks(app=without)[0])
    with pytest.raises(NoGuiSpec) as refused:
        env.reset()
    assert refused.value.message == (f"The app {without!r} has no GUI launch spec; GUI episodes run on "
                                     f"{', '.join(having)}.")
    assert env.workspace is None  # refused before anything was built
