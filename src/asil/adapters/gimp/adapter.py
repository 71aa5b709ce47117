"""The GIMP adapter: an image (.xcf, .png, .jpg) edited through Script-Fu in a warm GIMP.

One GIMP per adapter starts on first use (``asil.apps.gimp``). After every successful change the
image is saved to a private .xcf work file: a failed action or batch reloads that file, so the
image is exactly as before, and a crashed or hung GIMP restarts from it. The user's file is
written only by :meth:`save` (temp file in the same folder, then rename).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from asil.adapters.base import Readiness
from asil.adapters.functions import AppFunction
from asil.adapters.gimp import actions as act
from asil.adapters.gimp.operations import FUNCTIONS, Builder, Canvas, Operation
from asil.adapters.gimp.view import DEFAULT_LIMIT, build_observation
from asil.adapters.warm import CheckpointedAdapter
from asil.apps.gimp import GimpCrashed, GimpSession, ScriptError, gimp_path, scheme_string
from asil.protocol import Action, ActionFailed, DocumentError, InvalidAction, Observation
from asil.workspace import Workspace, commit_file

FORMATS = {".xcf": (b"gimp xcf ",), ".png": (b"\x89PNG\r\n\x1a\n",), ".jpg": (b"\xff\xd8\xff",),
           ".jpeg": (b"\xff\xd8\xff",)}
EXPORT_KIND = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg"}
SLOW_TIMEOUT_S = 120.0
SCHEME_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\x([0-9a-fA-F]{2})")


def scheme_to_json(text: str) -> str:
    """TinyScheme's ``write`` escapes control characters as ``\\xHH``; JSON wants ``\\u00HH``."""
    return SCHEME_ESCAPE.sub(lambda m: f"{m.group(1)}\\u{int(m.group(2), 16):04x}", text)


def check_image_file(path: Path, document: str) -> None:
    """Refuse files GIMP should not be asked to open, before GIMP ever sees them."""
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise DocumentError(f"{document!r} is not an image type the gimp adapter opens.",
                            hint="Open a .xcf, .png, .jpg or .jpeg file.")
    if not path.is_file():
        raise DocumentError(f"The image {document!r} does not exist.", hint="Give the path of an image file.")
    with open(path, "rb") as handle:
        head = handle.read(16)
    if not head.startswith(FORMATS[suffix]):
        raise DocumentError(f"{document!r} is not a {suffix[1:].upper()} image (its first bytes are wrong).",
                            hint=f"Open a real {suffix} file.")


