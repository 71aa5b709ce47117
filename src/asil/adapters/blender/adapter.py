"""The Blender adapter: a .blend file edited by generated bpy calls in a warm headless Blender.

One Blender per adapter starts on first use (``asil.apps.blender``). After every successful
change the scene is copied to a private work file; a failed action or batch reopens that copy,
so the scene is exactly as before, and a crashed or hung Blender restarts from it. The user's
.blend is written only by :meth:`save` (temp file in the same folder, then rename).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from asil.adapters.base import Readiness
from asil.adapters.blender import actions as act
from asil.adapters.blender.view import DEFAULT_LIMIT, build_observation
from asil.adapters.warm import CheckpointedAdapter
from asil.apps.blender import BlenderCrashed, BlenderSession, blender_path
from asil.protocol import Action, ActionFailed, DocumentError, InvalidAction, Observation
from asil.workspace import Workspace, commit_file

READ_ONLY_OPS = ("scene", "ping", "find")
TRANSFORM_SUFFIXES = ("location", "rotation", "scale")
BLEND_MAGIC = (b"BLENDER", b"\x1f\x8b", b"\x28\xb5\x2f\xfd")  # plain, gzip, zstd


def check_blend_file(path: Path, document: str) -> None:
    """Refuse files Blender cannot open before a Blender ever sees them."""
    if not path.is_file():
        raise DocumentError(f"The Blender file {document!r} does not exist.", hint="Give the path of a .blend file.")
    with open(path, "rb") as handle:
        head = handle.read(8)
    if not head.startswith(BLEND_MAGIC):
        raise DocumentError(f"{document!r} is not a Blender file (it does not start with a .blend header).",
                            hint="Open a .blend file saved by Blender.")


class BlenderAdapter(CheckpointedAdapter[BlenderSession]):
    """A scene: '@scene' and objects (ids = names), paged by object name order."""

    state_name = "scene"
    vocabulary = act.VOCABULARY
    functions = act.FUNCTIONS
    crashed = BlenderCrashed

    def __init__(self, workspace: Workspace, document: str | None = None, *, allow_code: bool = False,
                 limit: int = DEFAULT_LIMIT, **options: Any):
        super().__init__(workspace, document, limit=limit)
        self.path, document = self._open_document("a .blend file")
        check_blend_file(self.path, document)
        self.allow_code = allow_code
        self.work = workspace.private() / f"blender-{os.getpid()}-{id(self)}-{self.path.stem}.blend"

    # ------------------------------------------------------------ the Blender session
    def _start_session(self) -> BlenderSession:
        """A new Blender with the scene as after the last good change (or the user's file)."""
        source = self.work if self.work.is_file() else self.path
        try:
            session = BlenderSession(source)
        except BlenderCrashed:
            if source == self.work:
                raise
            session = None  # Blender refused the user's file at start-up
        if session is None or not session.request("ping")["file"]:
            if session is not None:
                session.kill()
            raise DocumentError(f"Blender could not read {self.document!r}; the file is damaged or not a .blend.",
                                hint="Open a .blend file saved by Blender.")
        return session

    def _call(self, op: str, params: dict[str, Any], *, dry: bool = False, timeout_s: float | None = None) -> Any:
        extra = {} if timeout_s is None else {"timeout_s": timeout_s}
        try:
            return self._program().request(op, params, dry=dry, **extra)
        except BlenderCrashed:
            if not (dry or op in READ_ONLY_OPS):
                raise
            return self._program().request(op, params, dry=dry, **extra)  # reads are safe to retry once

    def _checkpoint(self) -> None:
        """Copy the scene to the private work file: the state a failure or crash goes back to."""
        self._call("save_copy", {"path": str(self.work)})

    def _roll_back(self) -> None:
        if self.session is not None and self.session.alive:
            self.session.request("open", {"path": str(self.work if self.work.is_file() else self.path)})

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        self._turn_page(view, offset, limit)
        data = self._call("scene", {"offset": self.offset, "limit": self.limit})
        session = {"state": "running", "restarts": self.restarts, "allow_code": self.allow_code}
        return build_observation(data, step=self.step, name=self.path.name, document=self.document,
                                 dirty=self.dirty, offset=self.offset, limit=self.limit, session=session)

    def scene_data(self) -> dict[str, Any]:
        """The whole scene as plain data (checkpoints read this)."""
        data: dict[str, Any] = self._call("scene", {})
        return data

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self.vocabulary.require_type(action)
        if action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                self._call("find", {"object": action.target})
            return
        steps = self.vocabulary.members(action, self.functions, self._translate)  # a batch's members are checked when they run
        if action.action_type != "batch" and steps[0][0] != "save":
            self._call(*steps[0], dry=True)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            return self._navigate(action, lambda: self._call("scene", {"limit": 0})["object_names"])
        steps = self.vocabulary.members(action, self.functions, self._translate)
        if steps == [("save", {})]:
            self.save()
            return []
        return self._edit(steps, lambda _index, step: self._run(*step), is_batch=action.action_type == "batch",
                          changes=any(op != "render" for op, _ in steps))

    def _translate(self, action: Action) -> act.Request:
        """The server operation and its JSON params for one checked, non-batch action."""
        if action.action_type == "set_value":
            obj, _, prop = (action.target or "").rpartition(".")
            if not obj or prop not in TRANSFORM_SUFFIXES:
                raise InvalidAction(f"set_value needs a target like 'Cube.location', not {action.target!r}.",
                                    hint="Targets: '<object>.location', '<object>.rotation' or '<object>.scale'.")
            return "set_transform", {"object": obj, prop: self.vocabulary.parse_set_value(action).value}
        function, params = self.functions.parse(action.target or "", action.params)
        return function.require_handler()(self, function.name, params.model_dump(exclude_none=True))

    def _run(self, op: str, params: dict[str, Any]) -> list[str]:
        if op == "render":
            return self._render_to(Path(params["path"]), params)
        if op == "run_python":
            try:
                changed: list[str] = self._call(op, params, timeout_s=params["timeout_s"])
            except BlenderCrashed:
                raise BlenderCrashed(f"run_python did not finish within {params['timeout_s']:g} s (or crashed "
                                     "Blender); Blender was stopped and the scene restarts from before the code.",
                                     hint="Make the code faster, or pass a larger timeout_s.") from None
            return changed
        result: list[str] = self._call(op, params)
        return result

    def _render_to(self, target: Path, params: dict[str, Any]) -> list[str]:
        """Render into a temp file beside ``target``, then rename: the PNG appears whole or not at all."""
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.stem}.asil-render.png")
        try:
            self._call("render", {**params, "path": str(temp)}, timeout_s=120)
            if not temp.is_file():
                raise ActionFailed("Blender rendered no image.", hint="Check the camera and the scene.")
            commit_file(temp, target)
        finally:
            temp.unlink(missing_ok=True)
        return [self.workspace.relative(target)]

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the .blend atomically (same-folder temp file, then rename), with no .blend1 backup."""
        if not self.dirty:
            return
        temp = self.path.with_name(f".{self.path.stem}.asil-save.blend")
        try:
            self._call("save_copy", {"path": str(temp)})
            commit_file(temp, self.path)
        finally:
            temp.unlink(missing_ok=True)
        self.dirty = False

    def render(self, path: Path) -> Path:
        """A small Cycles snapshot of the scene (a temporary camera when it has none)."""
        self._call("render", {"path": str(path), "width": 160, "height": 120, "engine": "CYCLES",
                              "max_samples": 4, "temp_camera": True}, timeout_s=120)
        return path

    @classmethod
    def readiness(cls) -> Readiness:
        if blender_path() is None:
            return Readiness(False, "blender is not installed (apt-get install blender)")
        return Readiness(True, "a headless Blender runs generated bpy calls")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        from asil.adapters.blender.scene import build_blend

        build_blend(workspace.resolve("sample.blend"), {"objects": []}, default_scene=True)
        return "sample.blend"


__all__ = ["BlenderAdapter"]
