"""The draw.io MCP native baseline against the real ``@drawio/mcp`` server (npm, Node, confined, over stdio):
the scripted demonstrations solve their tasks through the agent, the scripted provider and the ``drawio-mcp``
channel; bad calls are refused, failed or unreadable writes undone, each with one sentence and the file unchanged."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from asil.agents import make_agent
from asil.apps import drawio_mcp
from asil.env import Env
from asil.plugins import adapter_class
from asil.protocol import Action, ActionResult
from asil.runner.episode import run_episode
from asil.tasks import get_task

pytestmark = [pytest.mark.native_baseline, pytest.mark.slow]

DEMOS = sorted(p.name.removesuffix(".json") for p in resources.files("asil.native").joinpath("mcp_demos").iterdir()
               if p.name.endswith(".json"))
OFFLINE_TOOLS = ["list_pages", "get_page", "set_page"]  # the ones that reach a file; docs/apps/drawio.md


def call(env: Env, tool: str, arguments: dict[str, object], **params: object) -> ActionResult:
    return env.dispatch("drawio-mcp", Action(action_type="invoke_function", target=tool,
                                             params={"arguments": arguments, **params})).result


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def order() -> Iterator[Env]:
    env = Env(get_task("drawio-relabel-typo"))
    env.reset()
    yield env
    env.close()


def order_file(env: Env) -> Path:
    assert env.workspace is not None
    return env.workspace.root / "order.drawio"


def labels(env: Env) -> list[str]:
    return [str(element.value) for element in env.primary.observe().elements]


def test_the_server_lists_the_page_tools_it_documents() -> None:
    tools = {tool["name"]: tool for tool in drawio_mcp.server_tools()}
    assert set(OFFLINE_TOOLS) <= set(tools) and drawio_mcp.installed_version() == drawio_mcp.VERSION
    assert tools["set_page"]["inputSchema"]["required"] == ["path", "page", "content"]


def test_demonstrations_cover_at_least_five_drawio_tasks() -> None:
    assert len(DEMOS) >= 5 and {get_task(task_id).apps[0] for task_id in DEMOS} == {"drawio"}


@pytest.mark.parametrize("task_id", DEMOS)
def test_scripted_demonstration_solves_its_task(task_id: str, tmp_path: Path) -> None:
    result = run_episode(get_task(task_id), make_agent("drawio-mcp", model="scripted"), tmp_path)
    assert result.success, result.checkpoints
    steps = [json.loads(line) for line in (tmp_path / task_id / "traj.jsonl").read_text().splitlines()]
    assert [s["channel"] for s in steps] == ["drawio-mcp"] * 3 + ["api"]
    assert [s["action"]["target"] for s in steps[:3]] == ["tools/list", "get_page", "set_page"]
    assert all(s["status"] == "ok" for s in steps) and result.steps == 3  # the handshake is not a step


def test_the_agent_sees_instruction_file_tools_and_answers_not_asil_json(tmp_path: Path) -> None:
    agent = make_agent("drawio-mcp", model="scripted")
    run_episode(get_task("drawio-highlight-risk"), agent, tmp_path)
    calls = agent.client.provider.calls  # type: ignore[attr-defined]
    system, first, second = calls[0][1][0]["content"], calls[0][1][-1]["content"], calls[1][1][-1]["content"]
    assert '"name": "set_page"' in system and "Diagram file: review.drawio" in first and "(none yet)" in first
    assert 'value="Manual review"' in second  # get_page's answer, the page XML
    assert all('"elements"' not in messages[-1]["content"] for _, messages in calls)


def test_an_unknown_tool_is_refused_naming_the_tools(order: Env) -> None:
    before = digest(order_file(order))
    result = call(order, "draw_everything", {})
    assert result.status == "invalid" and result.error is not None
    assert result.error.message == ("The draw.io MCP server has no tool 'draw_everything'; its tools are open_drawio_xml, "
                                    "open_drawio_csv, open_drawio_mermaid, list_pages, get_page, set_page, search_shapes "
                                    "(and tools/list to list them).")
    assert digest(order_file(order)) == before


def test_arguments_outside_the_tools_schema_are_refused_before_the_server_runs(order: Env) -> None:
    result = call(order, "set_page", {"path": "order.drawio", "page": "0"})
    assert result.status == "invalid" and result.error is not None
    assert result.error.message == ("The arguments of set_page do not fit its input schema ('content' is a required "
                                    "property); it takes path (string), page (string), content (string), of which "
                                    "path, page, content required.")


def test_a_write_draw_io_cannot_read_is_undone(order: Env) -> None:
    """The real server writes any text starting with <mxGraphModel; the channel restores the file it broke."""
    before = digest(order_file(order))
    result = call(order, "set_page", {"path": "order.drawio", "page": "0",
                                      "content": '<mxGraphModel><root><mxCell id="0"></root></mxGraphModel>'})
    assert result.status == "error" and result.error is not None
    assert result.error.message.startswith("The server wrote a diagram that draw.io's format cannot read ('order.drawio' "
                                           "cannot be opened: it is not well-formed XML")
    assert result.error.message.endswith("the file was restored to its state before this step.")
    assert digest(order_file(order)) == before and "Recieve order" in labels(order)


def test_the_servers_own_refusal_comes_back_in_one_sentence(order: Env) -> None:
    result = call(order, "get_page", {"path": "order.drawio", "page": "Page-9"})
    assert result.error is not None and result.error.message == (
        'The draw.io MCP server refused get_page: No page with name or id "Page-9" found. Available page names: '
        "Order process; the workspace was left as it was before this step.")


def test_files_outside_the_workspace_do_not_exist_for_the_server(order: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside.drawio"
    outside.write_bytes(order_file(order).read_bytes())
    before = digest(outside)
    result = call(order, "set_page", {"path": str(outside), "page": "0", "content": "<mxGraphModel><root/></mxGraphModel>"})
    assert result.error is not None and result.error.message.startswith(
        f"The draw.io MCP server refused set_page: file not found: {outside}")
    assert digest(outside) == before


def test_a_call_past_its_time_limit_is_stopped(order: Env) -> None:
    before = digest(order_file(order))
    result = call(order, "list_pages", {"path": "order.drawio"}, timeout_s=0.05)
    assert result.error is not None and result.error.message == (
        "The draw.io MCP server did not answer list_pages within 0.05 s and was stopped; the workspace was left "
        "as it was before this step.")
    assert digest(order_file(order)) == before


def test_the_channel_refuses_apps_that_are_not_drawio() -> None:
    env = Env(get_task("writer-retitle"))
    env.reset()
    try:
        result = call(env, "list_pages", {"path": "report.odt"})
    finally:
        env.close()
    assert result.error is not None and result.error.message == (
        "The drawio-mcp channel works on draw.io diagrams, and 'writer' is not one.")


def test_the_server_runs_with_a_clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ASIL_TEST_SECRET", "sk-do-not-leak")
    argv = drawio_mcp.server_argv(tmp_path)
    assert "--clearenv" in argv and "--unshare-all" in argv and "sk-do-not-leak" not in " ".join(argv)


def test_a_write_survives_a_new_server_and_a_new_adapter(order: Env) -> None:
    """The server keeps nothing in memory: the page it wrote is on disk, where a fresh server process (every
    call starts one) and a freshly opened adapter both find it."""
    page = call(order, "get_page", {"path": "order.drawio", "page": "0"}).output or ""
    written = call(order, "set_page", {"path": "order.drawio", "page": "0",
                                       "content": page.replace("Recieve order", "Receive order")})
    assert written.ok and written.changed == ["order.drawio"]
    again = call(order, "get_page", {"path": "order.drawio", "page": "Order process"})
    assert 'value="Receive order"' in (again.output or "")
    order.primary.close()
    assert order.workspace is not None
    order.adapters["drawio"] = adapter_class("drawio")(order.workspace, "order.drawio")
    assert "Receive order" in labels(order) and "Recieve order" not in labels(order)


def test_cli_runs_the_agent_against_a_model_server_and_feeds_errors_back(tmp_path: Path) -> None:
    """``asil run TASK --agent drawio-mcp --model M --base-url URL``: the real client path; a wrong first call
    comes back as its error sentence, the demonstration's calls then solve the task."""
    from tests.chat_server import ChatServer
    from tests.conftest import run_cli

    demo = json.loads(resources.files("asil.native").joinpath("mcp_demos", "drawio-relabel-typo.json").read_text())
    server = ChatServer()
    wrong = {"thought": "guess the page name", "tool": "get_page", "arguments": {"path": "order.drawio", "page": "Page-1"}}
    for reply in (wrong, *demo["calls"], {"thought": "finished", "done": True}):
        server.behaviours.append({"text": json.dumps(reply)})
    try:
        ran = run_cli("run", "drawio-relabel-typo", "--agent", "drawio-mcp", "--model", "local", "--base-url",
                      server.url, "--no-stream", "--out", str(tmp_path))
    finally:
        server.close()
    assert ran.returncode == 0, ran.stderr
    result = json.loads((tmp_path / "drawio-relabel-typo" / "result.json").read_text())
    assert result["success"] and result["steps"] == 4
    second_prompt = server.requests[1]["body"]["messages"][-1]["content"]
    assert 'failed: The draw.io MCP server refused get_page: No page with name or id "Page-1" found.' in second_prompt


def test_bench_runs_the_baseline_beside_other_participants(tmp_path: Path) -> None:
    """``asil bench --agent drawio-mcp``: the same tasks, evaluator and result files as any participant."""
    from tests.conftest import run_cli

    ran = run_cli("bench", "--task", "drawio-connect-missing", "--task", "drawio-move-resize", "--agent", "drawio-mcp",
                  "--model", "scripted", "--workers", "1", "--out", str(tmp_path))
    assert ran.returncode == 0, ran.stderr
    results = [json.loads((tmp_path / task / "result.json").read_text())
               for task in ("drawio-connect-missing", "drawio-move-resize")]
    assert [(r["agent"], r["success"], r["steps"]) for r in results] == [("drawio-mcp", True, 3)] * 2


def test_the_agent_on_a_task_that_is_not_draw_io_ends_naming_why(tmp_path: Path) -> None:
    result = run_episode(get_task("ink-add-frame"), make_agent("drawio-mcp", model="scripted"), tmp_path)
    assert result.termination == "agent_error" and not result.success and result.error is not None
    assert result.error.endswith("The draw.io MCP handshake failed: The drawio-mcp channel works on draw.io diagrams, "
                                 "and 'inkscape' is not one.")
