"""GuiEnv: one task's episode through screenshots and real X input on the real program.

The task's workspace is built as for every participant; the task's first app's plugin record names its
GUI launch spec (``AppPlugin.gui``, ``"module:function"``), which starts the real program with its window
on the task's document in a private Xvfb and returns a :class:`GuiSession`. Each step is one
computer-use action (:mod:`asil.gui.vocabulary`) sent with xdotool, followed by the settle wait and a
screenshot. At the end the session's ``sync`` brings the GUI's state to the files (LibreOffice: store the
document through the same LibreOffice), the program is stopped, and the task's unchanged evaluator
judges the files, exactly as for ASIL, UNO or any other participant.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any, Protocol

from asil.evaluate.evaluator import Evaluation, evaluate_paths
from asil.gui import capture, xinput
from asil.gui.accessibility import widget_tree
from asil.gui.vocabulary import Screen, check_gui_action
from asil.plugins import plugin
from asil.protocol import ActionError, AsilError, InvalidAction
from asil.registry import load_target
from asil.tasks.model import Task
from asil.tasks.setup import prepare_workspace
from asil.workspace import Workspace

LAUNCH_QUIET_S = 0.4  # a program that has just started is taken as shown once its screen is still this long
# (shorter than the 0.5 s text-cursor blink of Writer and Impress, which would otherwise never let it be still)
LAUNCH_SETTLE_CAP_S = 15.0
SCREEN = (1280, 800)  # every GUI launch spec's private display, in pixels
GUI_BUDGET = 50  # the paper's GUI / 50max; reports can cut runs at 15 (GUI / 15max)


class GuiSession(Protocol):
    """What an app's GUI launch spec returns: a running program with its window on a private display.

    A session may also set ``settle_grace_s`` (seconds) when its program takes longer than
    capture.CHANGE_GRACE_S to show an action's effect, so the screenshot after a step is not the old one.
    A session whose program publishes its widgets on an AT-SPI bus also has ``accessibility_address()``
    (the bus address, or None when started without one), and its launch spec takes ``accessibility=True``
    when the bus is started only on request (see asil.gui.accessibility).
    """

    display_name: str  # the DISPLAY value, e.g. ":12"
    size: tuple[int, int]

    def sync(self) -> str: ...  # bring the GUI's state to the files the evaluator reads; say how

    def stop(self) -> None: ...


@dataclass
class GuiStep:
    """One step's outcome: how it ended, the screen after it, and whether the episode is over."""

    status: str  # ok | invalid | error
    screen: Screen
    latency_ms: float
    error: ActionError | None = None
    terminated: bool = False
    truncated: bool = False
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class NoGuiSpec(InvalidAction):
    code = "no_gui"


def gui_launcher(app: str) -> Any:
    """The app's GUI launch spec, or NoGuiSpec naming the apps that have one."""
    from asil.plugins import app_names

    target = plugin(app).gui
    if target is None:
        having = [name for name in app_names() if plugin(name).gui]
        raise NoGuiSpec(f"The app {app!r} has no GUI launch spec; GUI episodes run on {', '.join(having)}.")
    return load_target(target)