class GimpAdapter(CheckpointedAdapter[GimpSession]):
    """An image: '@image', '@selection' and layers (ids = names), paged top first."""

    state_name = "image"
    max_limit = 100
    vocabulary = act.VOCABULARY
    functions = FUNCTIONS
    crashed = GimpCrashed

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 **options: Any):
        super().__init__(workspace, document, limit=limit)
        self.path, document = self._open_document("an image file", hint="Open a .xcf, .png or .jpg.")
        check_image_file(self.path, document)
        self.image = 0
        self.stats: dict[int, Any] = {}  # layer id -> pixel statistics, until the layer's pixels change
        self._checked: Canvas | None = None
        stem = f"gimp-{os.getpid()}-{id(self)}-{self.path.stem}"
        self.work = workspace.private() / f"{stem}.xcf"
        self.state_file = workspace.private() / f"{stem}.state.json"
        self._program()  # a file GIMP cannot read fails here, as a DocumentError

    # ------------------------------------------------------------ the GIMP session
    def _start_session(self) -> GimpSession:
        """A new GIMP with the image open as after the last good change (or the user's file)."""
        session = GimpSession()
        source = self.work if self.work.is_file() else self.path
        try:
            self.image = int(session.request(f"(asil-open {scheme_string(str(source))})", timeout_s=SLOW_TIMEOUT_S))
        except ScriptError:
            session.kill()
            raise DocumentError(f"GIMP could not read {self.document!r}; the file is damaged or not an image.",
                                hint="Open an image saved by GIMP or another image program.") from None
        self.stats.clear()
        return session

    def _work_files(self) -> tuple[Path, ...]:
        return self.work, self.state_file

    def _call(self, scheme: str, timeout_s: float = 30.0) -> str:
        return self._program().request(scheme, timeout_s=timeout_s)

    def _read_state(self, offset: int, limit: int) -> dict[str, Any]:
        """The image's state from GIMP; statistics of uncached layers on the page are added to the cache."""
        skip = " ".join(str(i) for i in self.stats)
        self._call(f"(asil-state {self.image} {scheme_string(str(self.state_file))} {offset} {limit} (list {skip}))",
                   timeout_s=SLOW_TIMEOUT_S)
        state: dict[str, Any] = json.loads(scheme_to_json(self.state_file.read_text(encoding="utf-8")))
        for layer in state["layers"]:
            if "stats" in layer:
                self.stats[layer["id"]] = layer.pop("stats")
        return state

    def canvas(self) -> Canvas:
        state = self._read_state(0, 0)
        return Canvas.from_state(self.image, state, self.workspace.root)

    def _checkpoint(self) -> None:
        """Save the image to the private work file: the state a failure or crash goes back to."""
        staged = self.work.with_name(self.work.stem + ".next.xcf")
        self._call(f"(asil-save-xcf {self.image} {scheme_string(str(staged))})", timeout_s=SLOW_TIMEOUT_S)
        os.replace(staged, self.work)

    def _roll_back(self) -> None:
        if self.session is None or not self.session.alive:
            return  # the next call restarts GIMP from the work file anyway
        old = self.image
        self.image = int(self.session.request(f"(asil-open {scheme_string(str(self.work))})",
                                              timeout_s=SLOW_TIMEOUT_S))
        self.session.request(f"(asil-close {old})")
        self.stats.clear()

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        self._turn_page(view, offset, limit)
        state = self._read_state(self.offset, self.limit)
        session = {"state": "running", "restarts": self.restarts}
        return build_observation(state, self.stats, step=self.step, name=self.path.name, document=self.document,
                                 dirty=self.dirty, offset=self.offset, limit=self.limit, session=session)

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self._checked = None
        self.vocabulary.require_type(action)
        if action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                self.canvas().layer(action.target)
            return
        members = self.vocabulary.members(action, self.functions, self._parse)
        if action.action_type != "batch" and members[0][0].handler is not None:
            function, params = members[0]
            self._checked = self.canvas()
            function.require_handler()(params, self._checked)  # state checks: layer names, bounds, positions

    def _parse(self, action: Action) -> tuple[AppFunction[Builder], Any]:
        """The function and validated params of one non-batch action (no state checks)."""
        self.vocabulary.require_type(action)  # a batch may hold set_value, which GIMP does not take
        function, params = self.functions.parse(action.target or "", action.params)
        if function.name == "export_image":
            self.workspace.resolve(params.path)
        if function.name == "place_image":
            self._placeable(params.path)
        return function, params

    def _placeable(self, relative: str) -> None:
        """Refuse a file to place that is missing or not the image its name says, before GIMP sees it."""
        path = self.workspace.resolve(relative)
        if not path.is_file():
            raise InvalidAction(f"There is no image file {relative!r} in the workspace.",
                                hint="Give the workspace-relative path of a .png, .jpg or .jpeg file that exists.")
        with open(path, "rb") as handle:
            head = handle.read(16)
        if not head.startswith(FORMATS[path.suffix.lower()]):
            raise InvalidAction(f"{relative!r} is not a {path.suffix[1:].upper()} image (its first bytes are wrong).",
                                hint="Place a real .png, .jpg or .jpeg image file.")

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            return self._navigate(action, lambda: self.canvas().names, keep_offset=False)
        steps = self.vocabulary.members(action, self.functions, self._parse)
        first, params = steps[0]
        if first.name == "save":
            self.save()
            return []
        if first.name == "export_image":
            return self._export(params)
        checked, self._checked = self._checked, None  # the canvas _check just read (single actions)

        def run(index: int, step: tuple[AppFunction[Builder], Any]) -> list[str]:
            function, params = step
            canvas = checked if index == 1 and checked is not None else self.canvas()
            return self._run(function.require_handler()(params, canvas))

        return self._edit(steps, run, is_batch=action.action_type == "batch")

    def _run(self, op: Operation) -> list[str]:
        named_by_gimp = "@image" in op.changed and op.pixels == "none"  # a text layer GIMP names itself
        before = self.canvas().names if named_by_gimp else []
        self._call(op.scheme, timeout_s=SLOW_TIMEOUT_S)
        if op.pixels == "all":
            self.stats.clear()
        elif op.pixels == "layer" and op.layer_id is not None:
            self.stats.pop(op.layer_id, None)
        if named_by_gimp:
            return [n for n in self.canvas().names if n not in before] or op.changed
        return op.changed

    def _export(self, params: act.ExportImage) -> list[str]:
        """Export a flattened copy into a temp file beside the target, then rename it into place."""
        target = self.workspace.resolve(params.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.stem}.asil-export{target.suffix}")
        try:
            self._write_flat(temp, EXPORT_KIND[target.suffix.lower()], params.quality)
            commit_file(temp, target)
        finally:
            temp.unlink(missing_ok=True)
        return [self.workspace.relative(target)]

    def _write_flat(self, path: Path, kind: str, quality: int) -> None:
        self._call(f"(asil-export {self.image} {scheme_string(str(path))} {scheme_string(kind)} {quality / 100})",
                   timeout_s=SLOW_TIMEOUT_S)
        if not path.is_file():
            raise ActionFailed(f"GIMP wrote no {kind.upper()} file.", hint="Check that the image has visible layers.")

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the document atomically: .xcf keeps the layers, .png/.jpg get a flattened copy."""
        if not self.dirty:
            return
        suffix = self.path.suffix.lower()
        temp = self.path.with_name(f".{self.path.stem}.asil-save{suffix}")
        try:
            if suffix == ".xcf":
                self._call(f"(asil-save-xcf {self.image} {scheme_string(str(temp))})", timeout_s=SLOW_TIMEOUT_S)
            else:
                self._write_flat(temp, EXPORT_KIND[suffix], 90)
            commit_file(temp, self.path)
        finally:
            temp.unlink(missing_ok=True)
        self.dirty = False

    def render(self, path: Path) -> Path:
        """A flattened PNG of the image as it is now."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self._write_flat(path, "png", 90)
        return path

    @classmethod
    def readiness(cls) -> Readiness:
        if gimp_path() is None:
            return Readiness(False, "gimp-console is not installed (apt-get install gimp)")
        return Readiness(True, "a warm gimp-console runs Script-Fu calls")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        from asil.adapters.gimp.builders import cached_image
        from asil.workspace import cache_dir

        spec = {"width": 64, "height": 48, "background": [200, 200, 200],
                "layers": [{"name": "Box", "x": 8, "y": 8, "width": 16, "height": 12, "color": [255, 0, 0]}]}
        shutil.copyfile(cached_image(spec, ".xcf", cache_dir()), workspace.resolve("sample.xcf"))
        logo = {"width": 32, "height": 32, "background": None,  # the file the place_image example places
                "layers": [{"name": "Disc", "shape": "ellipse", "width": 32, "height": 32, "color": [30, 60, 200]}]}
        shutil.copyfile(cached_image(logo, ".png", cache_dir()), workspace.resolve("logo.png"))
        return "sample.xcf"


__all__ = ["GimpAdapter"]
