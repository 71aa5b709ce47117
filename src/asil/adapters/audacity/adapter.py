"""The Audacity adapter: a .wav document edited by a warm, scripted Audacity (mod-script-pipe).

One Audacity per adapter starts on first use (``asil.apps.audacity``) and imports a private copy
of the document (and of its ``<name>.labels.txt``) taken when the adapter opened. Successful
changes are kept in a journal. A failed action or batch, or a crashed/hung Audacity, throws the
session away; the next call starts Audacity from that copy and replays the journal, so the project
is as after the last good action (generated noise is drawn anew). An .aup3 checkpoint would not
do: Audacity keeps writing every change into the project file it last saved to. The user's .wav
is written only by :meth:`save` (export to a temp file in the same folder, then rename).

An .aup3 document is Audacity's own multi-track project: each session opens a fresh copy of the
private copy (``OpenProject2``), and :meth:`save` has Audacity write the project itself (``SaveCopy``
to a temp file beside the document, read back, then renamed over it).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import wave
from pathlib import Path
from typing import Any

from asil.adapters.audacity import actions as act
from asil.adapters.audacity.audio import AudioUnreadable, format_labels, read_labels, read_wav, synthesize, waveform_png
from asil.adapters.audacity.aup3 import ProjectUnreadable, read_tracks
from asil.adapters.audacity.project import (
    FUNCTIONS,
    NoiseProfile,
    Planner,
    Project,
    Scope,
    Step,
    number,
    quote,
    read_project,
    select_lines,
)
from asil.adapters.audacity.view import DEFAULT_LIMIT, build_observation
from asil.adapters.base import Readiness
from asil.adapters.functions import AppFunction
from asil.adapters.warm import WarmProgramAdapter
from asil.apps.audacity import AudacityCrashed, AudacitySession, CommandFailed, missing_parts
from asil.protocol import Action, ActionFailed, DocumentError, InvalidAction, Observation
from asil.workspace import Workspace, atomic_write, commit_file

READ_ONLY = ("select", "export", "save")  # functions that leave the project's audio and labels as they are
# Edits that change samples but no track, clip, length or label: the project read before them stays true.
KEEP_LAYOUT = ("select", "amplify", "normalize", "fade_in", "fade_out")
# They also leave Audacity's selection as they found it, so a next edit of the same range needs no Select.
KEEP_SELECTION = KEEP_LAYOUT
Call = tuple[AppFunction[Planner], Any]  # a function and its parsed params


def check_wav(path: Path, document: str) -> int:
    """The sample rate of a readable PCM WAV; DocumentError (file untouched) otherwise."""
    if not path.is_file():
        raise DocumentError(f"The audio file {document!r} does not exist.", hint="Give the path of a .wav file.")
    try:
        with wave.open(str(path), "rb") as handle:
            if handle.getnframes() == 0:
                raise DocumentError(f"{document!r} holds no audio frames.", hint="Open a WAV file with audio in it.")
            return int(handle.getframerate())
    except (wave.Error, EOFError) as exc:
        raise DocumentError(f"{document!r} is not a PCM WAV file ({exc}).",
                            hint="Open a .wav file (PCM, 8/16/24/32-bit).") from None


def check_project(path: Path, document: str) -> int:
    """The rate of a saved Audacity 3 project; DocumentError (file untouched) otherwise."""
    if not path.is_file():
        raise DocumentError(f"The project {document!r} does not exist.", hint="Give the path of an .aup3 file.")
    try:
        return read_tracks(path)[0]
    except ProjectUnreadable as exc:
        raise DocumentError(f"{document!r} is not an Audacity 3 project ({exc}).",
                            hint="Open an .aup3 file that Audacity 3 saved.") from None


class AudacityAdapter(WarmProgramAdapter[AudacitySession]):
    """Tracks (ids = names) and labels ('label:N') of one Audacity project: a real .aup3, or one built from a .wav."""

    state_name = "project"
    vocabulary = act.VOCABULARY
    functions = FUNCTIONS

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 visible: bool = False, **options: Any):
        super().__init__(workspace, document, limit=limit)
        self.visible = visible  # Audacity's window at full size with its toolbars (a GUI session)
        self.path, document = self._open_document("a .wav or .aup3 file")
        # An .aup3 is Audacity's own project (tracks with their settings, label tracks); a .wav is one track.
        self.is_project = self.path.suffix.lower() == ".aup3"
        self.rate = check_project(self.path, document) if self.is_project else check_wav(self.path, document)
        self.labels_path = self.path.with_name(f"{self.path.stem}.labels.txt")
        self.selection: dict[str, Any] | None = None
        self._project: Project | None = None
        self._has_clips = False
        self._noise: tuple[AudacitySession, NoiseProfile] | None = None  # which Audacity learnt which profile
        self._selected: tuple[AudacitySession, list[str]] | None = None  # the Select lines that Audacity holds
        self.journal: list[Action] = []  # every change since the document was opened
        self.base = workspace.private() / f"audacity-{os.getpid()}-{id(self)}{self.path.suffix.lower()}"
        self.base_labels = self.base.with_suffix(".labels.txt")
        # Audacity writes every edit into the project file it has open: each session opens its own copy.
        self.working = self.base.with_name(f"{self.base.stem}-open.aup3")
        if self.labels_path.is_file() and not self.is_project:
            try:
                read_labels(self.labels_path)
            except (ValueError, IndexError, OSError, UnicodeDecodeError):
                raise DocumentError(f"{self.labels_path.name} is not an Audacity label file.",
                                    hint="Each line: start<TAB>end<TAB>text (seconds).") from None
        shutil.copyfile(self.path, self.base)
        if self.labels_path.is_file() and not self.is_project:
            shutil.copyfile(self.labels_path, self.base_labels)

    # ------------------------------------------------------------ the Audacity session
    def _start_session(self) -> AudacitySession:
        """A new Audacity with the document copy imported; :meth:`_after_start` replays the journal."""
        from asil.workspace import cache_dir

        session = AudacitySession([self.workspace.root], cache_dir(), visible=self.visible)
        try:
            self._load_document(session)
        except CommandFailed as exc:
            session.kill()
            raise DocumentError(f"Audacity could not read {self.document!r} ({exc.text or 'no detail'}).",
                                hint="Open a .wav file Audacity can import.") from None
        except BaseException:
            session.kill()
            raise
        return session

    def _work_files(self) -> tuple[Path, ...]:
        return (self.base, self.base_labels, self.working, *_sidecars(self.working))

    def _after_start(self) -> None:
        self._replay()

    def _replay(self) -> None:
        """Apply the journal again after a restart (selection-free: every entry names its range)."""
        selection, self.selection = self.selection, None
        try:
            for entry in self.journal:
                self._run(*self._parse(entry))
            self.selection = selection
        except (InvalidAction, ActionFailed) as exc:
            self._discard_session()
            raise ActionFailed(f"Audacity restarted but the earlier edits could not be replayed ({exc.message}).",
                               hint="Close and reopen the document.") from None

    def _load_document(self, session: AudacitySession) -> None:
        if self.is_project:
            for stale in (self.working, *_sidecars(self.working)):
                stale.unlink(missing_ok=True)
            shutil.copyfile(self.base, self.working)
            session.command(f"OpenProject2: Filename={quote(str(self.working))} AddToHistory=0")
            return
        session.command(f"Import2: Filename={quote(str(self.base))}")
        session.command("Select: Start=0 End=0 Track=0 TrackCount=1 Mode=Set")
        session.command(f"SetTrack: Name={quote(self.path.stem)}")
        # An import does not set the project rate; generators and new tracks must match the document.
        session.command(f"SetProject: Rate={self.rate}")
        if self.base_labels.is_file():
            labels = sorted(read_labels(self.base_labels))  # checked when the adapter opened
            for start, end, _text in labels:
                session.command(f"Select: Start={number(start)} End={number(end)} Track=0 TrackCount=1 Mode=Set")
                session.command("AddLabel")
            for index, (start, end, text) in enumerate(labels):
                clean = "".join(c for c in text if c not in '"\\' and c >= " ")
                session.command(f"SetLabel: Label={index} Text={quote(clean)} Start={number(start)} End={number(end)}")

    def _command(self, line: str) -> str:
        if not line.startswith("GetInfo:"):
            self._selected = None  # :meth:`_run` notes a selection an edit kept
        try:
            return self._program().command(line)
        except CommandFailed as exc:
            raise ActionFailed(f"Audacity refused {exc.command}: {exc.text or 'no detail'}.",
                               hint="Check the parameters against the observation.") from None

    def _read(self, clips: bool = False) -> Project:
        """The project as Audacity reports it now (cached until the next change).

        Clips are only shown in observations; checking an action needs tracks and labels only, and
        each pipe command costs a menu refresh in Audacity.
        """
        if self._project is None or (clips and not self._has_clips):
            tracks = json.loads(self._command("GetInfo: Type=Tracks Format=JSON") or "[]")
            found = json.loads(self._command("GetInfo: Type=Clips Format=JSON") or "[]") if clips and tracks else []
            has_labels = any(t.get("kind") == "label" for t in tracks)
            labels = json.loads(self._command("GetInfo: Type=Labels Format=JSON") or "[]") if has_labels else []
            self._project, self._has_clips = read_project(tracks, found, labels, self.rate), clips
        return self._project

    def _discard_session(self) -> None:
        """Throw Audacity away: the next call restarts it and replays the journal."""
        super()._discard_session()
        self._project = None

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        self._turn_page(view, offset, limit)
        if self.session is None or not self.session.alive:
            self._project = None  # health check: a dead Audacity is restarted, not described from memory
        try:
            project = self._read(clips=True)
        except ActionFailed:  # a crashed Audacity restarts (journal replayed); reads are safe to retry
            project = self._read(clips=True)
        session = {"state": "running", "restarts": self.restarts}
        return build_observation(project, step=self.step, name=self.path.name, document=self.document,
                                 dirty=self.dirty, selection=self.selection, offset=self.offset, limit=self.limit,
                                 session=session, label_tracks=self.is_project)

    def project_data(self) -> Project:
        return self._read(clips=True)

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self.vocabulary.require_type(action)
        if action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target and action.target not in self._item_ids():
                raise InvalidAction(f"There is no track or label {action.target!r} to show.",
                                    hint="Navigate to a track name or 'label:N'.", code="unknown_element")
            return
        calls = self.vocabulary.members(action, self.functions, self._parse)  # a batch's members are checked when they run
        if action.action_type != "batch":
            self._plan(*calls[0])

    def _parse(self, action: Action) -> Call:
        self.vocabulary.require_type(action)  # a batch may hold set_value, which Audacity does not take
        return self.functions.parse(action.target or "", action.params)

    def _plan(self, function: AppFunction[Planner], params: Any) -> Step | None:
        """The command lines of one function, checked against the project (None: handled here)."""
        if function.handler is None:  # export and save write files; the adapter does that itself
            if function.name == "export":
                self._export_target(params)
            return None
        project = self._read()  # may restart Audacity (replaying the journal) before its noise profile is asked
        return function.handler(params, Scope(project, self.selection, self.workspace.resolve, self._noise_profile()))

    def _noise_profile(self) -> NoiseProfile | None:
        """The noise profile the running Audacity holds (a restarted one has none until the replay takes it)."""
        held = self._noise
        return held[1] if held is not None and self.session is not None and held[0] is self.session else None

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            return self._navigate(action, self._item_ids)
        members = self.vocabulary.members(action, self.functions, lambda member: (member, *self._parse(member)))
        changed: list[str] = []
        saved_selection = self.selection
        done: list[Action] = []
        for index, (member, function, params) in enumerate(members, start=1):
            try:
                entry = self._explicit(member, function, self.selection)
                changed += [c for c in self._run(function, params) if c not in changed]
                if function.name not in READ_ONLY:
                    done.append(entry)
            except (InvalidAction, ActionFailed) as exc:
                # Back to the journal, so nothing of this action stays; unless nothing was sent: a refusal
                # (InvalidAction) comes from planning, before any command, and needs no restart.
                if done or (function.name not in READ_ONLY and not isinstance(exc, InvalidAction)):
                    self._discard_session()
                self.selection = saved_selection
                if action.action_type != "batch":
                    raise
                raise self._batch_failed(exc, index) from None
        if done:
            self.dirty = True
            self.journal += done
        return changed

    def _explicit(self, member: Action, function: AppFunction[Planner], selection: dict[str, Any] | None) -> Action:
        """The journal form of an edit: the selection it used written into its params."""
        if function.acts_on != "range" or selection is None:
            return member
        params = {**{k: selection[k] for k in ("start", "end", "tracks")}, **member.params}
        return member.model_copy(update={"params": params})

    def _run(self, function: AppFunction[Planner], params: Any) -> list[str]:
        name = function.name
        if name == "save":
            self.save()
            return []
        if name == "export":
            return [self._export(params)]
        step = self._plan(function, params)
        assert step is not None
        before = self._read().labels if "label_text" in step.after else []
        selects = list(itertools.takewhile(lambda line: line.startswith("Select:"), step.lines))
        held = self._selected is not None and self._selected == (self.session, selects)
        for line in step.lines[len(selects):] if held else step.lines:
            self._command(line)  # each command costs Audacity a window refresh: a held selection is not sent again
        if name in KEEP_SELECTION and selects and self.session is not None:
            self._selected = (self.session, selects)
        if "noise_profile" in step.after and self.session is not None:
            self._noise = (self.session, step.after["noise_profile"])
        if "track_settings" in step.after and self._project is not None:
            # SetTrack changed exactly these settings of one track: the project read before stays true
            # with them applied, and the next action needs no GetInfo (each costs a window refresh).
            index, settings = step.after["track_settings"]
            vars(self._project.tracks[index]).update(settings)
        elif "label_removed" in step.after and self._project is not None:
            # Only that label went (remove_label moves it past all others first); later ones renumber.
            del self._project.labels[step.after["label_removed"]], self._project.label_owners[step.after["label_removed"]]
        elif name not in KEEP_LAYOUT:
            self._project = None
        if "selection" in step.after:
            self.selection = step.after["selection"]
        if name in ("rename_track", "delete_track") or (name == "set_track" and params.name is not None):
            self._follow_track(params.track, getattr(params, "name", None))
        if "label_text" in step.after:
            return [self._name_new_label(before, step.after["label_text"], step.after["label_span"])]
        return step.changed

    def _follow_track(self, old: str, new: str | None) -> None:
        """Keep the selection's track names in step with a renamed (new) or deleted (None) track."""
        if self.selection is None or not self.selection.get("tracks"):
            return
        tracks = [new if t == old else t for t in self.selection["tracks"]]
        kept = [t for t in tracks if t is not None]
        self.selection = {**self.selection, "tracks": kept} if kept else None

    def _name_new_label(self, before: list[list[Any]], text: str, span: list[float]) -> str:
        after = self._read().labels
        index = next((i for i, (old, new) in enumerate(zip(before, after, strict=False)) if old != new), len(before))
        self._command(f"SetLabel: Label={index} Text={quote(text)} Start={number(span[0])} End={number(span[1])}")
        self._project = None
        return f"label:{index}"

    def _item_ids(self) -> list[str]:
        project = self._read()
        tracks = [t.name for t in project.tracks if t.kind == "wave" or (self.is_project and t.kind == "label")]
        return tracks + [f"label:{i}" for i in range(len(project.labels))]

    # ------------------------------------------------------------ export, save, render
    def _export_target(self, params: act.Export) -> Path:
        target = self.workspace.resolve(params.path)
        if target.suffix.lower() not in act.EXPORT_EXTENSIONS:
            raise InvalidAction(f"Cannot export to {params.path!r}.",
                                hint=f"Export to a {', '.join(act.EXPORT_EXTENSIONS)} file.", code="bad_path")
        if target == self.path:
            raise InvalidAction("Export cannot overwrite the open document.", hint="Use save for that.",
                                code="bad_path")
        project = self._read()
        if not project.audio:
            raise InvalidAction("There is no audio to export.", hint="Import or generate audio first.", code="no_audio")
        start = params.start or 0.0
        end = project.end if params.end is None else params.end
        if end <= start or end > project.end + 1e-6:
            raise InvalidAction(f"The export range {number(start)}-{number(end)} s is outside the audio "
                                f"(0-{number(project.end)} s).", hint="Give start < end within the project.",
                                code="bad_range")
        return target

    def _export(self, params: act.Export) -> str:
        target = self._export_target(params)
        project = self._read()
        end = project.end if params.end is None else params.end
        self._export_to(target, params.start or 0.0, end, params.channels)
        return self.workspace.relative(target)

    def _export_to(self, target: Path, start: float, end: float, channels: int) -> None:
        """Export the mix of all audio tracks in [start, end] to ``target`` via a same-folder temp file."""
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.stem}.asil-export{target.suffix}")
        try:
            for line in select_lines(start, end, self._read().audio):
                self._command(line)
            self._command(f"Export2: Filename={quote(str(temp))} NumChannels={channels}")
            if not temp.is_file():
                raise ActionFailed("Audacity wrote no file.", hint="Check the path and format.")
            commit_file(temp, target)
        finally:
            temp.unlink(missing_ok=True)

    def save(self) -> None:
        """Write the document atomically: an .aup3 as Audacity saves it, else the mix (16-bit PCM WAV) and
        the labels beside it."""
        if not self.dirty:
            return
        if self.is_project:
            self._save_project()
            self.dirty = False
            return
        project = self._read()
        if project.audio:
            channels = max(t.channels for t in project.audio)
            self._export_to(self.path, 0.0, project.end, min(2, channels))
        if project.labels or self.labels_path.is_file():
            atomic_write(self.labels_path, format_labels([(s, e, t) for s, e, t in project.labels]).encode("utf-8"))
        self.dirty = False

    def start(self) -> AudacitySession:
        """Start Audacity on the document now (it otherwise starts on first use)."""
        return self._program()

    def save_live(self) -> None:
        """Save what Audacity holds now, changes made outside this adapter included (a person in
        Audacity's window): the project is read from Audacity again, then :meth:`save`."""
        self._project = None
        self._selected = None
        self.dirty = True
        self.save()

    def _save_project(self) -> None:
        """Audacity saves the project itself, as a copy in the document's folder that then replaces it.

        SaveCopy, not SaveProject2: SaveProject2 would make the document Audacity's open project, written
        on every later edit and kept in a write-ahead log beside it; SaveCopy writes a closed, whole file.
        """
        temp = self.path.with_name(f".{self.path.stem}.asil-save.aup3")
        try:
            temp.unlink(missing_ok=True)
            self._command(f"SaveCopy: Filename={quote(str(temp))}")
            if not temp.is_file():
                raise ActionFailed("Audacity wrote no project file.", hint="Check that the folder is writable.")
            read_tracks(temp)  # the copy must be a readable project before it replaces the document
            commit_file(temp, self.path)
        except ProjectUnreadable as exc:
            raise ActionFailed(f"Audacity saved a project that cannot be read back ({exc}).") from None
        finally:
            for left in (temp, *_sidecars(temp)):
                left.unlink(missing_ok=True)

    def render(self, path: Path) -> Path:
        """A waveform of the mix with label positions (PNG)."""
        project = self._read()
        temp = self.workspace.private() / f"render-{os.getpid()}-{id(self)}.wav"
        try:
            if project.audio:
                self._export_to(temp, 0.0, project.end, 1)
                audio = read_wav(temp)
            else:
                audio = read_wav_silence(self.rate)
        except AudioUnreadable as exc:
            raise ActionFailed(f"Could not read the rendered mix ({exc}).") from None
        finally:
            temp.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(waveform_png(audio, project.labels))
        return path

    @classmethod
    def readiness(cls) -> Readiness:
        missing = missing_parts()
        if missing:
            return Readiness(False, f"needs {', '.join(missing)} (apt-get install audacity bubblewrap xvfb)")
        return Readiness(True, "a scripted Audacity (mod-script-pipe) under a private Xvfb")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        spec = {"rate": 22050, "duration": 2.5, "parts": [{"kind": "sine", "frequency": 440, "amplitude": 0.4}]}
        workspace.write_bytes("sample.wav", synthesize(spec))
        return "sample.wav"


def _sidecars(project: Path) -> tuple[Path, ...]:
    """The SQLite journal files Audacity keeps beside an open project."""
    return tuple(project.with_name(project.name + suffix) for suffix in ("-wal", "-shm", "-journal"))


def read_wav_silence(rate: int) -> Any:
    from asil.adapters.audacity.audio import Audio

    return Audio(rate, 1, [0.0] * rate)


__all__ = ["AudacityAdapter", "AudacityCrashed"]