class GuiEnv:
    """An episode of screenshot-and-click control: reset, step with a budget, sync, evaluate."""

    def __init__(self, task: Task, budget: int | None = None, workspace: Workspace | None = None,
                 accessibility: bool = False):
        self.task = task
        self.accessibility = accessibility  # add the program's widget tree to every observation
        self.budget = budget or GUI_BUDGET
        self._workspace_given = workspace
        self.workspace: Workspace | None = None
        self.session: GuiSession | None = None
        self.steps = 0
        self.outcome: str | None = None
        self.answer: str | None = None
        self.sync_note: str | None = None
        self.launch_s = 0.0
        self._frame: capture.Frame | None = None

    @property
    def size(self) -> tuple[int, int]:
        assert self.session is not None
        return self.session.size

    def reset(self) -> Screen:
        """A fresh workspace, the real program started on it, and the first settled screenshot."""
        self.close()
        gui_launcher(self.task.apps[0])  # an app without a GUI is refused before its workspace is built
        self.workspace = prepare_workspace(self.task, self._workspace_given)
        started = time.perf_counter()
        app = self.task.apps[0]
        self.session, self._frame = launch_session(app, self.workspace, self.task.document_for(app),
                                                   self.accessibility)
        self.launch_s = time.perf_counter() - started
        self.steps, self.outcome, self.answer, self.sync_note = 0, None, None, None
        return self.screen()

    def screen(self, notes: list[str] | None = None) -> Screen:
        assert self._frame is not None
        width, height = self.size
        tree = self._tree() if self.accessibility else None
        return Screen(capture.png_bytes(self._frame), width, height, self.steps, notes or [], tree)

    def _tree(self) -> str:
        assert self.session is not None
        return widget_tree(self.session, self.task.apps[0])

    def step(self, params: dict[str, Any]) -> GuiStep:
        """Check and run one computer-use action; every step counts toward the budget."""
        assert self.session is not None, "step() before reset()"
        started = time.perf_counter()
        self.steps += 1
        name = params.get("action")
        if name in ("done", "infeasible"):
            self.outcome = str(name)
            self.answer = str(params["reason"]) if params.get("reason") is not None else None
            return GuiStep("ok", self.screen(), 0.0, terminated=True, reason=str(name))
        try:
            check_gui_action(params, self.size)
            self._run(params)
        except AsilError as exc:  # refused before any input was sent, or xdotool failed
            status = "invalid" if isinstance(exc, InvalidAction) else "error"
            return self._finish(GuiStep(status, self.screen(), _ms(started), error=exc.to_error()))
        return self._finish(GuiStep("ok", self.screen(), _ms(started)))

    def _run(self, params: dict[str, Any]) -> None:
        assert self.session is not None
        grace = getattr(self.session, "settle_grace_s", capture.CHANGE_GRACE_S)
        self._frame = perform(self.session.display_name, params, self._frame, grace)

    def _finish(self, step: GuiStep) -> GuiStep:
        if self.steps >= self.budget:
            step.truncated, step.reason = True, "budget"
        return step

    def sync(self) -> str:
        """Bring the GUI's state to the task's files (the app's own sync) and say how."""
        assert self.session is not None
        self.sync_note = self.session.sync()
        return self.sync_note

    def restart(self) -> Screen:
        """Sync, stop the program and start it again on the same files (what a person's reopening shows)."""
        assert self.workspace is not None
        self.sync()
        self._stop_session()
        app = self.task.apps[0]
        self.session, self._frame = launch_session(app, self.workspace, self.task.document_for(app),
                                                   self.accessibility)
        return self.screen()

    def evaluate(self) -> Evaluation:
        """Sync, stop the program, and judge the task's files with its unchanged evaluator."""
        if self.workspace is None:
            raise RuntimeError("evaluate() before reset()")
        if self.session is not None:
            self.sync()
        self._stop_session()
        return evaluate_paths(self.task.evaluator.paths, self.workspace, self.outcome, self.answer)

    def _stop_session(self) -> None:
        if self.session is not None:
            self.session.stop()
            self.session = None

    def close(self, remove_workspace: bool = True) -> None:
        self._stop_session()
        if self.workspace is not None and remove_workspace and self._workspace_given is None:
            self.workspace.cleanup()
        self.workspace = None


def perform(display: str, params: dict[str, Any], before: capture.Frame | None,
            grace_s: float = capture.CHANGE_GRACE_S) -> capture.Frame:
    """Send one checked computer-use step to ``display`` and return the screen once it has settled
    (``grace_s``: how long a program may take to show the step's effect, see GuiSession)."""
    if params["action"] == "wait":  # the one step that waits on purpose: the agent asked for it
        time.sleep(float(params.get("seconds", 1)))
    xinput.send(display, params)
    return capture.settle(display, before=before, grace_s=grace_s)


def launch_session(app: str, workspace: Workspace, document: str | None,
                   accessibility: bool = False) -> tuple[GuiSession, capture.Frame]:
    """Start ``app``'s GUI launch spec on ``workspace`` and wait for its first settled screen
    (``accessibility``: ask for an accessibility bus, where the launch spec can start one)."""
    launcher = gui_launcher(app)
    if accessibility and "accessibility" in inspect.signature(launcher).parameters:
        session = launcher(workspace, document, accessibility=True)
    else:
        session = launcher(workspace, document)
    try:
        return session, capture.settle(session.display_name, cap_s=LAUNCH_SETTLE_CAP_S, quiet_s=LAUNCH_QUIET_S)
    except BaseException:
        session.stop()
        raise


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


__all__ = ["GUI_BUDGET", "SCREEN", "GuiEnv", "GuiSession", "GuiStep", "gui_launcher", "launch_session", "perform"]
