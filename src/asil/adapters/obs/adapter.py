"""The OBS adapter: a scene collection in the workspace, edited live in a warm OBS over obs-websocket.

One OBS per adapter starts on first use (``asil.apps.obs``) with a private config holding a copy
of the workspace's collection and its video settings (``<stem>.video.json`` beside it, see
:mod:`asil.adapters.obs.video`). After every successful change OBS is made to write its collection
and that file, with OBS's video settings, is kept as the checkpoint. A batch is checked whole
against a model of OBS's names first; if OBS still refuses a step, or dies or hangs, OBS is
restarted from the checkpoint, so the state (video included) is exactly as before the action. The
workspace files are written only by :meth:`save` (atomically), from what OBS itself reports.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from asil.adapters.api import response_text, with_api
from asil.adapters.base import Adapter, Readiness, only_view, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.obs.actions import VOCABULARY
from asil.adapters.obs.api import OBS_API
from asil.adapters.obs.collection import collection_state, export_collection, install_collection, load_collection
from asil.adapters.obs.config import config_bytes, config_document, load_config, studio_state
from asil.adapters.obs.config_ops import ConfigEdit, Kept
from asil.adapters.obs.functions import CONFIG, FUNCTIONS, SETUP, UNCHANGED, VIDEO, Handler
from asil.adapters.obs.live import read_details, read_skeleton, read_state
from asil.adapters.obs.operations import Context, Names, Operation
from asil.adapters.obs.output_ops import screenshot
from asil.adapters.obs.studio_ops import SETUP_REQUESTS, STUDIO_REQUESTS, send
from asil.adapters.obs.video import load_video, obs_video, video_bytes, video_document, video_state
from asil.adapters.obs.view import DEFAULT_LIMIT, build_observation, element_ids, element_keys
from asil.apps.display import xvfb_path
from asil.apps.obs import (
    DEFAULT_VIDEO,
    REQUEST_TIMEOUT_S,
    ObsCrashed,
    ObsSession,
    ObsSetup,
    obs_path,
    private_root,
    websocket_client_available,
)
from asil.protocol import Action, ActionFailed, DocumentError, InvalidAction, Observation
from asil.workspace import Workspace, atomic_write

DEFAULT_DOCUMENT = "scenes.json"
Step = tuple[str, Any]  # a function's name and its parsed params


API_EXAMPLES = [
    {"action_type": "api_call", "target": "GetSceneList", "params": {"request": "GetSceneList"}},
    {"action_type": "api_call", "target": "SetCurrentProgramScene",
     "params": {"request": "SetCurrentProgramScene", "data": {"sceneName": "Opening"}}},
]
API_TIPS = [
    "api_call sends one obs-websocket 5 request from the allowlist in the schema's api_calls, with its data as "
    "obs-websocket names it, e.g. {\"request\": \"SetInputMute\", \"data\": {\"inputName\": \"Mic\", "
    "\"inputMuted\": true}}. The answer comes back in the result's output. Requests marked destructive need "
    "\"destructive\": true. If OBS refuses a request, nothing changed.",
]


class ObsAdapter(Adapter):
    """OBS Studio: scenes, inputs, scene items, filters, audio, video and recording."""

    vocabulary = with_api(VOCABULARY, OBS_API.specs(), examples=API_EXAMPLES, tips=API_TIPS)
    functions = FUNCTIONS
    doomed_api_call = {"request": "SetCurrentProgramScene", "data": {"sceneName": "No such scene"}}

    def __init__(self, workspace: Workspace, document: str | None = None, *, port: int | None = None,
                 request_timeout_s: float = REQUEST_TIMEOUT_S, limit: int = DEFAULT_LIMIT, visible: bool = False,
                 **options: Any):
        super().__init__(workspace, document or DEFAULT_DOCUMENT)
        self.doc: str = document or DEFAULT_DOCUMENT
        self.path = workspace.resolve(self.doc)
        self.data: dict[str, Any] | None = None
        if document is not None or self.path.exists():
            self.data = load_collection(self.path, self.doc)
        self.video_doc = video_document(self.doc)
        self.video_path = workspace.resolve(self.video_doc)
        self.saved_video = load_video(self.video_path, self.video_doc)  # None: no file, OBS's defaults
        self.video: dict[str, int] = dict(self.saved_video or DEFAULT_VIDEO)  # the checkpoint's video
        self.config_doc = config_document(self.doc)
        self.config_path = workspace.resolve(self.config_doc)
        self.saved_config = load_config(self.config_path, self.config_doc)
        # The checkpoint's profiles and studio mode; its other collections are files in the private folder.
        self.profile: str = self.saved_config["profile"]
        self.profiles: dict[str, dict[str, int]] = dict(self.saved_config["profiles"])
        self.studio_mode: bool = self.saved_config["studio_mode"]
        self.collection_name = str((self.data or {}).get("name") or "ASIL")
        if self.collection_name in self.saved_config["collections"]:
            raise DocumentError(f"The open collection {self.collection_name!r} is listed again among the other "
                                f"collections in {self.config_doc!r}.", hint="Give every scene collection its own name.")
        self.others: dict[str, Path] = {}
        self.port, self.request_timeout_s = port, request_timeout_s
        self.visible = visible  # OBS's main window shown (a GUI session) rather than minimized to the tray
        self.offset, self.limit = 0, limit
        self.dirty = False
        self.restarts = 0
        self.session: ObsSession | None = None
        self.root: Path | None = None

    # ------------------------------------------------------------ the OBS session
    @property
    def checkpoint(self) -> Path:
        assert self.root is not None
        return self.root / "checkpoint.json"

    def _obs(self) -> ObsSession:
        """The running OBS, started on first use or after a crash (from the checkpoint)."""
        if self.session is not None and self.session.alive:
            return self.session
        if self.session is not None:
            self.session.stop()
            self.session = None
            self.restarts += 1
        if self.root is None:
            self.root = private_root()
            if self.data is not None:
                install_collection(self.data, self.checkpoint, self.workspace.root)
            (self.root / "collections").mkdir()
            for index, (name, data) in enumerate(self.saved_config["collections"].items()):
                self.others[name] = self.root / "collections" / f"{index}.json"
                install_collection(data, self.others[name], self.workspace.root)
        source = self.checkpoint if self.checkpoint.is_file() else None
        setup = ObsSetup(profile=self.profile, profiles=self.profiles, collections=self.others,
                         studio_mode=self.studio_mode)
        self.session = ObsSession(self.root, collection=source, collection_name=self.collection_name,
                                  port=self.port, record_dir=self.workspace.root,
                                  request_timeout_s=self.request_timeout_s, video=self.video, setup=setup,
                                  visible=self.visible)
        if source is None:  # OBS made its default collection: that is the state to come back to
            self._keep_checkpoint()
        return self.session

    def _capture_setup(self) -> None:
        """Read collections, profiles (the current one's video) and studio mode back from OBS into the
        checkpoint, after an action that may have changed them."""
        obs = self._obs()
        self.collection_name = obs.track_collection()
        assert self.root is not None
        folder = self.root / "collections"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        others = [(n, f) for n, f in sorted(obs.collection_files().items()) if n != self.collection_name]
        self.others = {}
        for index, (name, file) in enumerate(others):
            self.others[name] = folder / f"{index}.json"
            shutil.copyfile(file, self.others[name])
        listed = obs.request("GetProfileList")
        known = {**self.profiles, self.profile: self.video}
        self.profile = str(listed["currentProfileName"])
        self.video = obs_video(obs.request("GetVideoSettings"))
        self.profiles = {n: known.get(n, DEFAULT_VIDEO) for n in listed["profiles"] if n != self.profile}
        self.studio_mode = bool(obs.request("GetStudioModeEnabled")["studioModeEnabled"])

    def _keep_checkpoint(self) -> None:
        # Renamed into place, but not fsynced: the checkpoint lives in the private temp folder and
        # only has to outlive OBS, not the machine (an fsync cost 8-30 ms per action under load).
        text = self._obs().flush()
        partial = self.checkpoint.with_name(self.checkpoint.name + ".part")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, self.checkpoint)

    def _restore(self) -> None:
        """Throw away OBS's state: restart it from the checkpoint (collection and video before the action)."""
        if self.session is not None:
            self.session.stop()
            self.session = None
            self.restarts += 1
        self._obs()

    def _read(self, what: Any) -> Any:
        """Run a read; a read that finds OBS dead or hung restarts it and is tried once more."""
        try:
            return what(self._obs())
        except ObsCrashed:
            return what(self._obs())

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        only_view(view, "scenes")
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), 200)
        state = self._read(self._page_state)
        session = {"state": "running", "restarts": self.restarts}  # no port: it changes every start
        return build_observation(state, step=self.step, document=self.doc, dirty=self.dirty,
                                 offset=self.offset, limit=self.limit, session=session)

    def _page_state(self, obs: ObsSession) -> dict[str, Any]:
        skeleton = read_skeleton(obs)
        page = element_keys(skeleton)[self.offset:self.offset + self.limit]
        return read_details(obs, skeleton, {name for kind, name, _ in page if kind == "scene"},
                            {name for kind, name, _ in page if kind == "input"}, self.workspace.root)

    def live_state(self) -> dict[str, Any]:
        """OBS's whole current state as plain data."""
        state: dict[str, Any] = self._read(lambda obs: read_state(obs, self.workspace.root))
        return state

    def saved_state(self) -> dict[str, Any]:
        """The plain state of the collection and video files in the workspace (what checkpoints judge)."""
        data = load_collection(self.path, self.doc)
        state = collection_state(data, self.workspace.root)
        state["video"] = video_state(load_video(self.video_path, self.video_doc))
        state["studio"] = studio_state(data, load_config(self.config_path, self.config_doc))
        return state

    # ------------------------------------------------------------ actions
    def _steps(self, action: Action) -> list[Step]:
        """(function, parsed params) for an invoke_function or each member of a batch."""
        return [(function.name, params) for function, params in self.vocabulary.invocations(action, self.functions)]

    def _operation(self, name: str) -> Handler:
        return self.functions[name].require_handler()

    def _check(self, action: Action) -> None:
        if action.action_type == "api_call":
            OBS_API.check(action)
            return
        if action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                self._element_index(action.target)
            return
        steps = self._steps(action)
        if self.functions[steps[0][0]].handler is None:  # save: nothing to check in OBS
            return
        self._read(lambda obs: self._check_steps(steps, Names(obs)))  # Names reads lazily: all of it is a read

    def _check_steps(self, steps: list[Step], names: Names) -> None:
        for index, (name, params) in enumerate(steps, start=1):
            try:
                self._operation(name).check(names, params, self.workspace)
            except InvalidAction as exc:
                if len(steps) == 1:
                    raise
                raise in_batch(exc, index) from None

    def _element_index(self, element_id: str) -> int:
        ids = element_ids(self._read(read_skeleton))
        if element_id not in ids:
            raise InvalidAction(f"There is no element {element_id!r}.",
                                hint="Navigate to an id such as 'scene:<name>' or 'input:<name>'.")
        return ids.index(element_id)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            params = self.vocabulary.parse_navigate(action)
            self.limit = params.limit or self.limit
            if action.target:
                self.offset = self._element_index(action.target)
            elif params.offset is not None:
                self.offset = params.offset
            return []
        if action.action_type == "api_call":
            return self._api_call(action)
        steps = self._steps(action)
        if self.functions[steps[0][0]].handler is None:  # save (a batch cannot hold it)
            self.save()
            return [self.doc]
        return self._run(steps, batch=action.action_type == "batch")

    def _run(self, steps: list[Step], *, batch: bool) -> list[str]:
        if self.functions[steps[0][0]].acts_on == CONFIG:  # never batched, so always alone
            return self._edit_config(*steps[0])
        context = Context(self._obs(), self.workspace)
        changed: list[str] = []
        for index, (name, params) in enumerate(steps, start=1):
            operation = self._operation(name)
            assert isinstance(operation, Operation)
            try:
                changed += [c for c in operation.apply(context, params) if c not in changed]
            except ObsCrashed as exc:
                self._restore()
                raise ActionFailed(f"{exc.message} OBS was restarted from the state before this action (a "
                                   "running recording was lost); nothing was changed.", hint="Try the action again.",
                                   code=exc.code) from None
            except (InvalidAction, ActionFailed) as exc:
                self._restore()
                where = f"Batch action {index}: " if batch else ""
                kind = InvalidAction if isinstance(exc, InvalidAction) else ActionFailed
                raise kind(f"{where}{exc.message} Nothing was changed.", hint=exc.hint, code=exc.code) from None
        acts_on = {self.functions[name].acts_on for name, _ in steps}
        if acts_on - {UNCHANGED}:
            self.dirty = True
            if VIDEO in acts_on:  # what OBS really took, not what was asked
                self.video = obs_video(context.obs.request("GetVideoSettings"))
            if acts_on & set(SETUP):
                self._capture_setup()
            self._keep_checkpoint()
        return changed

    def _edit_config(self, name: str, params: Any) -> list[str]:
        """Rename or remove a collection or profile in what the adapter keeps for OBS, then restart OBS so that
        it reads its config folder anew (see config_ops); if the restart fails, everything is put back."""
        edit = self._operation(name)
        assert isinstance(edit, ConfigEdit) and self.root is not None
        self._keep_checkpoint()
        backup = self.root / "config-backup"
        shutil.rmtree(backup, ignore_errors=True)
        shutil.copytree(self.root / "collections", backup)
        shutil.copyfile(self.checkpoint, backup / "checkpoint.json")
        before = (self.collection_name, dict(self.others), self.profile, dict(self.profiles))
        kept = Kept(self.collection_name, self.checkpoint, dict(self.others), self.profile, dict(self.profiles))
        changed = edit.edit(kept, params)
        self.collection_name, self.others, self.profile, self.profiles = (kept.collection, kept.others, kept.profile,
                                                                          kept.profiles)
        try:
            self._restore()
            self._capture_setup()
        except (ObsCrashed, ActionFailed) as exc:
            self.collection_name, self.others, self.profile, self.profiles = before
            shutil.rmtree(self.root / "collections")
            shutil.move(backup / "checkpoint.json", self.checkpoint)
            shutil.move(backup, self.root / "collections")
            self._restore()
            raise ActionFailed(f"OBS did not start again with the change ({exc.message}); nothing was changed.",
                               hint="Try the action again.") from None
        shutil.rmtree(backup, ignore_errors=True)
        self.dirty = True
        self._keep_checkpoint()
        return changed

    def _api_call(self, action: Action) -> list[str]:
        """Send one allowed request. OBS runs a request whole or refuses it unchanged; if OBS is lost
        meanwhile it is restarted from the checkpoint, as after a failed function."""
        request, data = OBS_API.check(action)
        payload = data.model_dump(exclude_none=True)
        try:
            if request.name in STUDIO_REQUESTS:  # wait until OBS's window shows the change
                answer = send(self._obs(), request.name, payload)
            else:
                answer = self._obs().request(request.name, payload)
        except ObsCrashed as exc:
            self._restore()
            raise ActionFailed(f"{exc.message} OBS was restarted from the state before this action; nothing was "
                               "changed.", hint="Try the action again.", code=exc.code) from None
        except ActionFailed as exc:
            raise ActionFailed(f"{exc.message} Nothing was changed.", hint=exc.hint, code=exc.code) from None
        self.output = response_text(answer)
        if request.reads:
            return []
        self.dirty = True
        if request.name in SETUP_REQUESTS:
            self._capture_setup()
        self._keep_checkpoint()
        return ["@program"]

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write OBS's own collection, and its video settings when they differ from the workspace's,
        to the workspace atomically (only after changes). No video file stands for OBS's defaults."""
        if not self.dirty:
            return
        if self.session is not None and self.session.alive:
            self._keep_checkpoint()
        atomic_write(self.path, export_collection(self.checkpoint, self.workspace.root))
        if self.video != (self.saved_video or DEFAULT_VIDEO):
            atomic_write(self.video_path, video_bytes(self.video))
            self.saved_video = dict(self.video)
        config = {"profile": self.profile, "profiles": dict(self.profiles), "studio_mode": self.studio_mode,
                  "collections": {name: json.loads(export_collection(file, self.workspace.root))
                                  for name, file in self.others.items()}}
        if config != self.saved_config:  # no file stands for one profile, one collection, no studio mode
            atomic_write(self.config_path, config_bytes(config))
            self.saved_config = config
        self.dirty = False

    def start(self) -> ObsSession:
        """Start OBS now (it otherwise starts on first use)."""
        return self._obs()

    def save_live(self) -> None:
        """Save whatever OBS holds now, changes made outside this adapter included (a person in OBS's
        window): its collections, profile, video and studio mode read back from OBS, then :meth:`save`."""
        self.dirty = True
        self._capture_setup()
        self.save()

    def render(self, path: Path) -> Path:
        """OBS's own screenshot of the program scene."""
        self._read(lambda obs: screenshot(obs, path, width=320))
        return path

    def close(self) -> None:
        if self.session is not None:
            self.session.stop()
            self.session = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    @classmethod
    def readiness(cls) -> Readiness:
        if obs_path() is None:
            return Readiness(False, "obs-studio is not installed (apt-get install obs-studio)")
        if xvfb_path() is None:
            return Readiness(False, "Xvfb is not installed (apt-get install xvfb)")
        if not websocket_client_available():
            return Readiness(False, "the websocket-client package is missing (pip install 'asil[obs]')")
        return Readiness(True, "OBS Studio under a private Xvfb, driven over obs-websocket 5")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        from asil.adapters.obs.builders import build_collection

        atomic_write(workspace.resolve(DEFAULT_DOCUMENT), build_collection(SAMPLE))
        return DEFAULT_DOCUMENT


SAMPLE: dict[str, Any] = {
    "name": "Sample",
    "scenes": [{"name": "Scene", "items": [{"source": "Background"}, {"source": "Caption", "position": [20, 300]}]}],
    "inputs": [{"name": "Background", "kind": "color", "settings": {"color": "#202020", "width": 640, "height": 360}},
               {"name": "Caption", "kind": "text", "settings": {"text": "Live soon", "font": {"face": "Sans Serif",
                                                                                          "size": 32}}}],
    "current_scene": "Scene",
}

__all__ = ["ObsAdapter"]
