"""Hybrid vision (``--hybrid-vision``): the ReAct agent sends the app's render of each state as an OpenAI image
content part beside the observation JSON - against a loopback OpenAI-compatible server, the real draw.io
renderer (mxGraph in chromium) and, for an app without a render, the real FreeCAD adapter."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from asil.agents import make_agent
from asil.runner.episode import run_episode
from asil.tasks import get_task

pytestmark = pytest.mark.slow

PNG = b"\x89PNG\r\n\x1a\n"


def image_parts(request: dict[str, object]) -> list[bytes]:
    """The PNGs a chat request carries as image_url parts (data URLs), decoded."""
    pictures = []
    for message in request["body"]["messages"]:  # type: ignore[index]
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part["type"] == "image_url":
                    url = part["image_url"]["url"]
                    assert url.startswith("data:image/png;base64,")
                    pictures.append(base64.b64decode(url.split(",", 1)[1]))
    return pictures


def test_each_observation_goes_with_the_render_of_its_state(tmp_path: Path) -> None:
    from tests.chat_server import ChatServer
    from tests.conftest import run_cli

    relabel = {"action_type": "invoke_function", "target": "relabel",
               "params": {"cell": "Recieve order", "label": "Receive order"}}
    server = ChatServer()
    for reply in ({"thought": "fix the typo", "action": relabel}, {"thought": "done", "action": {"action_type": "done"}}):
        server.behaviours.append({"text": json.dumps(reply)})
    try:
        ran = run_cli("run", "drawio-relabel-typo", "--agent", "react", "--model", "local", "--base-url", server.url,
                      "--no-stream", "--hybrid-vision", "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    assert "hybrid vision" not in ran.stderr
    first, second = (image_parts(request) for request in server.requests)
    assert len(first) == 1 and len(second) == 1 and first[0].startswith(PNG) and second[0].startswith(PNG)
    assert first[0] != second[0]  # the second picture shows the relabelled diagram
    folder = tmp_path / "drawio-relabel-typo"
    assert (folder / "step_0.png").read_bytes() == first[0] and (folder / "step_1.png").read_bytes() == second[0]
    text = server.requests[0]["body"]["messages"][-1]["content"][0]
    assert text["type"] == "text" and '"elements"' in text["text"]  # the observation JSON is still there
    result = json.loads((folder / "result.json").read_text())
    assert result["success"] and result["metrics"]["pictures_sent"] == 2


def test_without_the_flag_no_image_is_sent(tmp_path: Path) -> None:
    agent = make_agent("react", model="scripted")
    run_episode(get_task("drawio-relabel-typo"), agent, tmp_path)
    assert all(isinstance(m["content"], str) for _, messages in agent.client.provider.calls  # type: ignore[attr-defined]
               for m in messages)
    assert not list((tmp_path / "drawio-relabel-typo").glob("step_*.png"))


def test_an_app_without_a_render_says_so_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = get_task("freecad-rename-block")
    agent = make_agent("react", model="scripted", hybrid_vision=True)
    result = run_episode(task, agent, tmp_path)
    said = capsys.readouterr().err
    assert result.success and said.count("hybrid vision:") == 1
    assert ("hybrid vision: the freecad adapter has no render of its state; the observations of freecad-rename-block "
            "go to the model without an image.") in said
    assert all(isinstance(m["content"], str) for _, messages in agent.client.provider.calls  # type: ignore[attr-defined]
               for m in messages)
    assert result.metrics["pictures_sent"] == 0


def test_hybrid_vision_is_refused_for_agents_that_send_no_images(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    ran = run_cli("run", "drawio-relabel-typo", "--agent", "lstc", "--hybrid-vision", "--out", str(tmp_path))
    assert ran.returncode != 0 and "--hybrid-vision applies to the react agent only." in ran.stderr


def test_pictures_go_with_change_only_observations_too(tmp_path: Path) -> None:
    agent = make_agent("react", model="scripted", observations="changes", hybrid_vision=True)
    result = run_episode(get_task("drawio-relabel-typo"), agent, tmp_path)
    users = [messages[-1]["content"] for _, messages in agent.client.provider.calls]  # type: ignore[attr-defined]
    assert result.success and len(users) == 2 and all(isinstance(content, list) for content in users)
    assert [part["type"] for part in users[1]] == ["text", "image_url"]
