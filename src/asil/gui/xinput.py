"""Real X input for a checked computer-use step: xdotool (XTEST) on the episode's private display."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from asil.gui.vocabulary import key_sequence
from asil.protocol import ActionFailed, AppUnavailable

INSTALL_HINT = "Install it with: apt-get install xdotool"
BUTTONS = {"left_click": ("1", 1), "right_click": ("3", 1), "double_click": ("1", 2), "triple_click": ("1", 3)}
WHEEL = {"up": "4", "down": "5", "left": "6", "right": "7"}
TYPE_DELAY_MS = "8"  # between typed characters: LibreOffice's input loop keeps up with this
XDOTOOL_TIMEOUT_S = 60.0


def xdotool_argv(params: dict[str, Any]) -> list[str] | None:
    """The xdotool arguments for a checked step; None for steps that send no input (wait, screenshot)."""
    name = params["action"]
    at = [str(int(params.get("x", 0))), str(int(params.get("y", 0)))]
    if name in BUTTONS:
        button, repeat = BUTTONS[name]
        return ["mousemove", "--sync", *at, "click", "--repeat", str(repeat), "--delay", "60", button]
    if name == "mouse_move":
        return ["mousemove", "--sync", *at]
    if name == "drag":
        to = [str(int(params["to_x"])), str(int(params["to_y"]))]
        return ["mousemove", "--sync", *at, "mousedown", "1", "mousemove", "--sync", *to, "mouseup", "1"]
    if name == "scroll":
        wheel = WHEEL[params.get("direction", "down")]
        return ["mousemove", "--sync", *at, "click", "--repeat", str(params.get("amount", 3)), "--delay", "30", wheel]
    if name == "type":
        return ["type", "--delay", TYPE_DELAY_MS, "--", params["text"]]
    if name == "key":
        return ["key", "--delay", "30", "--", *key_sequence(params["keys"])]
    return None


def typing_runs(text: str) -> list[dict[str, Any]]:
    """A type step as runs of text and Return keys: ``xdotool type`` sends a newline as a keysym the
    program may not map to Enter (LibreOffice's X11 plugin types nothing), so line breaks are pressed."""
    runs: list[dict[str, Any]] = []
    for index, line in enumerate(text.split("\n")):
        if index:
            runs.append({"action": "key", "keys": "Return"})
        if line:
            runs.append({"action": "type", "text": line})
    return runs


def send(display: str, params: dict[str, Any]) -> None:
    """Send the step's input to ``display``; ActionFailed with xdotool's words if it refuses."""
    if params["action"] == "type" and "\n" in params["text"]:
        for run in typing_runs(params["text"]):
            send(display, run)
        return
    argv = xdotool_argv(params)
    if argv is None:
        return
    binary = shutil.which("xdotool")
    if binary is None:
        raise AppUnavailable("xdotool is not installed.", hint=INSTALL_HINT)
    done = subprocess.run([binary, *argv], env={"DISPLAY": display}, capture_output=True, text=True,
                          timeout=XDOTOOL_TIMEOUT_S)
    if done.returncode != 0 or "No such key" in done.stderr:
        raise ActionFailed(f"xdotool could not send the {params['action']} input: "
                           f"{done.stderr.strip() or 'exit code ' + str(done.returncode)}.")
