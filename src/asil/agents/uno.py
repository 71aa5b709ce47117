"""The LibreOffice UNO native baseline: a model that writes Python-UNO code, run on the ``uno`` channel.

It sees what a UNO-scripting agent has: the task's instruction, the document's file name and kind, and
what its own code printed (or the error it raised) - never ASIL's observation JSON. One model call per
step; the reply is ``{"thought": ..., "code": ...}``, or ``done`` / ``infeasible``. With the ``scripted``
model it replays the UNO demonstrations stored in ``asil/native/demos/<task-id>.py`` through the same
prompt, parse and channel path.
"""

from __future__ import annotations

from importlib import resources
from pathlib import PurePosixPath
from typing import Any

from asil.agents.base import Decision
from asil.agents.llm_agent import FeedsBackUnusableReplies, ModelClient
from asil.agents.prompting import render
from asil.llm.base import LLMError, Message
from asil.llm.parse import DecisionParseError
from asil.llm.scripted import REPLY_SHAPES, ScriptedProvider
from asil.protocol import Action, ActionResult, ActionSchema, Observation
from asil.tasks.model import Task

PROMPTS = "asil.agents"
STEP_TIMEOUT_S = 30.0
OUTPUT_SHOWN = 1500  # characters of a step's printed output quoted back in the history
# What the agent is told about the document, by file type (the UNO document service it will meet).
DOCUMENT_KINDS = {".ods": "spreadsheet, com.sun.star.sheet.SpreadsheetDocument",
                  ".odt": "text document, com.sun.star.text.TextDocument",
                  ".odp": "presentation, com.sun.star.presentation.PresentationDocument"}


def demonstration(task_id: str) -> str | None:
    """The stored UNO demonstration for a task (``asil/native/demos/<task-id>.py``), or None."""
    demo = resources.files("asil.native").joinpath("demos", f"{task_id}.py")
    return demo.read_text(encoding="utf-8") if demo.is_file() else None


def scripted_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """What the ``scripted`` provider replies to a UNO call: the task's demonstration, then done."""
    task = script.task
    code = demonstration(task.id) if task is not None else None
    if code is None:
        raise LLMError(f"No scripted UNO demonstration for task {task.id if task else '?'!r}.",
                       hint="Demonstrations are asil/native/demos/<task-id>.py.")
    if context.get("step", 0) == 0:
        return {"thought": "Run the stored UNO demonstration.", "code": code}
    return {"thought": "The demonstration ran; the task is complete.", "done": True}


REPLY_SHAPES.add("uno", scripted_reply)


def _check_reply(data: dict[str, Any]) -> None:
    if data.get("done") is True or isinstance(data.get("infeasible"), str):
        return
    if not isinstance(data.get("code"), str) or not data["code"].strip():
        raise DecisionParseError("The reply has no 'code' (Python source) and is not done or infeasible.",
                                 hint='{"thought": ..., "code": "..."} or {"thought": ..., "done": true}')


def reply_action(data: dict[str, Any]) -> tuple[Action, str]:
    """The step a checked reply asks for, and its channel: UNO code, or the end of the episode."""
    if data.get("done") is True:
        return Action(action_type="done"), "api"
    if isinstance(data.get("infeasible"), str):
        return Action(action_type="infeasible", params={"reason": data["infeasible"]}), "api"
    return Action(action_type="invoke_function", target="uno",
                  params={"code": data["code"], "timeout_s": STEP_TIMEOUT_S}), "uno"


class UnoAgent(FeedsBackUnusableReplies):
    """Python-UNO code, one model call per step, over the task, its document and its own printed output."""

    name = "uno"

    def __init__(self, model: str = "scripted", stall_cutoff: int = 3, **options: Any):
        self.client = ModelClient.from_options(model, **options)
        self.stall_cutoff = stall_cutoff
        self.task: Task | None = None
        self.history: list[str] = []
        self.parse_failures = self.parse_errors = self.steps = 0
        self._pending: str | None = None

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self.task = task  # the schemas are ASIL's actions: a UNO agent does not see them
        self.client.bind(task)
        self.history, self._pending = [], None
        self.parse_failures = self.parse_errors = self.steps = 0

    def act(self, observation: Observation, last: ActionResult | None) -> Decision:
        self._remember(last)
        if (stop := self._stalled()) is not None:
            return stop  # type: ignore[no-any-return]
        data = self._reply("uno", self._messages(), {"step": self.steps}, check=_check_reply)
        if isinstance(data, Decision):
            return data
        self.steps += 1
        action, channel = reply_action(data)
        self._pending = action.params.get("code") if channel == "uno" else None
        return Decision(action=action, channel=channel, thought=str(data.get("thought", "")),
                        tokens=self.client.take_tokens())

    def _messages(self) -> list[Message]:
        assert self.task is not None
        document = self.task.document_for(self.task.apps[0]) or ""
        kind = DOCUMENT_KINDS.get(PurePosixPath(document).suffix, "document")
        system = render(PROMPTS, "uno_system.md", timeout=f"{STEP_TIMEOUT_S:g}")
        user = render(PROMPTS, "uno_user.md", instruction=self.task.instruction, document=document, kind=kind,
                      history="\n\n".join(self.history) or "(none yet)")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _remember(self, last: ActionResult | None) -> None:
        """The code just run, what it printed and how it ended: all a UNO agent learns from a step."""
        if self._pending is None or last is None:
            return
        outcome = "ran to its end" if last.ok else f"failed: {last.error.message if last.error else last.status}"
        printed = (last.output or "").strip()[-OUTPUT_SHOWN:] or "(nothing printed)"
        self.history.append(f"{len(self.history) + 1}. code:\n{self._pending}\n-> {outcome}\nprinted:\n{printed}")
        self._pending = None

    def metrics(self, termination: str) -> dict[str, Any]:
        return {"model_calls": self.client.usage.as_dict(), "tokens": self.client.usage.totals(),
                "repairs": self.client.repairs, "parse_errors": self.parse_errors}
