"""The computer-use vocabulary and the screenshot observation, as model providers use them.

A GUI step is ``{"action": NAME, ...}``: ``left_click``, ``right_click``, ``double_click``,
``triple_click`` and ``mouse_move`` at ``x``, ``y``; ``drag`` from ``x``, ``y`` to ``to_x``, ``to_y``;
``scroll`` at ``x``, ``y`` (``direction`` up|down|left|right, ``amount`` clicks); ``type`` a ``text``;
``key`` a ``keys`` sequence of combos (``"ctrl+Home"``, ``"Return"``, ``"ctrl+shift+End Delete"``);
``wait`` ``seconds``; ``screenshot``; and ``done`` / ``infeasible`` (with a ``reason``), which end the
episode. In traces a step is an ASIL :class:`~asil.protocol.Action` (``invoke_function`` on target
``gui`` with these params) on the ``gui`` channel, so trajectories and reports read it like any step.
This module imports only the protocol: agents use it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from asil.protocol import Action, InvalidAction

POINTER = ("left_click", "right_click", "double_click", "triple_click", "mouse_move")
ACTIONS = (*POINTER, "drag", "scroll", "type", "key", "wait", "screenshot", "done", "infeasible")
MAX_WAIT_S = 10.0
MAX_SCROLL = 25
MAX_TEXT = 2000
# Names a model is likely to write, mapped to X keysyms (xdotool's names); any other keysym of the
# table below, a single printable character or F1-F24 is taken as written.
KEY_ALIASES = {"enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape", "tab": "Tab",
               "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "space": "space", "home": "Home",
               "end": "End", "pageup": "Prior", "page_up": "Prior", "pagedown": "Next", "page_down": "Next",
               "up": "Up", "down": "Down", "left": "Left", "right": "Right", "insert": "Insert",
               "ctrl": "ctrl", "control": "ctrl", "alt": "alt", "shift": "shift", "super": "super", "cmd": "super",
               "meta": "super", "menu": "Menu", "plus": "plus", "minus": "minus"}
KEYSYMS = set(KEY_ALIASES.values()) | {"Prior", "Next", "period", "comma", "slash", "backslash", "equal",
                                       "semicolon", "apostrophe", "bracketleft", "bracketright", "grave"}
_FUNCTION_KEY = re.compile(r"^F([1-9]|1[0-9]|2[0-4])$")


@dataclass
class Screen:
    """One observation: a PNG screenshot of the whole X display, its size in pixels, optionally the widget tree."""

    png: bytes
    width: int
    height: int
    step: int = 0
    notes: list[str] = field(default_factory=list)  # what the environment says besides the picture
    accessibility: str | None = None  # the program's widget tree as text, when the episode asked for it

    def digest(self) -> str:
        return hashlib.sha256(self.png).hexdigest()


def keysym(name: str) -> str:
    """The X keysym for one key name, or InvalidAction naming it and what is valid."""
    if name.lower() in KEY_ALIASES:
        return KEY_ALIASES[name.lower()]
    if name in KEYSYMS or _FUNCTION_KEY.match(name) or (len(name) == 1 and name.isprintable()):
        return name
    raise InvalidAction(f"Unknown key {name!r} in a key action; use names like Return, Tab, Escape, BackSpace, "
                        "Delete, Home, End, Up, Down, Left, Right, Prior, Next, F1-F24 or one character, "
                        "joined by + to modifiers ctrl, alt, shift, super.")


def key_sequence(keys: Any) -> list[str]:
    """``"ctrl+Home Right"`` -> ``["ctrl+Home", "Right"]`` in keysyms, or InvalidAction."""
    if not isinstance(keys, str) or not keys.strip():
        raise InvalidAction('A key action needs "keys", a non-empty string of key combos such as "ctrl+s" or '
                            '"ctrl+Home Down Down".')
    return ["+".join(keysym(part) for part in combo.split("+")) for combo in keys.split()]


def _coordinate(params: dict[str, Any], name: str, limit: int, size: tuple[int, int]) -> int:
    value = params.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < limit:
        raise InvalidAction(f"A {params.get('action')} action needs {name!r}, a pixel coordinate from 0 to "
                            f"{limit - 1} on this {size[0]}x{size[1]} screen, not {value!r}.")
    return int(value)


def check_gui_action(params: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    """The step's params, checked against the vocabulary and the screen; InvalidAction in one sentence."""
    name = params.get("action")
    if name not in ACTIONS:
        raise InvalidAction(f"Unknown GUI action {name!r}; valid actions are {', '.join(ACTIONS)}.")
    width, height = size
    if name in POINTER or name in ("drag", "scroll"):
        _coordinate(params, "x", width, size)
        _coordinate(params, "y", height, size)
    if name == "drag":
        _coordinate(params, "to_x", width, size)
        _coordinate(params, "to_y", height, size)
    if name == "scroll":
        if params.get("direction", "down") not in ("up", "down", "left", "right"):
            raise InvalidAction("A scroll action's direction is up, down, left or right.")
        amount = params.get("amount", 3)
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_SCROLL:
            raise InvalidAction(f"A scroll action's amount is a whole number of wheel clicks from 1 to {MAX_SCROLL}.")
    if name == "type":
        text = params.get("text")
        if not isinstance(text, str) or not text or len(text) > MAX_TEXT:
            raise InvalidAction(f'A type action needs "text", a non-empty string of at most {MAX_TEXT} characters.')
    if name == "key":
        key_sequence(params.get("keys"))
    if name == "wait":
        seconds = params.get("seconds", 1)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= MAX_WAIT_S:
            raise InvalidAction(f"A wait action's seconds is a number above 0 and at most {MAX_WAIT_S:g}.")
    return params


def gui_action(params: dict[str, Any]) -> Action:
    """The trace form of a GUI step: ``done``/``infeasible`` as control actions, the rest on target ``gui``."""
    name = params.get("action")
    if name == "done":
        return Action(action_type="done")
    if name == "infeasible":
        return Action(action_type="infeasible", params={"reason": str(params.get("reason", ""))})
    return Action(action_type="invoke_function", target="gui", params=dict(params))


def gui_params(action: Action) -> dict[str, Any]:
    """The computer-use params of a trace-form GUI step (the inverse of :func:`gui_action`)."""
    if action.action_type in ("done", "infeasible"):
        return {"action": action.action_type, **action.params}
    return dict(action.params)


__all__ = ["ACTIONS", "Screen", "check_gui_action", "gui_action", "gui_params", "key_sequence"]
