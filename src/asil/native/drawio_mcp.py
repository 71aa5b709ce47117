"""The ``drawio-mcp`` execution channel: one call of a tool of the official draw.io MCP server per step.

A step is ``{"action_type": "invoke_function", "target": "<tool>", "params": {"arguments": {...}}}``;
the target ``tools/list`` is the MCP handshake every client makes before its model sees any tool, so it
is answered (the tools with their input schemas, as JSON) without counting against the budget. The
server (``asil.apps.drawio_mcp``) runs confined with the workspace as its only writable folder and its
working directory, so the task's ``foo.drawio`` is reached as ``"foo.drawio"`` and nothing outside the
workspace can be read or written (the adapters' private folder is hidden too).

The server's page tools (``list_pages``, ``get_page``, ``set_page``) read and write the file itself and
keep nothing in memory, so the sync to what the evaluator reads is: save every document before the call
(the server starts from the state on disk), and re-read the task's diagram from disk after it. What the
server wrote must still be a diagram draw.io can open: if the adapter cannot read it back, every file the
step touched is restored and the step fails with one sentence saying why. A call that fails (the server's
own ``isError`` answer, a crash, the time limit) is undone the same way.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from asil.apps import drawio_mcp as server
from asil.plugins import adapter_class
from asil.protocol import Action, ActionError, ActionResult, AsilError, InvalidAction

if TYPE_CHECKING:
    from asil.env import Env, StepOutcome
    from asil.workspace import Workspace

CHANNEL = "drawio-mcp"
LIST_TOOLS = "tools/list"
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 120.0
MAX_OUTPUT = 200_000  # characters of a tool's text kept for the agent: a whole page's XML must fit


@dataclass
class McpCall:
    """A checked step: the tool, its arguments and the time limit."""

    tool: str
    arguments: dict[str, Any]
    timeout_s: float


def step_call(action: Action) -> McpCall:
    """The step's tool call, or InvalidAction naming what is wrong and what is valid (checked against the
    input schemas the server itself lists, before the server is started for the call)."""
    tools = {tool["name"]: tool for tool in server.server_tools()}
    name = action.target or ""
    if name not in tools:
        raise InvalidAction(f"The draw.io MCP server has no tool {action.target!r}; its tools are "
                            f"{', '.join(tools)} (and {LIST_TOOLS} to list them).",
                            hint='e.g. {"target": "list_pages", "params": {"arguments": {"path": "diagram.drawio"}}}')
    arguments = action.params.get("arguments", {})
    if not isinstance(arguments, dict):
        raise InvalidAction(f"A {name} call's params.arguments is a JSON object of the tool's arguments.")
    _check_arguments(name, arguments, tools[name]["inputSchema"])
    timeout = action.params.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT_S:
        raise InvalidAction(f"A {CHANNEL} step's timeout_s is a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}.")
    return McpCall(name, arguments, float(timeout))


def _check_arguments(tool: str, arguments: dict[str, Any], schema: Mapping[str, Any]) -> None:
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(arguments))
    if error is not None:
        properties = schema.get("properties", {})
        takes = ", ".join(f"{name} ({properties[name].get('type', 'any')})" for name in properties)
        raise InvalidAction(f"The arguments of {tool} do not fit its input schema ({error.message}); it takes {takes}, "
                            f"of which {', '.join(schema.get('required', [])) or 'none'} required.")


def drawio_mcp_step(env: Env, action: Action) -> StepOutcome:
    """The ``drawio-mcp`` channel of :class:`asil.env.Env`: one confined MCP tool call on the task's diagram."""
    from asil.adapters.drawio.adapter import DrawioAdapter  # here: importing Env must not import an adapter

    app = action.app or env.task.apps[0]
    if not isinstance(env.adapters.get(app), DrawioAdapter):
        return env.reject(InvalidAction(f"The {CHANNEL} channel works on draw.io diagrams, and {app!r} is not one.",
                                        hint="Use it on a drawio task."))
    if action.target == LIST_TOOLS:  # no server here (AppUnavailable) ends the episode as an env_error
        return _list_tools(env)
    try:
        call = step_call(action)
    except AsilError as exc:  # a bad call, or no server to check it against (AppUnavailable)
        return env.reject(exc)
    assert env.workspace is not None
    started = time.perf_counter()
    env.steps += 1
    env.active_app = app
    for each in env.adapters.values():  # the server reads the file: it must hold the state so far
        each.save()
    before = _diagram_bytes(env.workspace)
    hidden = [env.workspace.private()]
    ran = server.call_tool(env.workspace.root, call.tool, call.arguments, call.timeout_s, hidden=hidden)
    error = _call_error(call.tool, ran)
    changed = _changed(env.workspace, before)
    if error is None and changed:
        error = _reread(env, app)
    if error is not None:
        _restore(env.workspace, before, changed)
        _reread(env, app)
        changed = []
    result = ActionResult(ok=error is None, status="ok" if error is None else "error", output=_clip(ran.text),
                          error=ActionError(code="mcp_tool_failed", message=error) if error else None,
                          changed=changed, observation=env.observe(app),
                          latency_ms=(time.perf_counter() - started) * 1000)  # save, server start, call, re-read
    return env._outcome(result, terminated=False)  # the channel is part of Env's step machinery


