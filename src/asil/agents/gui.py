"""The GUI participant: a multimodal model that sees screenshots and answers computer-use actions.

Each step sends the task, the numbered history of its own actions and how they ended, and the current
screenshot as an OpenAI image content part (``{"type": "image_url", "image_url": {"url": "data:image/png;
base64,..."}}``) to any OpenAI-compatible endpoint through the shared client; the reply is one JSON
action of :mod:`asil.gui.vocabulary`. It never sees ASIL's observation JSON or action schemas. With the
``scripted`` model it replays the recorded GUI demonstration of the task (``asil/gui/demos/<task>.json``)
through the same prompt, parse and environment path. With ``accessibility_tree`` the environment adds
the program's widget tree (role, name, screen box, states per line) and it is sent as a text part after
the screenshot; the actions stay the same.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from asil.agents.base import Decision
from asil.agents.llm_agent import FeedsBackUnusableReplies, ModelClient
from asil.agents.prompting import image_part, render
from asil.gui.vocabulary import ACTIONS, Screen, gui_action
from asil.llm.base import LLMError, Message
from asil.llm.parse import DecisionParseError
from asil.llm.scripted import ScriptedProvider
from asil.protocol import ActionResult, ActionSchema
from asil.tasks.model import Task

PROMPTS = "asil.agents"
HISTORY_SHOWN = 20  # the last steps quoted back; the screenshot carries the state itself


def demonstration(task_id: str) -> list[dict[str, Any]] | None:
    """The recorded GUI demonstration of a task (``asil/gui/demos/<task-id>.json``), or None."""
    demo = resources.files("asil.gui").joinpath("demos", f"{task_id}.json")
    return list(json.loads(demo.read_text(encoding="utf-8"))) if demo.is_file() else None


def scripted_reply(script: ScriptedProvider, context: dict[str, Any], fault: str | None) -> dict[str, Any]:
    """What the ``scripted`` provider replies to a GUI call: the demonstration's next step, then done."""
    task = script.task
    steps = demonstration(task.id) if task is not None else None
    if steps is None:
        raise LLMError(f"No recorded GUI demonstration for task {task.id if task else '?'!r}.",
                       hint="Demonstrations are asil/gui/demos/<task-id>.json.")
    step = int(context.get("step", 0))
    if step < len(steps):
        return {"thought": f"Recorded step {step + 1} of {len(steps)}.", **steps[step]}
    return {"thought": "The demonstration is complete.", "action": "done"}



def _check_reply(data: dict[str, Any]) -> None:
    if data.get("action") not in ACTIONS:
        raise DecisionParseError(f"The reply's 'action' must be one of {', '.join(ACTIONS)}.",
                                 hint='{"thought": ..., "action": "left_click", "x": 10, "y": 20}')


class GuiAgent(FeedsBackUnusableReplies):
    """Screenshot in, one computer-use action out, one model call per step."""

    name = "gui"
    interface = "gui"  # the runner gives it screenshots (asil.gui), not ASIL observations

    def __init__(self, model: str = "scripted", stall_cutoff: int = 3, accessibility_tree: bool = False,
                 **options: Any):
        self.client = ModelClient.from_options(model, **options)
        self.accessibility_tree = accessibility_tree  # the runner asks the environment for the widget tree
        self.stall_cutoff = stall_cutoff
        self.task: Task | None = None
        self.history: list[str] = []
        self.parse_failures = self.parse_errors = self.steps = 0
        self._pending: dict[str, Any] | None = None

    def reset(self, task: Task, schemas: dict[str, ActionSchema]) -> None:
        self.task = task  # no schemas: a GUI agent knows the screen, not ASIL's actions
        self.client.bind(task)
        self.history, self._pending = [], None
        self.parse_failures = self.parse_errors = self.steps = 0

    def act(self, observation: Screen, last: ActionResult | None) -> Decision:
        self._remember(last)
        if (stop := self._stalled()) is not None:
            return stop  # type: ignore[no-any-return]
        data = self._reply("gui", self._messages(observation), {"step": self.steps}, check=_check_reply)
        if isinstance(data, Decision):
            return data
        self.steps += 1
        params = {k: v for k, v in data.items() if k != "thought"}
        self._pending = params
        return Decision(action=gui_action(params), channel="gui", thought=str(data.get("thought", "")),
                        tokens=self.client.take_tokens())

    def _messages(self, screen: Screen) -> list[Message]:
        assert self.task is not None
        system = render(PROMPTS, "gui_system.md", width=screen.width, height=screen.height)
        history = "\n".join(self.history[-HISTORY_SHOWN:]) or "(none yet)"
        text = render(PROMPTS, "gui_user.md", instruction=self.task.instruction,
                      document=self.task.document_for(self.task.apps[0]) or "", history=history)
        parts: list[dict[str, Any]] = [{"type": "text", "text": text}, image_part(screen.png)]
        if screen.accessibility is not None:  # the widget tree, as text next to the picture
            parts.append({"type": "text", "text": screen.accessibility})
        return [{"role": "system", "content": system}, {"role": "user", "content": parts}]

    def _remember(self, last: ActionResult | None) -> None:
        """The action just sent and how it ended (the screenshot shows its effect)."""
        if self._pending is None or last is None:
            return
        outcome = "ok" if last.ok else f"{last.status}: {last.error.message if last.error else ''}"
        self.history.append(f"{len(self.history) + 1}. {json.dumps(self._pending)} -> {outcome}")
        self._pending = None

    def metrics(self, termination: str) -> dict[str, Any]:
        return {"model_calls": self.client.usage.as_dict(), "tokens": self.client.usage.totals(),
                "repairs": self.client.repairs, "parse_errors": self.parse_errors}
