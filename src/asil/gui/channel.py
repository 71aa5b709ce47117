"""The ``gui`` execution channel of an ASIL episode: computer-use input on the app's real window.

LocalLSTC routes each step to GUI, Bash or API (ASIL actions). A GUI step is recorded as an
``invoke_function`` on target ``gui`` whose params are one computer-use action (:mod:`asil.gui.vocabulary`).
The first GUI step starts the app's GUI launch spec (``AppPlugin.gui``) on the episode's own workspace,
after every adapter saved, so the window shows the current state; later GUI steps reuse the window. After
each step the app's GUI-to-canonical sync saves through the program and the adapters reopen the documents
it changed, so the next observation, whatever channel comes next, shows what the input did. When an API or
Bash step has changed a document since, the next GUI step starts the program again on the new file: an open
window would still show the old state. Only file-backed apps take GUI steps here: a service app's GUI launch
spec starts its own program on the workspace's private area, which the adapter's program already holds.

:class:`asil.env.Env` finds this channel by name (``CHANNELS``), so importing Env starts no GUI code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asil.gui import capture
from asil.gui.environment import SCREEN, GuiSession, gui_launcher, launch_session, perform
from asil.gui.vocabulary import check_gui_action
from asil.plugins import plugin
from asil.protocol import Action, ActionResult, AsilError, InvalidAction

if TYPE_CHECKING:
    from asil.env import Env, StepOutcome

SESSION = "gui"  # the key of the open window among the episode's channel sessions


@dataclass
class GuiWindow:
    """The app's real window on the episode's workspace, kept open between GUI steps."""

    app: str
    session: GuiSession
    frame: capture.Frame
    stamps: dict[str, tuple[int, int]]  # the workspace's files as the window last saw them

    def screenshot(self) -> bytes:
        return capture.png_bytes(self.frame)

    def close(self) -> None:
        self.session.stop()


def gui_step(env: Env, action: Action) -> StepOutcome:
    """One computer-use step on the app's window, synced to the files and re-observed through ASIL."""
    app = action.app or env.task.apps[0]
    params = dict(action.params)
    if app not in env.adapters:
        return env.reject(InvalidAction(f"This task has no app {app!r}.",
                                        hint=f"Apps of this task: {', '.join(env.task.apps)}."))
    if params.get("action") in ("done", "infeasible"):
        return env.reject(InvalidAction("A gui step is input to the window; end the episode with a control "
                                        "(done or infeasible) instead."))
    if plugin(app).pattern != "file":
        return env.reject(InvalidAction(
            f"The gui channel runs on file-backed apps, whose window and adapter share only the document; {app!r} "
            f"keeps its state in its own running program, which a second, visible instance must not share.",
            hint="Use the api channel here, or a GUI episode (--agent gui) for this app's window."))
    try:
        gui_launcher(app)
        check_gui_action(params, SCREEN)
    except InvalidAction as exc:  # refused before any program starts
        return env.reject(exc)
    started = time.perf_counter()
    env.steps += 1
    env.active_app = app
    for adapter in env.adapters.values():  # the window opens on the state the other channels left
        adapter.save()
    saved = env._document_stamps()
    error = None
    note = ""
    try:
        window = _window(env, app, saved)
        window.frame = perform(window.session.display_name, check_gui_action(params, window.session.size),
                               window.frame)
        note = window.session.sync()
    except AsilError as exc:
        error = exc.to_error()
    env._reopen_changed(saved)
    after = env._document_stamps()
    if SESSION in env.channel_sessions:
        env.channel_sessions[SESSION].stamps = after
    changed = [path for path, stamp in after.items() if saved.get(path) != stamp]
    result = ActionResult(ok=error is None, status="ok" if error is None else "error", error=error, changed=changed,
                          output=f"{params['action']} sent to the {app} window; {note}" if error is None else None,
                          observation=env.observe(app), latency_ms=(time.perf_counter() - started) * 1000)
    return env._outcome(result, terminated=False)  # the channel is part of Env's step machinery


def _window(env: Env, app: str, saved: dict[str, tuple[int, int]]) -> GuiWindow:
    """The open window of ``app`` if it still shows the files as they are, else a freshly started one."""
    window = env.channel_sessions.get(SESSION)
    if isinstance(window, GuiWindow) and window.app == app and window.stamps == saved:
        return window
    if window is not None:
        env.channel_sessions.pop(SESSION).close()
    assert env.workspace is not None
    session, frame = launch_session(app, env.workspace, env.task.document_for(app))
    window = GuiWindow(app, session, frame, saved)
    env.channel_sessions[SESSION] = window
    return window


def last_screenshot(env: Env) -> bytes | None:
    """The screen after the episode's last GUI step (PNG), or None when no window is open."""
    window = env.channel_sessions.get(SESSION)
    return window.screenshot() if isinstance(window, GuiWindow) else None


__all__ = ["GuiWindow", "gui_step", "last_screenshot"]
