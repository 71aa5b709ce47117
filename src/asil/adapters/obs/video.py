"""OBS video settings as part of the document: a small JSON file beside the scene collection.

OBS keeps canvas size, output size and frame rate in its profile, not in the scene collection.
The adapter persists them as ``<collection stem>.video.json`` next to the collection (for
``scenes.json``: ``scenes.video.json``) holding OBS's own ``GetVideoSettings`` fields, so they
survive the episode, are judged by checkpoints, and are seeded into OBS's profile whenever OBS
(re)starts for the workspace. No file means OBS's start-up defaults (:data:`DEFAULT_VIDEO`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.apps.obs import DEFAULT_VIDEO
from asil.protocol import DocumentError

MIN_SIZE, MAX_SIZE = 8, 4096  # obs-websocket refuses sizes outside these
# OBS silently rounds an output width down to a multiple of 4 and an output height to an even number
# (an output of 642x361 becomes 640x360), so such sizes are refused rather than quietly changed.
OUTPUT_STEP = {"outputWidth": 4, "outputHeight": 2}
VIDEO_HINT = (f"Give a JSON object with integer baseWidth, baseHeight ({MIN_SIZE}..{MAX_SIZE}), outputWidth (a "
              f"multiple of 4), outputHeight (even), fpsNumerator and fpsDenominator (at least 1).")
SIZE_KEYS = ("baseWidth", "baseHeight", "outputWidth", "outputHeight")
FPS_KEYS = ("fpsNumerator", "fpsDenominator")


def video_document(document: str) -> str:
    """The workspace-relative video file of a collection document ('show/scenes.json' -> 'show/scenes.video.json')."""
    folder, _, name = document.rpartition("/")
    stem = name[:-5] if name.endswith(".json") else name
    return f"{folder}/{stem}.video.json" if folder else f"{stem}.video.json"


def video_problem(data: Any) -> str | None:
    """What is wrong with a video settings object, or None."""
    if not isinstance(data, dict) or set(data) != set(SIZE_KEYS + FPS_KEYS):
        return f"it must hold exactly {', '.join(SIZE_KEYS + FPS_KEYS)}"
    for key, value in data.items():
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{key} must be an integer"
    for key in SIZE_KEYS:
        problem = size_problem(key, data[key], OUTPUT_STEP.get(key, 1))
        if problem is not None:
            return problem
    for key in FPS_KEYS:
        if data[key] < 1:
            return f"{key} must be at least 1"
    return None


def size_problem(key: str, value: int, step: int) -> str | None:
    """Why OBS would refuse or silently change this size (``step``: the multiple it must be), or None."""
    if not MIN_SIZE <= value <= MAX_SIZE:
        return f"{key} {value} is outside {MIN_SIZE}..{MAX_SIZE}"
    if value % step:
        return f"{key} {value} is not a multiple of {step} (OBS would round it down to {value - value % step})"
    return None


def load_video(path: Path, document: str) -> dict[str, int] | None:
    """The video settings in the file at ``path``; None when there is none; DocumentError when it is bad."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise DocumentError(f"The video settings file {document!r} is not readable JSON ({exc}).",
                            hint=VIDEO_HINT) from None
    problem = video_problem(data)
    if problem is not None:
        raise DocumentError(f"The video settings file {document!r} is not valid: {problem}.", hint=VIDEO_HINT)
    return {key: int(data[key]) for key in SIZE_KEYS + FPS_KEYS}


def video_bytes(video: dict[str, int]) -> bytes:
    return (json.dumps({key: video[key] for key in SIZE_KEYS + FPS_KEYS}, indent=4) + "\n").encode("utf-8")


def video_state(video: dict[str, int] | None) -> dict[str, Any]:
    """Plain video state as observations show it: base [w, h], output [w, h], fps."""
    v = video or DEFAULT_VIDEO
    return {"base": [v["baseWidth"], v["baseHeight"]], "output": [v["outputWidth"], v["outputHeight"]],
            "fps": v["fpsNumerator"] / v["fpsDenominator"]}


def obs_video(reply: dict[str, Any]) -> dict[str, int]:
    """OBS's GetVideoSettings answer as the stored form (its six integer fields)."""
    return {key: int(reply[key]) for key in SIZE_KEYS + FPS_KEYS}
