"""Running MLT's ``melt`` (renders, load checks, service lists) and ``ffprobe`` (media facts).

melt is a one-shot renderer: it has no command loop to keep warm, so the warm state of a Kdenlive
episode is the parsed project the adapter holds in memory, and melt runs only when a render or a
load check needs the real MLT engine. Each run is a :class:`ManagedProcess` in its own process
group with a timeout; a hung or killed melt is stopped with everything it spawned, the caller gets
:class:`MeltFailed`, and a render's output appears complete (temp file, then rename) or not at all.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable
from asil.workspace import commit_file

RENDER_TIMEOUT_S = 120.0
PROBE_TIMEOUT_S = 20.0
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends melt ffmpeg"
# melt exits 0 even when it cannot load a project; these lines in its output say it failed. MLT's Qt module
# (titles) says the last one when it has no X display, and then draws a placeholder reading "INVALID".
NO_DISPLAY = "Please either run melt from an X session"
LOAD_FAILURES = ("parse fatal", "Failed to load", "For more help", NO_DISPLAY)
# always play as fast as possible and stop at the end (melt otherwise plays in real time, forever)
NO_REAL_TIME = ("real_time=-1", "terminate_on_pause=1")
VIDEO_ARGS = ("vcodec=libx264", "preset=ultrafast", "pix_fmt=yuv420p", "acodec=aac")


class MeltFailed(ProgramFailed):
    """melt could not load or render the project, was killed, or ran out of time."""

    code = "melt_failed"


class MeltHung(MeltFailed):
    """melt ran past its time limit and was stopped."""


def melt_path() -> str | None:
    return shutil.which("melt")


def ffprobe_path() -> str | None:
    return shutil.which("ffprobe")


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise AppUnavailable(f"{name} is not installed.", hint=INSTALL_HINT)
    return found


def _melt_env() -> dict[str, str]:
    # no display, no audio device: melt only ever writes files here
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["SDL_AUDIODRIVER"] = "dummy"
    return env


class MeltRunner:
    """Runs melt for one adapter, one process at a time; ``current`` is the running melt, if any.

    ``stop`` (called by the adapter's ``close``, possibly from another thread) kills a render in
    progress with its whole process group. With ``needs_display`` set (a project with Kdenlive titles,
    which MLT's Qt module draws only on an X display) melt runs on a private Xvfb that the runner
    starts once and ``close`` stops.
    """

    def __init__(self) -> None:
        self.current: ManagedProcess | None = None
        self.runs = 0
        self.needs_display = False
        self.display: Display | None = None

    def _env(self) -> dict[str, str]:
        env = _melt_env()
        if self.needs_display:
            if self.display is None or not self.display.alive:
                self.display = start_display(640, 480)
            env.update(self.display.env())
        return env

    def run(self, args: Sequence[str], *, timeout_s: float, what: str) -> str:
        """Run ``melt ARGS`` to completion; its output, or MeltFailed naming what went wrong."""
        with tempfile.TemporaryDirectory(prefix="asil-melt-") as scratch:
            log = Path(scratch) / "melt.log"
            process = ManagedProcess("melt", [_binary("melt"), *args], log=log, env=self._env(), cwd=Path(scratch))
            self.current, self.runs = process, self.runs + 1
            try:
                code = _wait(process, timeout_s, what)
                output = process.log_tail(20_000)
            finally:
                process.stop()
                self.current = None
        if code != 0:
            raise MeltFailed(f"melt stopped with exit code {code} while {what}; nothing was written.",
                             hint=_last_line(output))
        failure = next((marker for marker in LOAD_FAILURES if marker in output), None)
        if failure is not None:
            raise MeltFailed(f"melt could not load the project while {what}.", hint=_last_line(output, failure))
        return output

    def stop(self) -> None:
        running = self.current
        if running is not None:
            running.stop(grace_s=1.0)

    def close(self) -> None:
        """Stop a running melt and the runner's X display, if it started one."""
        self.stop()
        if self.display is not None:
            self.display.stop()
            self.display = None


def _wait(process: ManagedProcess, timeout_s: float, what: str) -> int:
    deadline = time.monotonic() + timeout_s
    while process.alive:
        if time.monotonic() > deadline:
            process.stop(grace_s=1.0)
            raise MeltHung(f"melt did not finish {what} within {timeout_s:g} s; it was stopped and nothing "
                             "was written.", hint="Render a shorter range or a smaller size.")
        time.sleep(0.02)
    return int(process.process.returncode)


def _last_line(output: str, containing: str = "") -> str | None:
    lines = [line.strip() for line in output.replace("\r", "\n").splitlines()
             if line.strip() and "LADSPA" not in line and containing in line]
    return lines[-1][:300] if lines else None


def render_video(runner: MeltRunner, project: Path, target: Path, *, start: int | None = None, end: int | None = None,
                 width: int | None = None, height: int | None = None, timeout_s: float = RENDER_TIMEOUT_S) -> None:
    """Render ``project`` (MLT XML) to ``target`` (H.264/AAC); the file appears whole or not at all."""
    args = [str(project), *_range(start, end)]
    size = [f"width={width}", f"height={height}"] if width and height else []
    _render_to(runner, args, target, [*VIDEO_ARGS, *size], timeout_s, "rendering the video")


def render_frame(runner: MeltRunner, project: Path, target: Path, frame: int, *, width: int | None = None,
                 height: int | None = None, timeout_s: float = RENDER_TIMEOUT_S) -> None:
    """Render one frame of ``project`` to a PNG at ``target`` (atomically)."""
    size = [f"width={width}", f"height={height}"] if width and height else []
    # one frame takes about a second; a melt that hangs on it (seen once in a full test run under load) is
    # stopped and tried again within the same overall limit
    _render_to(runner, [str(project), *_range(frame, frame)], target, ["vcodec=png", "f=image2", "update=1", *size],
               timeout_s / EMPTY_RENDER_ATTEMPTS, f"rendering frame {frame}", retry_hung=True)


def _range(start: int | None, end: int | None) -> list[str]:
    return ([f"in={start}"] if start is not None else []) + ([f"out={end}"] if end is not None else [])


EMPTY_RENDER_ATTEMPTS = 3


def _render_to(runner: MeltRunner, args: list[str], target: Path, options: list[str], timeout_s: float, what: str,
               retry_hung: bool = False) -> None:
    target = target.absolute()  # melt runs in a scratch folder, so a relative target would land there
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.stem}.asil-render{target.suffix}")
    try:
        # melt now and then exits 0 without writing anything for a project it renders on the next try (seen
        # a few times per full test run on a busy 2-core machine), so an empty result is tried again before
        # it is reported.
        for attempt in range(EMPTY_RENDER_ATTEMPTS):
            try:
                runner.run([*args, "-consumer", f"avformat:{temp}", *NO_REAL_TIME, *options], timeout_s=timeout_s,
                           what=what)
            except MeltHung:
                if not retry_hung or attempt == EMPTY_RENDER_ATTEMPTS - 1:
                    raise
                continue
            if temp.is_file() and temp.stat().st_size > 0:
                break
        else:
            raise MeltFailed(f"melt wrote nothing while {what}.", hint="Check that the timeline is not empty.")
        commit_file(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def check_loads(project: Path, timeout_s: float = 60.0) -> None:
    """Play one frame of ``project`` into melt's null consumer: MeltFailed if MLT cannot load it."""
    runner = MeltRunner()
    runner.needs_display = b"kdenlivetitle" in project.read_bytes()  # titles load only on an X display
    try:
        runner.run([str(project.absolute()), "out=0", "-consumer", "null", *NO_REAL_TIME], timeout_s=timeout_s,
                   what="loading the project")
    finally:
        runner.close()


@functools.cache
def services(kind: str) -> frozenset[str]:
    """The MLT services of ``kind`` ("filters", "transitions", "producers") this melt offers."""
    done = subprocess.run([_binary("melt"), "-query", kind], capture_output=True, text=True, timeout=60,
                          env=_melt_env(), stdin=subprocess.DEVNULL)
    return frozenset(line.strip()[2:].strip() for line in done.stdout.splitlines() if line.strip().startswith("- "))


def probe(path: Path, timeout_s: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """ffprobe's JSON for ``path``: ``format`` and ``streams``; MeltFailed if it is not media."""
    try:
        done = subprocess.run([_binary("ffprobe"), "-v", "error", "-show_format", "-show_streams", "-of", "json",
                               str(path)], capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise MeltFailed(f"ffprobe did not read {path.name} within {timeout_s:g} s.") from None
    if done.returncode != 0:
        raise MeltFailed(f"{path.name} is not a media file ffprobe can read.", hint=_last_line(done.stderr))
    data: dict[str, Any] = json.loads(done.stdout or "{}")
    return data


def media_seconds(path: Path) -> float:
    """Duration of a media file in seconds: its video stream's when it has one (0 for still images)."""
    data = probe(path)
    video = [s for s in data.get("streams", []) if s.get("codec_type") == "video" and s.get("duration")]
    try:
        if video:
            return float(video[0]["duration"])
        return float(data.get("format", {}).get("duration", 0.0))
    except ValueError:
        return 0.0


def melt_version() -> str:
    try:
        done = subprocess.run([_binary("melt"), "--version"], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (AppUnavailable, subprocess.SubprocessError) as exc:
        return f"unavailable ({exc})"
    return (done.stdout.splitlines() or ["unknown"])[0]
