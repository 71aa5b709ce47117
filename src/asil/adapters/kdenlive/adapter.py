"""The Kdenlive adapter: an MLT XML project (.kdenlive / .mlt) edited in memory, rendered by melt.

MLT is Kdenlive's engine and melt its command-line player; melt is a one-shot renderer with no
command loop, so the warm state here is the parsed project held in memory (the deepest path MLT
offers: the same XML Kdenlive saves and melt plays). Every edit runs on a copy of the project
that replaces the current one only when the whole action (or batch) succeeded; renders run the
real melt on a snapshot of the current state with a timeout. The project file is written by
``save`` (temp file, then rename).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.functions import AppFunction
from asil.adapters.kdenlive.actions import MAX_LIMIT, VOCABULARY
from asil.adapters.kdenlive.edits import Edit, EditContext, probe_frames
from asil.adapters.kdenlive.functions import FUNCTIONS
from asil.adapters.kdenlive.markers import categories
from asil.adapters.kdenlive.media import media_beside, outside_files, producer_file
from asil.adapters.kdenlive.project import Project, load_project
from asil.adapters.kdenlive.titles import is_title
from asil.adapters.kdenlive.view import TIMELINE_VIEW, rows, summary
from asil.apps.melt import MeltRunner, ffprobe_path, melt_path, render_frame, render_video
from asil.protocol import (
    Action,
    ActionFailed,
    AppState,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace, atomic_write

DEFAULT_LIMIT = 60
Step = tuple[AppFunction[Edit], Any]  # a function and its parsed params
SAMPLE = """<?xml version="1.0" encoding="utf-8"?>
<mlt LC_NUMERIC="C" version="7.12.0" producer="main">
  <profile description="tiny 16:9" width="160" height="90" progressive="1" sample_aspect_num="1"
           sample_aspect_den="1" display_aspect_num="16" display_aspect_den="9" frame_rate_num="25"
           frame_rate_den="1" colorspace="709"/>
  <producer id="red" in="0" out="14999">
    <property name="length">15000</property>
    <property name="resource">#cc2222</property>
    <property name="mlt_service">color</property>
  </producer>
  <playlist id="V1">
    <blank length="100"/>
    <entry producer="red" in="0" out="24"><property name="asil:id">c1</property></entry>
  </playlist>
  <tractor id="main">
    <track producer="V1"/>
  </tractor>
