"""The computer-use vocabulary without a display: what each checked action sends through xdotool, and what is
refused before any input (one sentence naming what was wrong and what is valid)."""

from __future__ import annotations

import pytest

from asil.gui.vocabulary import check_gui_action, gui_action, gui_params, key_sequence
from asil.gui.xinput import typing_runs, xdotool_argv
from asil.protocol import InvalidAction

SCREEN = (1280, 800)


@pytest.mark.parametrize(("params", "argv"), [
    ({"action": "double_click", "x": 10, "y": 20}, ["mousemove", "--sync", "10", "20", "click", "--repeat", "2",
                                                    "--delay", "60", "1"]),
    ({"action": "right_click", "x": 1, "y": 2}, ["mousemove", "--sync", "1", "2", "click", "--repeat", "1",
                                                 "--delay", "60", "3"]),
    ({"action": "scroll", "x": 5, "y": 6, "direction": "up", "amount": 2},
     ["mousemove", "--sync", "5", "6", "click", "--repeat", "2", "--delay", "30", "4"]),
    ({"action": "drag", "x": 1, "y": 2, "to_x": 30, "to_y": 40},
     ["mousemove", "--sync", "1", "2", "mousedown", "1", "mousemove", "--sync", "30", "40", "mouseup", "1"]),
    ({"action": "key", "keys": "ctrl+home enter PageDown"}, ["key", "--delay", "30", "--", "ctrl+Home", "Return", "Next"]),
    ({"action": "wait", "seconds": 1}, None),
])
def test_checked_actions_become_xdotool_input(params: dict[str, object], argv: list[str] | None) -> None:
    assert xdotool_argv(check_gui_action(params, SCREEN)) == argv


def test_typed_line_breaks_are_pressed_as_return() -> None:
    assert typing_runs("Total\n=B2*C2\n") == [{"action": "type", "text": "Total"}, {"action": "key", "keys": "Return"},
                                              {"action": "type", "text": "=B2*C2"}, {"action": "key", "keys": "Return"}]


@pytest.mark.parametrize(("params", "message"), [
    ({"action": "drag", "x": 1, "y": 2, "to_x": 3, "to_y": 800},
     "A drag action needs 'to_y', a pixel coordinate from 0 to 799 on this 1280x800 screen, not 800."),
    ({"action": "scroll", "x": 1, "y": 2, "direction": "sideways"}, "A scroll action's direction is up, down, left or right."),
    ({"action": "wait", "seconds": 60}, "A wait action's seconds is a number above 0 and at most 10."),
    ({"action": "key", "keys": ""}, 'A key action needs "keys", a non-empty string of key combos such as "ctrl+s" or '
     '"ctrl+Home Down Down".'),
    ({"action": "left_click", "x": True, "y": 3},
     "A left_click action needs 'x', a pixel coordinate from 0 to 1279 on this 1280x800 screen, not True."),
])
def test_invalid_actions_are_refused_in_one_sentence(params: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        check_gui_action(params, SCREEN)
    assert refused.value.message == message


def test_trace_form_round_trips() -> None:
    for params in ({"action": "type", "text": "x"}, {"action": "done"}, {"action": "infeasible", "reason": "no file"}):
        assert gui_params(gui_action(params)) == params
    assert gui_action({"action": "done"}).action_type == "done"
    assert key_sequence("shift+End Delete") == ["shift+End", "Delete"]
