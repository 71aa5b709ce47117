"""Video settings, recording to a workspace file and OBS's own screenshots: checks and requests."""

from __future__ import annotations

import base64
import time
from pathlib import Path

from asil.adapters.obs import actions as act
from asil.adapters.obs.operations import Context, Names
from asil.adapters.obs.video import OUTPUT_STEP
from asil.apps.obs import ObsSession
from asil.protocol import ActionFailed, InvalidAction
from asil.workspace import Workspace, atomic_write

RECORD_START_S = 10.0
RECORD_STOP_S = 30.0


# ------------------------------------------------------------------ video
def check_set_video(names: Names, p: act.SetVideo, ws: Workspace) -> None:
    for what in ("base", "output"):
        width, height = getattr(p, f"{what}_width"), getattr(p, f"{what}_height")
        if (width is None) != (height is None):
            raise InvalidAction(f"Give {what}_width and {what}_height together.",
                                hint="e.g. {\"base_width\": 1280, \"base_height\": 720}.", code="bad_params")
    # OBS would silently round these down (an output of 642x361 becomes 640x360): refuse instead.
    for param, value, step in (("output_width", p.output_width, OUTPUT_STEP["outputWidth"]),
                               ("output_height", p.output_height, OUTPUT_STEP["outputHeight"])):
        if value is not None and value % step:
            raise InvalidAction(f"{param} {value} is not a multiple of {step}; OBS would silently round it down "
                                f"to {value - value % step}.",
                                hint="The output width must be a multiple of 4 and the output height even "
                                "(e.g. 1280x720).", code="bad_params")
    if p.model_dump(exclude_none=True) == {}:
        raise InvalidAction("set_video needs base_width/base_height, output_width/output_height and/or fps.",
                            hint="e.g. {\"fps\": 30}.", code="bad_params")
    if names.recording:
        raise InvalidAction("Video settings cannot change while OBS is recording.",
                            hint="Call stop_recording first.", code="busy")


def set_video(ctx: Context, p: act.SetVideo) -> list[str]:
    data: dict[str, int] = {}
    if p.base_width is not None and p.base_height is not None:
        data.update(baseWidth=p.base_width, baseHeight=p.base_height)
    if p.output_width is not None and p.output_height is not None:
        data.update(outputWidth=p.output_width, outputHeight=p.output_height)
    if p.fps is not None:
        data.update(fpsNumerator=p.fps, fpsDenominator=1)
    ctx.obs.request("SetVideoSettings", data)
    return ["@program"]


# ------------------------------------------------------------------ recording
def check_start_recording(names: Names, p: act.StartRecording, ws: Workspace) -> None:
    target = ws.resolve(p.path)
    if target.exists():
        raise InvalidAction(f"{p.path!r} already exists; OBS would not overwrite it.",
                            hint="Record to a new file name.", code="file_exists")
    if names.recording:
        raise InvalidAction("OBS is already recording.", hint="Call stop_recording first.", code="busy")
    names.recording = True


def start_recording(ctx: Context, p: act.StartRecording) -> list[str]:
    target = ctx.workspace.resolve(p.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    obs = ctx.obs
    for category, name, value in (("SimpleOutput", "FilePath", str(target.parent)),
                                  ("Output", "FilenameFormatting", target.stem),
                                  ("SimpleOutput", "RecFormat", act.RECORD_FORMATS[target.suffix])):
        obs.request("SetProfileParameter", {"parameterCategory": category, "parameterName": name,
                                            "parameterValue": value})
    obs.request("StartRecord")
    _wait(obs, True, RECORD_START_S)
    return ["@program"]


def check_stop_recording(names: Names, p: act.StopRecording, ws: Workspace) -> None:
    if not names.recording:
        raise InvalidAction("OBS is not recording.", hint="Call start_recording first.", code="not_recording")
    names.recording = False


def stop_recording(ctx: Context, p: act.StopRecording) -> list[str]:
    time.sleep(p.after_s)
    path = Path(ctx.obs.request("StopRecord")["outputPath"])
    _wait(ctx.obs, False, RECORD_STOP_S)
    _wait_complete(path)
    changed = ["@program"]
    if ctx.workspace.root in path.parents:
        changed.append(ctx.workspace.relative(path))
    return changed


def _wait(obs: ObsSession, active: bool, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if bool(obs.request("GetRecordStatus")["outputActive"]) == active:
            return
        time.sleep(0.05)
    raise ActionFailed(f"OBS did not {'start' if active else 'stop'} recording within {timeout_s:g} s.",
                       hint="Look at the recording state in the observation and try again.")


def _wait_complete(path: Path, timeout_s: float = RECORD_STOP_S) -> None:
    """The muxer finishes the file after OBS reports the output stopped: wait until its size settles."""
    deadline, last = time.monotonic() + timeout_s, -1
    while time.monotonic() < deadline:
        size = path.stat().st_size if path.is_file() else 0
        if size > 0 and size == last:
            return
        last = size
        time.sleep(0.2)
    raise ActionFailed(f"The recording {path.name!r} was not complete within {timeout_s:g} s.")


# ------------------------------------------------------------------ screenshots
def check_screenshot(names: Names, p: act.Screenshot, ws: Workspace) -> None:
    ws.resolve(p.path)
    if p.source is not None:
        names.source(p.source)


def screenshot(obs: ObsSession, target: Path, source: str | None = None, width: int | None = None) -> None:
    """OBS's own rendering of a source (the program scene when None), written atomically as a PNG."""
    name = source or obs.request("GetCurrentProgramScene")["currentProgramSceneName"]
    data = {"sourceName": name, "imageFormat": "png", **({"imageWidth": width} if width else {})}
    image = obs.request("GetSourceScreenshot", data)["imageData"]
    atomic_write(target, base64.b64decode(image.partition(",")[2]))


def save_screenshot(ctx: Context, p: act.Screenshot) -> list[str]:
    target = ctx.workspace.resolve(p.path)
    screenshot(ctx.obs, target, p.source, p.width)
    return [p.path]
