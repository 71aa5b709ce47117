"""The ASIL tool for verl, loaded and driven through the real ``verl`` package against real draw.io tasks."""

from __future__ import annotations

import asyncio
import gc
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from asil.cli import main
from asil.tasks import load_tasks
from asil.training.verl import TOOL_CONFIG_FILE, tool_config

verl_tool_registry = pytest.importorskip("verl.tools.tool_registry", reason="the 'rl' extra (verl) is not installed")
with warnings.catch_warnings():  # verl's agent loop imports Ray's deprecated experimental state API
    warnings.simplefilter("ignore", DeprecationWarning)
    from verl.experimental.agent_loop.tool_agent_loop import AgentData

from asil.training.verl_tool import SESSION_FIELD, AsilTool  # noqa: E402

DRAWIO = [t for t in load_tasks(suite="train") if t.apps == ["drawio"]]


def _tool(tmp_path: Path) -> AsilTool:
    """The tool as verl builds it: from the tool config file, through verl's own registry."""
    config = tmp_path / TOOL_CONFIG_FILE
    config.write_text(json.dumps(tool_config()), encoding="utf-8")
    tools = verl_tool_registry.initialize_tools_from_config(str(config))
    assert len(tools) == 1 and isinstance(tools[0], AsilTool) and tools[0].name == "asil"
    return tools[0]


def _arguments(action: Any) -> dict[str, Any]:
    return dict(action.model_dump(mode="json", exclude_defaults=True))


def test_a_create_execute_calc_reward_release_cycle_solves_a_real_task(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    task = DRAWIO[0]

    async def cycle() -> tuple[float, float, list[str], str, Path]:
        idle, _ = await tool.create(create_kwargs={"task_id": task.id})
        untouched = await tool.calc_reward(idle)  # the untouched state fails
        await tool.release(idle)
        instance, ready = await tool.create(create_kwargs={"task_id": task.id, "suite": task.suite})
        assert task.id in (ready.text or "")
        first, _, _ = await tool.execute(instance, {"action_type": "set_value", "params": "no"})
        assert first.text and "status: invalid" in first.text  # refused, and the task is restored
        workspace = tool.sessions[instance].env.workspace.root
        statuses = []
        for action in task.reference_steps():
            answer, step_reward, metrics = await tool.execute(instance, _arguments(action))
            assert step_reward == 0.0 and (answer.text or "").startswith(f"status: {metrics['status']}")
            statuses.append(metrics["status"])
        bad, _, bad_metrics = await tool.execute(instance, {"action_type": "set_value", "params": "no"})
        reward = await tool.calc_reward(instance)
        await tool.release(instance)
        return untouched, reward, statuses, f"{bad_metrics['status']}: {bad.text}", workspace

    untouched, reward, statuses, bad, workspace = asyncio.run(cycle())
    assert untouched < 1.0 and reward == 1.0
    assert set(statuses) == {"ok"}
    assert bad.startswith("invalid: status: invalid\nerror: ")
    assert not workspace.exists() and not tool.sessions and not tool.instances  # release stopped the app


def test_the_tool_agent_loops_per_call_instances_share_the_trajectorys_task(tmp_path: Path) -> None:
    """verl 0.9's tool_agent loop creates and releases an instance around every call; one trajectory's
    actions must still reach one restored task, and two trajectories of one prompt must not share it."""
    tool = _tool(tmp_path)
    task = DRAWIO[2]
    create_kwargs = {"task_id": task.id, "suite": task.suite}

    def trajectory() -> AgentData:
        return AgentData(messages=[], image_data=[], video_data=[], audio_data=None, mm_processor_kwargs=None,
                         metrics={}, request_id="r", tools_kwargs={"asil": {"create_kwargs": create_kwargs}})

    async def call(data: AgentData, arguments: dict[str, Any]) -> str:  # as ToolAgentLoop._call_tool does
        instance, _ = await tool.create(create_kwargs=create_kwargs)
        try:
            answer, _, _ = await tool.execute(instance, arguments, agent_data=data)
        finally:
            await tool.release(instance)
        return answer.text or ""

    async def run() -> tuple[float, float, Path]:
        solver, idler = trajectory(), trajectory()
        for action in task.reference_steps():
            assert (await call(solver, _arguments(action))).startswith("status: ok")
        await call(idler, {"action_type": "done"})
        return solver.extra_fields[SESSION_FIELD].score, idler.extra_fields[SESSION_FIELD].score, \
            solver.extra_fields[SESSION_FIELD].task.id

    solved, idle, task_id = asyncio.run(run())
    assert task.reference_steps()[-1].action_type == "done"  # the reference ends the episode itself
    assert task_id == task.id and solved == 1.0 and idle < 1.0


def test_an_unended_trajectorys_app_is_stopped_when_verl_drops_its_data(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    task = DRAWIO[3]
    trajectories = [AgentData(messages=[], image_data=[], video_data=[], audio_data=None, mm_processor_kwargs=None,
                              metrics={}, request_id="r", tools_kwargs={})]  # verl's reference to it

    async def one_call(data: AgentData) -> Path:
        instance, _ = await tool.create(create_kwargs={"task_id": task.id})
        await tool.execute(instance, _arguments(task.reference_steps()[0]), agent_data=data)
        await tool.release(instance)
        return Path(data.extra_fields[SESSION_FIELD].env.workspace.root)

    workspace = asyncio.run(one_call(trajectories[0]))
    assert workspace.exists()  # the trajectory goes on: its task lives across calls
    session = trajectories[0].extra_fields[SESSION_FIELD]
    trajectories.clear()  # verl is done with the trajectory
    gc.collect()
    session.thread.shutdown(wait=True)  # the close queued by the finalizer has run
    assert session.env is None and not workspace.exists()


def test_export_verl_writes_the_tool_config_verl_loads(tmp_path: Path) -> None:
    assert main(["export", "verl", "--out", str(tmp_path), "--suite", "train", "--app", "drawio", "--limit", "1"]) == 0
    tools = verl_tool_registry.initialize_tools_from_config(str(tmp_path / TOOL_CONFIG_FILE))
    assert [type(t).__name__ for t in tools] == ["AsilTool"]
    assert tools[0].tool_schema.function.parameters.required == ["action_type"]


def test_an_unknown_task_is_refused_at_create(tmp_path: Path) -> None:
    tool = _tool(tmp_path)
    with pytest.raises(Exception, match="no-such-task"):
        asyncio.run(tool.create(create_kwargs={"task_id": "no-such-task"}))
    with pytest.raises(ValueError, match="needs create_kwargs with a task_id"):
        asyncio.run(tool.create(create_kwargs={}))
