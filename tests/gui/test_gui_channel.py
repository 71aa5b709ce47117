"""The ``gui`` execution channel of an ASIL episode (Env.dispatch("gui", ...)) on the real LibreOffice:
steps of other channels between GUI steps are never lost, and refused GUI steps start nothing and change
nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import pytest

from asil.env import Env
from asil.protocol import Action
from asil.tasks import get_task

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def gui(**params: Any) -> Action:
    return Action(action_type="invoke_function", target="gui", params=params)


def api_cell(cell: str, value: str) -> Action:
    return Action(action_type="invoke_function", target="set_range", params={"range": f"Orders!{cell}",
                                                                             "values": [[value]]})


@pytest.fixture
def env() -> Iterator[Env]:
    env = Env(get_task("calc-total-column"))
    env.reset()
    yield env
    env.close()


def test_api_steps_between_gui_steps_survive_the_window_saving(env: Env) -> None:
    # D2 is written through ASIL while the window is open on the old file: the next GUI step must start from
    # the new file (a stale window saving over it would lose D2).
    plan = [("gui", gui(action="key", keys="ctrl+Home Right Right Right")), ("gui", gui(action="type", text="Total\n")),
            ("api", api_cell("D2", "=B2*C2")),
            ("gui", gui(action="key", keys="ctrl+Home Down Down Right Right Right")),
            ("gui", gui(action="type", text="=B3*C3\n=B4*C4\n=B5*C5\n")),
            ("api", api_cell("D6", "=SUM(D2:D5)"))]
    for channel, action in plan:
        outcome = env.dispatch(channel, action)
        assert outcome.result.ok, (channel, outcome.result.error)
    evaluation = env.evaluate()
    assert evaluation.success, evaluation.checkpoints


def document_digest(env: Env) -> str:
    assert env.workspace is not None
    return hashlib.sha256((env.workspace.root / "sales.ods").read_bytes()).hexdigest()


@pytest.mark.parametrize(("params", "says"), [
    ({"action": "left_click", "x": 5000, "y": 10}, "a pixel coordinate from 0 to 1279 on this 1280x800 screen"),
    ({"action": "key", "keys": "ctrl+Nope"}, "Unknown key 'Nope'"),
    ({"action": "done"}, "end the episode with a control"),
])
def test_a_refused_gui_step_starts_no_window_and_leaves_the_file_alone(env: Env, params: dict[str, Any],
                                                                       says: str) -> None:
    before = document_digest(env)
    outcome = env.dispatch("gui", gui(**params))
    assert outcome.result.status == "invalid" and outcome.result.error is not None
    assert says in outcome.result.error.message and outcome.result.error.message.endswith(".")
    assert env.channel_sessions == {} and document_digest(env) == before and env.steps == 1


def test_an_app_without_a_gui_launch_spec_is_refused_in_one_sentence() -> None:
    env = Env(get_task("dia-widen-ship"))
    try:
        env.reset()
        outcome = env.dispatch("gui", gui(action="key", keys="ctrl+s"))
        error = outcome.result.error
        assert outcome.result.status == "invalid" and error is not None
        assert "The app 'dia' has no GUI launch spec; GUI episodes run on" in error.message and "calc" in error.message
        assert env.channel_sessions == {}
    finally:
        env.close()


def test_a_service_app_is_refused_because_its_window_would_share_the_adapters_program() -> None:
    env = Env(get_task("nautilus-rename-draft"))
    try:
        env.reset()
        outcome = env.dispatch("gui", gui(action="key", keys="F2"))
        error = outcome.result.error
        assert outcome.result.status == "invalid" and error is not None
        assert error.message.startswith("The gui channel runs on file-backed apps") and env.channel_sessions == {}
    finally:
        env.close()