</mlt>
"""


class KdenliveAdapter(Adapter):
    """A video editing project: profile, tracks, clips, filters and transitions with stable ids."""

    vocabulary = VOCABULARY
    functions = FUNCTIONS
    sample = SAMPLE

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 render_timeout_s: float = 120.0, **options: Any):
        super().__init__(workspace, document)
        self.path, document = self._open_document("a .kdenlive or .mlt project")
        self.project = load_project(self.path, document)
        self.view, self.offset, self.limit = TIMELINE_VIEW, 0, max(1, min(limit, MAX_LIMIT))
        self.dirty = False
        self.version = 0  # counts swaps of the project, so a cached dry run is never applied to a newer state
        self.render_timeout_s = render_timeout_s
        self._frames: dict[tuple[str, int, int, float], int | None] = {}
        self._checked: tuple[str, Project, list[str]] | None = None  # the dry run _apply may reuse
        self.melt = MeltRunner()  # one melt at a time for this episode; close() stops a render in progress
        self.context = EditContext(workspace, self.path.parent, self._media_frames)

    def _media_frames(self, path: Path, fps: float) -> int | None:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size, fps)
        if key not in self._frames:
            self._frames[key] = probe_frames(path, fps)
        return self._frames[key]

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._set_view(view)
        if self.view != TIMELINE_VIEW and self.project.track(self.view) is None:
            self.view = TIMELINE_VIEW  # the track in view is gone
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), MAX_LIMIT)
        items = rows(self.project, self.view)
        self.offset = min(self.offset, max(0, len(items) - 1))
        window = [build() for build in items[self.offset:self.offset + self.limit]]
        tracks = self.project.tracks()
        details = {"duration_frames": self.project.duration(), "fps": round(self.project.profile().fps, 4),
                   "tracks": [t.id for t in tracks]}
        return Observation(
            metadata=Metadata(app="kdenlive", source="script", step=self.step),
            app_state=AppState(view=self.view, active_document=self.path.name, document_path=self.document,
                               dirty=self.dirty, details=details),
            elements=window,
            environment={"engine": "MLT XML in memory; melt renders", "time_unit": "frames",
                         "media_files": media_beside(self.path.parent, self.workspace),
                         "marker_categories": categories(self.project)},
            navigation=Navigation(views=[TIMELINE_VIEW, *(t.id for t in tracks if t.playlist is not None)],
                                  paging=Paging(offset=self.offset, limit=self.limit, total=len(items))),
            summary=summary(self.project, self.path.name, self.view, self.offset, len(window), len(items)),
        )

    def _set_view(self, view: str) -> None:
        if view != TIMELINE_VIEW:
            track = self.project.track(view)
            if track is None or track.playlist is None:
                views = ", ".join([TIMELINE_VIEW, *(t.id for t in self.project.tracks() if t.playlist is not None)])
                raise InvalidAction(f"There is no view {view!r}.", hint=f"Views: {views}.", code="unknown_view")
        if view != self.view:
            self.view, self.offset = view, 0

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        if action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                self._set_view_check(action.target)
            return
        steps = self.vocabulary.invocations(action, self.functions)
        function, params = steps[0]
        if function.handler is None:  # an output (a batch cannot hold one)
            self._check_output(function.name, params)
            return
        draft, changed = self._dry_run(steps, action.action_type == "batch")
        self._checked = (self._key(action), draft, changed)

    def _set_view_check(self, view: str) -> None:
        saved = self.view, self.offset
        try:
            self._set_view(view)
        finally:
            self.view, self.offset = saved

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            params = self.vocabulary.parse_navigate(action)
            if action.target:
                self._set_view(action.target)
            self.offset = params.offset if params.offset is not None else self.offset
            self.limit = params.limit or self.limit
            return []
        steps = self.vocabulary.invocations(action, self.functions)
        function, params = steps[0]
        if function.name == "save":
            self.save()
            return []
        if function.handler is None:
            return self._output(function.name, params)
        checked, self._checked = self._checked, None
        if checked is not None and checked[0] == self._key(action):
            draft, changed = checked[1], checked[2]
        else:
            draft, changed = self._dry_run(steps, action.action_type == "batch")
        self.project, self.dirty, self.version = draft, True, self.version + 1
        return changed

    def _key(self, action: Action) -> str:
        return f"{self.version}:{action.model_dump_json()}"

    def _dry_run(self, steps: list[Step], batch: bool) -> tuple[Project, list[str]]:
        """Run the edits on a copy of the project; the copy and the changed ids, or InvalidAction."""
        draft = self.project.copy()
        changed: list[str] = []
        for index, (function, params) in enumerate(steps, start=1):
            try:
                changed += [c for c in function.require_handler()(draft, self.context, params) if c not in changed]
            except (InvalidAction, ActionFailed) as exc:
                if not batch:
                    raise
                raise in_batch(exc, index, "Nothing in the batch was applied.") from None
        return draft, changed

    # ------------------------------------------------------------ renders
    def _check_output(self, name: str, params: Any) -> None:
        if name == "save":
            return
        target = self.workspace.resolve(params.path)
        sources = {(self.path.parent / f).resolve() for p in self.project.producers() if (f := producer_file(p))}
        if target in sources:
            raise InvalidAction(f"{params.path!r} is a clip source of this project; a render must not replace it.",
                                hint="Render to a new file name.", code="bad_output")
        self._check_media()
        duration = self.project.duration()
        if duration == 0:
            raise InvalidAction("The timeline is empty; there is nothing to render.", hint="Add a clip first.",
                                code="empty_timeline")
        last = params.frame if name == "render_frame" else max(params.start or 0, params.end or 0)
        if last >= duration:
            raise InvalidAction(f"Frame {last} is past the end of the timeline (frames 0-{duration - 1}).",
                                hint=f"Use frames up to {duration - 1}.", code="bad_range")
        if name == "render_video" and params.start is not None and params.end is not None and params.end < params.start:
            raise InvalidAction(f"end {params.end} is before start {params.start}.", hint="Give start <= end.",
                                code="bad_range")

    def _check_media(self) -> None:
        problems = outside_files(self.project.producers(), self.workspace, self.path.parent)
        if problems:
            raise InvalidAction(f"melt would read media it must not: {', '.join(problems[:5])}.",
                                hint="Use media inside the workspace, next to the project.", code="bad_media")

    def _output(self, name: str, params: Any) -> list[str]:
        target = self.workspace.resolve(params.path)
        with self._snapshot_file() as project:
            if name == "render_video":
                # the clips' end, not the longest producer's (Kdenlive's black track runs on for minutes)
                end = params.end if params.end is not None else self.project.duration() - 1
                render_video(self.melt, project, target, start=params.start or 0, end=end,
                             timeout_s=self.render_timeout_s)
            else:
                render_frame(self.melt, project, target, params.frame, timeout_s=self.render_timeout_s)
        return [params.path]

    def _snapshot_file(self) -> _Snapshot:
        return _Snapshot(self)

    def render(self, path: Path) -> Path:
        """A PNG of the timeline's middle frame as melt draws it (a black frame when the timeline is empty)."""
        self._check_media()
        profile = self.project.profile()
        width = 320
        height = max(2, round(width * profile.height / profile.width / 2) * 2)
        with self._snapshot_file() as project:
            render_frame(self.melt, project, Path(path), self.project.duration() // 2, width=width, height=height,
                         timeout_s=self.render_timeout_s)
        return Path(path)

    # ------------------------------------------------------------ files and life
    def saved_bytes(self) -> bytes:
        """The project as ``save`` writes it: relative media resolve against the project's folder."""
        root = self.project.root
        saved_root = root.attrib.pop("root", None)
        try:
            return self.project.serialize()
        finally:
            if saved_root is not None:
                root.set("root", saved_root)

    def save(self) -> None:
        """Write the project atomically when it changed (or when ids were assigned on open)."""
        if self.dirty or self.project.assigned:
            atomic_write(self.path, self.saved_bytes())
            self.dirty = self.project.assigned = False

    def close(self) -> None:
        """Stop a render still running (its whole process group) and melt's display; the project is not saved."""
        self.melt.close()

    @classmethod
    def readiness(cls) -> Readiness:
        if melt_path() is None:
            return Readiness(False, "melt is not installed (apt-get install melt); projects cannot be rendered")
        if ffprobe_path() is None:
            return Readiness(False, "ffprobe is not installed (apt-get install ffmpeg); media cannot be measured")
        return Readiness(True, "MLT XML edited in memory; melt renders it")



class _Snapshot:
    """The current state written to a private temp project whose media resolve from the project's folder."""

    def __init__(self, adapter: KdenliveAdapter):
        self.adapter = adapter
        self.file = adapter.workspace.private() / f"render-{os.getpid()}-{id(adapter)}.mlt"

    def __enter__(self) -> Path:
        # MLT's Qt module loads titles only on an X display, even a title only the bin holds
        self.adapter.melt.needs_display = any(is_title(p) for p in self.adapter.project.producers())
        copy = self.adapter.project.copy()
        copy.root.set("root", str(self.adapter.path.parent))
        for consumer in copy.root.findall("consumer"):  # melt must only write where the adapter says
            copy.root.remove(consumer)
        atomic_write(self.file, copy.serialize())
        return self.file

    def __exit__(self, *exc: object) -> None:
        self.file.unlink(missing_ok=True)


__all__ = ["KdenliveAdapter"]