def _list_tools(env: Env) -> StepOutcome:
    import json

    started = time.perf_counter()
    listed = json.dumps(list(server.server_tools()), ensure_ascii=False)
    result = ActionResult(ok=True, status="ok", output=listed, observation=env.observe(),
                          latency_ms=(time.perf_counter() - started) * 1000)
    return env._outcome(result, terminated=False)


def _call_error(tool: str, ran: server.ToolCall) -> str | None:
    if ran.failure is not None:
        return f"{ran.failure}; the workspace was left as it was before this step."
    if ran.error:
        said = ran.text.strip().removeprefix("Error: ").splitlines()[0] if ran.text.strip() else "no message"
        return f"The draw.io MCP server refused {tool}: {said.rstrip('.')}; the workspace was left as it was before this step."
    return None


def _diagram_bytes(workspace: Workspace) -> dict[str, bytes]:
    """The bytes of every file the server's page tools may write (``.drawio`` and ``.xml``), to restore."""
    return {name: (workspace.root / name).read_bytes() for name in workspace.files()
            if name.lower().endswith((".drawio", ".xml"))}


def _changed(workspace: Workspace, before: dict[str, bytes]) -> list[str]:
    now = _diagram_bytes(workspace)
    return sorted(name for name in set(now) | set(before) if now.get(name) != before.get(name))


def _restore(workspace: Workspace, before: dict[str, bytes], changed: list[str]) -> None:
    from asil.workspace import atomic_write

    for name in changed:
        if name in before:
            atomic_write(workspace.root / name, before[name])
        else:  # the server's tools never create files; a stray one left by a crash goes
            (workspace.root / name).unlink(missing_ok=True)


def _reread(env: Env, app: str) -> str | None:
    """Reopen the app's diagram from disk; the sentence of why draw.io's format cannot read it, else None."""
    assert env.workspace is not None
    adapter = env.adapters[app]
    adapter.close()
    try:
        env.adapters[app] = adapter_class(app)(env.workspace, adapter.document, **env.task.options_for(app))
    except AsilError as exc:
        env.adapters[app] = adapter  # until the restore puts the readable file back
        return (f"The server wrote a diagram that draw.io's format cannot read ({exc.message.rstrip('.')}); "
                "the file was restored to its state before this step.")
    return None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_OUTPUT else text[: MAX_OUTPUT // 2] + "\n...\n" + text[-MAX_OUTPUT // 2:]


__all__ = ["CHANNEL", "LIST_TOOLS", "McpCall", "drawio_mcp_step", "step_call"]
