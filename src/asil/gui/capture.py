"""Screenshots of an X display, and the settle wait that replaces fixed sleeps after an action.

The display is grabbed with Pillow's XCB grabber (``ImageGrab.grab(xdisplay=...)``): one X request,
about 25 ms for 1280x800 here. After an action the environment polls until two consecutive frames are
equal, so a step costs what the program needs to redraw and no constant on top.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from asil.protocol import AppUnavailable

if TYPE_CHECKING:
    from PIL import Image

POLL_S = 0.04  # between two grabs: short against LibreOffice's 0.5 s cursor blink, so a blink rarely splits a pair
SETTLE_CAP_S = 3.0  # a screen still changing after this is taken as it is (an animation, a progress bar)
# An action whose effect has not reached the screen yet looks settled on the old frame; this long the wait
# also asks for a change from the frame before the action (actions that change nothing cost this much).
CHANGE_GRACE_S = 0.25


@dataclass
class Frame:
    image: Image.Image
    raw: bytes


def grab(display: str) -> Frame:
    try:
        from PIL import ImageGrab
    except ImportError:
        raise AppUnavailable("GUI screenshots need Pillow, which is not installed.",
                             hint="Install it with: pip install 'asil[gui]'") from None
    image = ImageGrab.grab(xdisplay=display)
    return Frame(image, image.tobytes())


def settle(display: str, before: Frame | None = None, cap_s: float = SETTLE_CAP_S, quiet_s: float = 0.0,
           grace_s: float = CHANGE_GRACE_S) -> Frame:
    """The screen once two consecutive grabs are equal (and differ from ``before``, within the grace).

    ``quiet_s`` asks for the same frame over that long instead (a program that has just started paints
    its window in bursts with pauses between them). ``grace_s`` replaces CHANGE_GRACE_S for a program
    that redraws slowly (Blender's software OpenGL).
    """
    started = time.monotonic()
    last = grab(display)
    since = time.monotonic()  # when the screen last changed
    changed = before is None or last.raw != before.raw
    while time.monotonic() - started < cap_s:
        time.sleep(POLL_S)
        now = grab(display)
        if now.raw != last.raw:
            since = time.monotonic()
        elif (changed or time.monotonic() - started >= grace_s) and time.monotonic() - since >= quiet_s:
            return now
        changed = changed or (before is not None and now.raw != before.raw)
        last = now
    return last


def png_bytes(frame: Frame) -> bytes:
    """The frame as PNG; compression level 1 keeps encoding near 30 ms at a few percent more bytes."""
    buffer = io.BytesIO()
    frame.image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
