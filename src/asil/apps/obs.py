"""A warm OBS Studio under a private Xvfb, driven over its built-in obs-websocket (protocol v5).

Each :class:`ObsSession` owns a private config folder (HOME and XDG_CONFIG_HOME point into it,
never at the user's), a private Xvfb, and one ``obs`` process group. obs-websocket 5.1 reads its
settings from ``global.ini`` ``[OBSWebSocket]`` at start-up, so the folder is written before OBS
starts. The server listens on every interface, so it always requires a random password.

Every request has a timeout; a timed-out or dead OBS is stopped (whole process group) and the
caller gets :class:`ObsCrashed` — the adapter decides how to recover. OBS writes its scene
collection itself (``basic/scenes/asil.json``); :meth:`ObsSession.flush` makes it do so now.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed, free_port, port_open
from asil.protocol import ActionFailed, AppUnavailable

START_TIMEOUT_S = 60.0
START_ATTEMPTS = 2
REQUEST_TIMEOUT_S = 10.0
SIZE_WAIT_S = 5.0
SIZED_KINDS = ("image_source", "ffmpeg_source", "text_ft2_source_v2", "color_source_v3")
FILE_SETTING = {"ffmpeg_source": "local_file", "image_source": "file"}
AUDIO_SUFFIXES = (".mp3", ".wav", ".ogg", ".oga", ".opus", ".flac", ".m4a", ".aac", ".wma")
FLUSH_TIMEOUT_S = 10.0
FLUSH_MARK = "asil-flush"  # private-settings key (and scene-name prefix) that marks a forced save
COLLECTION = "asil"  # the file name (basic/scenes/asil.json) of the collection OBS opens at start
HIDDEN_SCREEN = (1024, 768)  # the adapter's OBS sits minimized on this display
GUI_SCREEN = (1280, 800)  # a GUI session's OBS shows its main window on this one
DEFAULT_PROFILE = "Untitled"  # the name OBS gives the profile it makes on a first start
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends obs-studio xvfb"
EXTRA_HINT = "Install the Python extra with: pip install 'asil[obs]'"
READY_LINE = "Server started successfully on port {port}"
FAILED_LINES = ("Server failed to start", "Failed to start")
# OBS's video settings in obs-websocket's names (GetVideoSettings); a new private profile gets these.
DEFAULT_VIDEO = {"baseWidth": 640, "baseHeight": 360, "outputWidth": 640, "outputHeight": 360,
                 "fpsNumerator": 30, "fpsDenominator": 1}


class ObsCrashed(ProgramFailed):
    """OBS died or did not answer in time; the process is gone."""

    code = "obs_crashed"


class ObsRefused(ActionFailed):
    """OBS answered a request with a failure status (its comment is the message)."""

    code = "obs_refused"

    def __init__(self, message: str, status: int, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.status = status


def obs_path() -> str | None:
    return shutil.which("obs")


def websocket_client_available() -> bool:
    try:
        import websocket  # noqa: F401
    except ImportError:
        return False
    return True


def _ini(sections: dict[str, dict[str, Any]]) -> str:
    lines: list[str] = []
    for name, values in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{key}={'true' if value is True else 'false' if value is False else value}"
                  for key, value in values.items()]
        lines.append("")
    return "\n".join(lines)


def _video_section(video: dict[str, int]) -> dict[str, Any]:
    """The profile's [Video] section (FPSType 2 = a fraction, as obs-websocket's SetVideoSettings writes it)."""
    return {"BaseCX": video["baseWidth"], "BaseCY": video["baseHeight"], "OutputCX": video["outputWidth"],
            "OutputCY": video["outputHeight"], "FPSType": 2, "FPSNum": video["fpsNumerator"],
            "FPSDen": video["fpsDenominator"]}


def file_stem(name: str, taken: set[str]) -> str:
    """A file or folder name for a collection or profile called ``name`` (OBS keeps the real name inside)."""
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "_"
    candidate, number = stem, 2
    while candidate.lower() in taken:
        candidate, number = f"{stem}_{number}", number + 1
    taken.add(candidate.lower())
    return candidate


@dataclass
class ObsSetup:
    """What OBS keeps in its config folder besides the open collection, for a (re)start to load.

    ``profiles`` holds the video settings of the profiles other than ``profile`` (whose video is the
    session's ``video``); ``collections`` the files of the collections other than the open one.
    ``studio_mode`` is what OBS itself writes to global.ini ([BasicWindow] PreviewProgramMode) when it
    closes and reads when it starts.
    """

    profile: str = DEFAULT_PROFILE
    profiles: dict[str, dict[str, int]] = field(default_factory=dict)
    collections: dict[str, Path] = field(default_factory=dict)
    studio_mode: bool = False


def _write_profile(folder: Path, name: str, video: dict[str, int], record_dir: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "basic.ini").write_text(_ini({
        "General": {"Name": name},
        "Video": _video_section(video),
        "Output": {"Mode": "Simple", "FilenameFormatting": "recording", "OverwriteIfExists": False},
        "SimpleOutput": {"FilePath": str(record_dir), "RecFormat": "mkv", "RecQuality": "Stream",
                         "StreamEncoder": "x264", "VBitrate": 1500, "ABitrate": 128},
        "Audio": {"SampleRate": 48000, "ChannelSetup": "Stereo"},
    }), encoding="utf-8")


def write_config(root: Path, *, port: int, password: str, collection_name: str, record_dir: Path,
                 video: dict[str, int] | None = None, setup: ObsSetup | None = None) -> Path:
    """Write global.ini, the profiles and the other collections so OBS starts silently with the websocket
    on ``port``.

    The profiles and collection files are written anew at every start (from ``setup``, the current
    profile with ``video``: obs-websocket's names, OBS's defaults when None): the caller decides what a
    (re)started OBS has. Returns the path of the scene collection file OBS will load and save.
    """
    setup = setup or ObsSetup()
    config = root / "config" / "obs-studio"
    scenes, profiles = config / "basic" / "scenes", config / "basic" / "profiles"
    for folder in (scenes, profiles):  # a restart from a checkpoint forgets what came after it
        shutil.rmtree(folder, ignore_errors=True)
    scenes.mkdir(parents=True)
    stems: set[str] = {COLLECTION}
    dirs: set[str] = set()
    profile_dir = file_stem(setup.profile, dirs)
    (config / "global.ini").write_text(_ini({
        # FirstRun=true skips the auto-configuration wizard; LastVersion (29.0.2) skips "what's new".
        "General": {"FirstRun": True, "LastVersion": 486539266, "EnableAutoUpdates": False},
        "BasicWindow": {"SysTrayEnabled": False, "SysTrayWhenStarted": False,
                        "PreviewProgramMode": setup.studio_mode},
        "Basic": {"Profile": setup.profile, "ProfileDir": profile_dir, "SceneCollection": collection_name,
                  "SceneCollectionFile": COLLECTION},
        "OBSWebSocket": {"FirstLoad": False, "ServerEnabled": True, "ServerPort": port, "AuthRequired": True,
                         "ServerPassword": password, "AlertsEnabled": False},
    }), encoding="utf-8")
    _write_profile(profiles / profile_dir, setup.profile, video or DEFAULT_VIDEO, record_dir)
    for name, other in setup.profiles.items():
        _write_profile(profiles / file_stem(name, dirs), name, other, record_dir)
    for name, source in setup.collections.items():
        shutil.copyfile(source, scenes / f"{file_stem(name, stems)}.json")
    return scenes / f"{COLLECTION}.json"


class ObsSession:
    """One running OBS loading ``collection`` (a scene-collection JSON, copied in at start).

    ``port`` asks for a websocket port; when something already listens there another free
    port is used. ``root`` keeps the private config between sessions (a restart reuses it).
    ``video`` (GetVideoSettings' fields) is the video settings OBS starts with, its defaults when None.
    """

    def __init__(self, root: Path, *, collection: Path | None = None, collection_name: str = "ASIL",
                 port: int | None = None, record_dir: Path | None = None,
                 request_timeout_s: float = REQUEST_TIMEOUT_S, video: dict[str, int] | None = None,
                 setup: ObsSetup | None = None, visible: bool = False):
        binary = obs_path()
        if binary is None:
            raise AppUnavailable("OBS Studio is not installed.", hint=INSTALL_HINT)
        if not websocket_client_available():
            raise AppUnavailable("The websocket-client package is not installed.", hint=EXTRA_HINT)
        self.root = root
        self.request_timeout_s = request_timeout_s
        self.port = port if port is not None and not port_open(port) else free_port()
        self.password = secrets.token_hex(16)
        self.collection_file = write_config(root, port=self.port, password=self.password,
                                            collection_name=collection_name, record_dir=record_dir or root,
                                            video=video, setup=setup)
        if collection is not None:
            shutil.copyfile(collection, self.collection_file)
        self.visible = visible
        self.display: Display | None = None
        self.process: ManagedProcess | None = None
        self._socket: Any = None
        self._next_id = 0
        # An interpreter that exits without close() (an uncaught error, a script's end) still stops
        # OBS and its display: they run in their own sessions and would outlive it.
        atexit.register(self.stop)
        for attempt in range(START_ATTEMPTS):
            try:
                self._start(binary)
                break
            except ProgramFailed:
                # OBS now and then dies while starting on a loaded machine: one fresh try.
                self.stop()
                if attempt + 1 == START_ATTEMPTS:
                    raise
                self.port = free_port()
                write_config(root, port=self.port, password=self.password, collection_name=collection_name,
                             record_dir=record_dir or root, video=video, setup=setup)
                if collection is not None:
                    shutil.copyfile(collection, self.collection_file)
            except BaseException:
                self.stop()
                raise

    # ------------------------------------------------------------ life
    def _env(self) -> dict[str, str]:
        assert self.display is not None
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "DISPLAY", "SESSION_MANAGER")}
        env.update(self.display.env())
        env.update(HOME=str(self.root), XDG_CONFIG_HOME=str(self.root / "config"), LIBGL_ALWAYS_SOFTWARE="1",
                   QT_QPA_PLATFORM="xcb", XDG_RUNTIME_DIR=str(self.root / "runtime"),
                   # No session bus: OBS only asks it for screen-capture portals, and a bus that
                   # D-Bus autolaunched for a killed OBS makes the next start wait 25 s for it.
                   # Without one, D-Bus autolaunches a daemon (and portals) that escape the process group.
                   DBUS_SESSION_BUS_ADDRESS=f"unix:path={self.root / 'no-session-bus'}", NO_AT_BRIDGE="1",
                   QT_ACCESSIBILITY="0")
        (self.root / "runtime").mkdir(mode=0o700, exist_ok=True)
        return env

    def _start(self, binary: str) -> None:
        self.display = start_display(*(GUI_SCREEN if self.visible else HIDDEN_SCREEN))
        log = self.root / "obs.log"
        if log.exists():  # keep the last run's log beside the new one, for diagnosis
            log.replace(self.root / "obs.previous.log")
        # profile and collection come from global.ini; a GUI session keeps the main window shown
        hide = [] if self.visible else ["--minimize-to-tray"]
        self.process = ManagedProcess(
            "OBS", [binary, "--multi", "--disable-shutdown-check", "--disable-missing-files-check", *hide],
            log=log, env=self._env(), cwd=self.root)
        ready = READY_LINE.format(port=self.port)

        def listening() -> bool:
            text = log.read_text(encoding="utf-8", errors="replace")
            if any(line in text for line in FAILED_LINES):
                raise ObsCrashed(f"OBS could not open its websocket server on port {self.port}.",
                                 hint=self.process.log_tail() if self.process else None)
            return ready in text and port_open(self.port)

        self.process.wait_until(listening, START_TIMEOUT_S, "its websocket server")
        self._connect()
        # A fresh OBS on a busy machine can take seconds to answer its first frontend request (its
        # window thread is still compiling shaders): wait for one answer under the start-up timeout,
        # so the shorter request timeout judges a running OBS, not one still waking up.
        self.request("GetSceneList", timeout_s=START_TIMEOUT_S)
        self._wait_for_frames()

    def _wait_for_frames(self, frames: int = 3) -> None:
        """Sources learn their size (a text's box, an image's pixels, a clip's first decoded frame) only
        when OBS renders or decodes them, which under load can take longer than a few frames: wait for a
        few rendered frames, then (bounded) until every visual scene item knows its size, so the first
        observation after a (re)start is complete."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while self.request("GetStats").get("renderTotalFrames", 0) < frames and time.monotonic() < deadline:
            time.sleep(0.05)
        deadline = time.monotonic() + SIZE_WAIT_S  # an audio-only clip or a missing file never gets a size
        while self._unsized_items() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _unsized_items(self) -> int:
        """Visual scene items still without a size, leaving out those that never get one (an audio-only
        clip, a missing file, an empty text): waiting for those would only cost the whole bound."""
        listed = self.request("GetSceneList")
        scenes = [s["sceneName"] for s in listed["scenes"]]
        found = self.request_batch([("GetSceneItemList", {"sceneName": name}) for name in scenes])
        # A clip is decoded (and so learns its size) only while it shows: on the program scene, enabled.
        program = listed["currentProgramSceneName"]
        waiting = [item for scene, items in zip(scenes, found, strict=True) if not isinstance(items, ObsRefused)
                   for item in items["sceneItems"]
                   if item.get("inputKind") in SIZED_KINDS and not item["sceneItemTransform"]["sourceWidth"]
                   and (item["inputKind"] != "ffmpeg_source" or (scene == program and item["sceneItemEnabled"]))]
        names = sorted({item["sourceName"] for item in waiting})
        settings = dict(zip(names, self.request_batch([("GetInputSettings", {"inputName": n}) for n in names]),
                            strict=True))
        return sum(1 for item in waiting if _will_have_size(item["inputKind"], settings[item["sourceName"]]))

    def _connect(self) -> None:
        import websocket

        self._socket = websocket.create_connection(f"ws://127.0.0.1:{self.port}", timeout=self.request_timeout_s)
        hello = json.loads(self._socket.recv())["d"]
        identify: dict[str, Any] = {"rpcVersion": 1, "eventSubscriptions": 0}
        if "authentication" in hello:
            auth = hello["authentication"]
            secret = _b64sha(self.password + auth["salt"])
            identify["authentication"] = _b64sha(secret + auth["challenge"])
        self._socket.send(json.dumps({"op": 1, "d": identify}))
        if json.loads(self._socket.recv())["op"] != 2:
            raise ObsCrashed("OBS refused the websocket identification.")

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.alive and self._socket is not None

    def stop(self) -> None:
        """Stop OBS without letting it save (SIGTERM ends it at once), then the display."""
        atexit.unregister(self.stop)
        if self._socket is not None:
            try:
                self._socket.close()
            except OSError:
                pass
            self._socket = None
        if self.process is not None:
            self.process.stop(grace_s=1.0)  # OBS saves nothing on SIGTERM; no need to wait long
        if self.display is not None:
            self.display.stop()
            self.display = None

    # ------------------------------------------------------------ requests
    def request(self, kind: str, data: dict[str, Any] | None = None, *, timeout_s: float | None = None) -> Any:
        """Send one request; its responseData, ObsRefused on a failure status, ObsCrashed if OBS is lost."""
        request = {"requestType": kind, "requestId": self._new_id(), "requestData": data or {}}
        reply = self._exchange(6, request, kind, timeout_s)
        return _result(kind, reply)

    def request_batch(self, requests: list[tuple[str, dict[str, Any]]], *,
                      timeout_s: float | None = None) -> list[Any]:
        """Send many requests in one message (obs-websocket's RequestBatch, run in order).

        Returns, per request, its responseData or the ObsRefused it met (not raised: reads of
        many things decide themselves what a refusal means).
        """
        if not requests:
            return []
        batch = {"requestId": self._new_id(), "haltOnFailure": False, "executionType": 0,
                 "requests": [{"requestType": kind, "requestData": data} for kind, data in requests]}
        reply = self._exchange(8, batch, f"a batch of {len(requests)} requests", timeout_s)
        results: list[Any] = []
        for (kind, _), result in zip(requests, reply["results"], strict=True):
            try:
                results.append(_result(kind, result))
            except ObsRefused as exc:
                results.append(exc)
        return results

    def _new_id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    def _exchange(self, op: int, payload: dict[str, Any], what: str, timeout_s: float | None) -> dict[str, Any]:
        """Send one message and wait for the reply with its requestId (op + 1)."""
        import websocket

        if not self.alive:
            code = self.process.process.returncode if self.process else None
            raise ObsCrashed(f"OBS is not running (exit code {code}).")
        limit = timeout_s or self.request_timeout_s
        try:
            self._socket.settimeout(limit)
            self._socket.send(json.dumps({"op": op, "d": payload}))
            while True:
                reply = json.loads(self._socket.recv())
                if reply.get("op") == op + 1 and reply["d"].get("requestId") == payload["requestId"]:
                    return dict(reply["d"])
        except (websocket.WebSocketTimeoutException, TimeoutError):
            self.stop()
            raise ObsCrashed(f"OBS did not answer {what} within {limit:g} s and was stopped.") from None
        except (OSError, websocket.WebSocketException, ValueError) as exc:
            self.stop()
            raise ObsCrashed(f"The connection to OBS broke during {what} ({exc}).") from None

    def flush(self) -> str:
        """Make OBS write its scene collection now; return the text it wrote.

        OBS 29 saves its collection when an item of the scene its window shows (the program
        scene, or the preview scene in studio mode) is moved in its stack, even to the place it already has. A fresh token in that
        item's private settings marks the write to wait for. When the program scene is empty, a
        scene is renamed and back instead (OBS also saves on renames).
        """
        token = f"{FLUSH_MARK}-{secrets.token_hex(6)}"
        target = self._first_item()
        if target is None:
            scene = self.request("GetSceneList")["scenes"][0]["sceneName"]
            before = _stamp(self.collection_file)
            self.request("SetSceneName", {"sceneName": scene, "newSceneName": token})
            self.request("SetSceneName", {"sceneName": token, "newSceneName": scene})
            # No token stays in this write, so it is known fresh only by holding every scene there is now:
            # a save still pending from before the last change (without a scene it made) must not pass.
            scenes = sorted(s["sceneName"] for s in self.request("GetSceneList")["scenes"])
            return self._await_write(lambda text: token not in text and _scene_order(text) == scenes, before)
        scene, item_id, index = target
        for result in self.request_batch([
                ("SetSceneItemPrivateSettings", {"sceneName": scene, "sceneItemId": item_id,
                                                 "sceneItemSettings": {FLUSH_MARK: token}}),
                ("SetSceneItemIndex", {"sceneName": scene, "sceneItemId": item_id, "sceneItemIndex": index})]):
            if isinstance(result, ObsRefused):
                raise result
        return self._await_write(lambda text: token in text, None)

    def _first_item(self) -> tuple[str, int, int] | None:
        """An item of the scene OBS's window edits (the program scene, or in studio mode the preview
        scene): only moves there are saved."""
        listed = self.request("GetSceneList")
        scene = listed.get("currentPreviewSceneName") or listed["currentProgramSceneName"]
        items = self.request("GetSceneItemList", {"sceneName": scene})["sceneItems"]
        if not items:
            return None
        return scene, int(items[0]["sceneItemId"]), int(items[0]["sceneItemIndex"])

    def collection_files(self) -> dict[str, Path]:
        """The scene collections in OBS's config folder: name (kept inside each file) -> file."""
        found: dict[str, Path] = {}
        for path in sorted(self.collection_file.parent.glob("*.json")):
            try:
                name = json.loads(path.read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(name, str):
                found[name] = path
        return found

    def track_collection(self) -> str:
        """After OBS switched collections: the open one's name, whose file :meth:`flush` now waits for."""
        name = str(self.request("GetSceneCollectionList")["currentSceneCollectionName"])
        files = self.collection_files()
        if name not in files:
            raise ObsCrashed(f"OBS reports the collection {name!r} open but has no file for it.")
        self.collection_file = files[name]
        return name

    def _await_write(self, done: Any, before: tuple[int, int] | None) -> str:
        """Poll the collection file (OBS replaces it via a temp file) until ``done(text)`` holds."""
        deadline = time.monotonic() + FLUSH_TIMEOUT_S
        while time.monotonic() < deadline:
            if before is None or _stamp(self.collection_file) != before:
                try:
                    text = self.collection_file.read_text(encoding="utf-8")
                    if done(text):
                        json.loads(text)
                        return text
                except (OSError, ValueError):
                    pass
            time.sleep(0.003)
        raise ObsCrashed(f"OBS did not write its scene collection within {FLUSH_TIMEOUT_S:g} s.")


def _will_have_size(kind: str, found: Any) -> bool:
    if isinstance(found, ObsRefused):
        return False  # the input is gone
    settings = found["inputSettings"]
    if kind == "text_ft2_source_v2":
        return bool(str(settings.get("text", "")).strip())
    file = settings.get(FILE_SETTING.get(kind, ""), "")
    if kind in FILE_SETTING:
        return bool(file) and Path(file).is_file() and Path(file).suffix.lower() not in AUDIO_SUFFIXES
    return True


def _result(kind: str, reply: dict[str, Any]) -> Any:
    status = reply["requestStatus"]
    if not status["result"]:
        comment = str(status.get("comment") or f"code {status['code']}").rstrip(".")
        raise ObsRefused(f"OBS refused {kind}: {comment}.", status=int(status["code"]))
    return reply.get("responseData", {})


def _scene_order(text: str) -> list[str]:
    """The scene names a collection file lists (empty if it is not a collection yet)."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    order = data.get("scene_order", []) if isinstance(data, dict) else []
    return sorted(str(entry.get("name")) for entry in order if isinstance(entry, dict))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _b64sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def private_root(prefix: str = "asil-obs-") -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
