"""The draw.io MCP native baseline: a model that calls the official draw.io MCP server's tools.

It sees what an MCP client's model has: the task's instruction, the diagram's file name, the tools the
server lists (names, descriptions, input schemas, as the server words them) and the answers of its own
calls - never ASIL's observation JSON or action schemas. Before its first model call it makes the MCP
handshake (``tools/list`` on the ``drawio-mcp`` channel), as every MCP client does. One model call per
step; the reply is ``{"thought": ..., "tool": ..., "arguments": {...}}``, or ``done`` / ``infeasible``.
With the ``scripted`` model it replays the demonstrations stored in
``asil/native/mcp_demos/<task-id>.json`` through the same prompt, parse and channel path.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from asil.agents.base import Decision
from asil.agents.llm_agent import FeedsBackUnusableReplies, ModelClient
from asil.agents.prompting import render
from asil.llm.base import LLMError, Message
from asil.llm.parse import DecisionParseError
from asil.llm.scripted import REPLY_SHAPES, ScriptedProvider
from asil.protocol import Action, ActionResult, ActionSchema, AsilError, Observation
from asil.tasks.model import Task

PROMPTS = "asil.agents"
CHANNEL = "drawio-mcp"  # asil.native.drawio_mcp.CHANNEL: agents do not import the channels' side
LIST_TOOLS = "tools/list"
ANSWER_SHOWN = 12_000  # characters of a call's answer quoted back: a page's whole XML must fit
ARGUMENT_SHOWN = 300  # characters of each string argument quoted back (the model wrote them itself)


def demonstration(task_id: str) -> list[dict[str, Any]] | None:
    """The stored MCP demonstration of a task (``asil/native/mcp_demos/<task-id>.json``): its calls, or None."""
    demo = resources.files("asil.native").joinpath("mcp_demos", f"{task_id}.json")
    if not demo.is_file():
        return None
    calls: list[dict[str, Any]] = json.loads(demo.read_text(encoding="utf-8"))["calls"]
    return calls


def scripted_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """What the ``scripted`` provider replies to a draw.io MCP call: the demonstration's calls, then done."""
    task = script.task
    calls = demonstration(task.id) if task is not None else None
    if calls is None:
        raise LLMError(f"No scripted draw.io MCP demonstration for task {task.id if task else '?'!r}.",
                       hint="Demonstrations are asil/native/mcp_demos/<task-id>.json.")
    step = int(context.get("step", 0))
    if step < len(calls):
        return dict(calls[step])
    return {"thought": "The demonstration's calls ran; the task is complete.", "done": True}


REPLY_SHAPES.add(CHANNEL, scripted_reply)


def _check_reply(data: dict[str, Any]) -> None:
    if data.get("done") is True or isinstance(data.get("infeasible"), str):
        return
    if not isinstance(data.get("tool"), str) or not data["tool"].strip():
        raise DecisionParseError("The reply names no 'tool' and is not done or infeasible.",
                                 hint='{"thought": ..., "tool": "get_page", "arguments": {...}} or {"done": true}')
    if not isinstance(data.get("arguments", {}), dict):
        raise DecisionParseError("The reply's 'arguments' is not a JSON object.",
                                 hint='{"thought": ..., "tool": "list_pages", "arguments": {"path": "x.drawio"}}')


def reply_action(data: dict[str, Any]) -> tuple[Action, str]:
    """The step a checked reply asks for, and its channel: a tool call, or the end of the episode."""
    if data.get("done") is True:
        return Action(action_type="done"), "api"
    if isinstance(data.get("infeasible"), str):
        return Action(action_type="infeasible", params={"reason": data["infeasible"]}), "api"
    return Action(action_type="invoke_function", target=data["tool"],
                  params={"arguments": data.get("arguments", {})}), CHANNEL


class DrawioMcpAgent(FeedsBackUnusableReplies):
    """Tool calls to the draw.io MCP server, one model call per step, over the task and the calls' answers."""

    name = CHANNEL

    def __init__(self, model: str = "scripted", stall_cutoff: int = 3, **options: Any):
        self.client = ModelClient.from_options(model, **options)
        self.stall_cutoff = stall_cutoff
        self.task: Task | None = None
        self.tools: str | None = None  # the server's tool list, as JSON text
        self.history: list[str] = []
        self.parse_failures = self.parse_errors = self.steps = 0
        self._pending: Action | None = None

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self.task = task  # the schemas are ASIL's actions: an MCP client's model does not see them
        self.client.bind(task)
        self.tools, self.history, self._pending = None, [], None
        self.parse_failures = self.parse_errors = self.steps = 0

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        if self.tools is None:
            handshake = self._handshake(last)
            if handshake is not None:
                return handshake
            last = None  # the tool list is not an answer to one of the model's calls
        self._remember(last)
        if (stop := self._stalled()) is not None:
            return stop  # type: ignore[no-any-return]
        data = self._reply(CHANNEL, self._messages(), {"step": self.steps}, check=_check_reply)
        if isinstance(data, Decision):
            return data
        self.steps += 1
        action, channel = reply_action(data)
        self._pending = action if channel == CHANNEL else None
        return Decision(action=action, channel=channel, thought=str(data.get("thought", "")),
                        tokens=self.client.take_tokens())

    def _handshake(self, last: ActionResult | None) -> Decision | None:
        """The MCP session's start: list the tools (no model call); their list goes into every prompt.
        None once the list has come back."""
        if last is None:
            return Decision(action=Action(action_type="invoke_function", target=LIST_TOOLS), channel=CHANNEL,
                            thought="MCP handshake: list the server's tools")
        if not last.ok or not last.output:  # e.g. the task is not a draw.io task: there is nothing to call
            reason = last.error.message if last.error else "the server listed no tools"
            raise AsilError(f"The draw.io MCP handshake failed: {reason}")
        self.tools = last.output
        return None

    def _messages(self) -> list[Message]:
        assert self.task is not None and self.tools is not None
        document = self.task.document_for(self.task.apps[0]) or ""
        tools = json.dumps(json.loads(self.tools), indent=1, ensure_ascii=False)
        system = render(PROMPTS, "drawio_mcp_system.md", tools=tools)
        user = render(PROMPTS, "drawio_mcp_user.md", instruction=self.task.instruction, document=document,
                      history="\n\n".join(self.history) or "(none yet)")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _remember(self, last: ActionResult | None) -> None:
        """The call just made and the server's answer: all an MCP client's model learns from a step."""
        if self._pending is None or last is None:
            return
        shown = {k: _short(v) for k, v in self._pending.params.get("arguments", {}).items()}
        outcome = "answered" if last.ok else f"failed: {last.error.message if last.error else last.status}"
        answer = (last.output or "").strip()
        answer = answer if len(answer) <= ANSWER_SHOWN else answer[:ANSWER_SHOWN] + " ... (cut)"
        self.history.append(f"{len(self.history) + 1}. {self._pending.target} {json.dumps(shown, ensure_ascii=False)}"
                            f"\n-> {outcome}\n{answer or '(no text)'}")
        self._pending = None

    def metrics(self, termination: str) -> dict[str, Any]:
        return {"model_calls": self.client.usage.as_dict(), "tokens": self.client.usage.totals(),
                "repairs": self.client.repairs, "parse_errors": self.parse_errors}


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > ARGUMENT_SHOWN:
        return value[:ARGUMENT_SHOWN] + f"... ({len(value)} characters)"
    return value
