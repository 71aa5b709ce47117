"""The project as Audacity reports it (GetInfo), and the translation of checked actions into pipe commands.

A :class:`Project` is read fresh from Audacity; each function's planner (declared with it in
:data:`FUNCTIONS`) turns one parsed call into the command lines that carry it out, refusing
(InvalidAction) anything that does not fit the project before a single line is sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asil.adapters.audacity import actions as act
from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.params import NoParams
from asil.protocol import InvalidAction

LINE_TOLERANCE = 1e-6


@dataclass
class Track:
    index: int  # position among all tracks (the pipe's Track= number)
    name: str
    kind: str  # wave | label | time
    start: float = 0.0
    end: float = 0.0
    channels: int = 1
    mute: bool = False
    solo: bool = False
    gain_db: float = 0.0
    pan: float = 0.0  # -1 (left) .. 1 (right)
    clips: list[list[float]] = field(default_factory=list)


@dataclass
class Project:
    tracks: list[Track]
    labels: list[list[Any]]  # [start, end, text] in the pipe's SetLabel order
    rate: int
    label_owners: list[int] = field(default_factory=list)  # the label track index of each label

    def any_track(self, name: str) -> Track:
        """An audio or label track by name (set_track and add_label take either)."""
        found = [t for t in self.tracks if t.name == name and t.kind in ("wave", "label")]
        if len(found) != 1:
            names = ", ".join(repr(t.name) for t in self.tracks if t.kind in ("wave", "label")) or "none"
            problem = "no track" if not found else "several tracks"
            raise InvalidAction(f"There is {problem} named {name!r}.", hint=f"Tracks: {names}.",
                                code="unknown_track" if not found else "ambiguous_track")
        return found[0]

    @property
    def audio(self) -> list[Track]:
        return [t for t in self.tracks if t.kind == "wave"]

    @property
    def end(self) -> float:
        return max((t.end for t in self.audio), default=0.0)

    def track(self, name: str, what: str = "track") -> Track:
        found = [t for t in self.audio if t.name == name]
        if not found:
            names = ", ".join(repr(t.name) for t in self.audio) or "none"
            raise InvalidAction(f"There is no audio {what} named {name!r}.", hint=f"Audio tracks: {names}.",
                                code="unknown_track")
        if len(found) > 1:
            raise InvalidAction(f"Several tracks are named {name!r}.",
                                hint="Rename one of them first (rename_track picks the first).", code="ambiguous_track")
        return found[0]


def gain_db(linear: float) -> float:
    """GetInfo reports a track's gain as a factor; its slider (and SetTrack) speaks dB."""
    return round(20 * math.log10(linear), 2) if linear > 0 else -200.0


def read_project(tracks: list[dict[str, Any]], clips: list[dict[str, Any]], labels: list[Any], rate: int) -> Project:
    """Build a Project from the JSON of GetInfo Tracks, Clips and Labels."""
    result = [Track(index=i, name=str(t.get("name", "")), kind=str(t.get("kind", "")),
                    start=float(t.get("start", 0.0)), end=float(t.get("end", 0.0)),
                    channels=int(t.get("channels", 1)), mute=bool(t.get("mute", 0)), solo=bool(t.get("solo", 0)),
                    gain_db=gain_db(float(t.get("gain", 1.0))), pan=round(float(t.get("pan", 0.0)), 4))
              for i, t in enumerate(tracks)]
    for clip in clips:
        if 0 <= int(clip["track"]) < len(result):
            result[int(clip["track"])].clips.append([float(clip["start"]), float(clip["end"])])
    flat = [[float(s), float(e), str(text)] for _track, rows in labels for s, e, text in rows]
    owners = [int(track) for track, rows in labels for _row in rows]
    return Project(result, flat, rate, owners)


def quote(text: str) -> str:
    """A pipe argument value. Names are checked to hold no quote, backslash or control character."""
    return f'"{text}"'


def number(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


@dataclass
class Step:
    """Command lines for one action; ``after`` names a follow-up the adapter runs (e.g. label text)."""

    lines: list[str]
    changed: list[str]
    after: dict[str, Any] = field(default_factory=dict)


def _range(project: Project, params: act._Range, selection: dict[str, Any] | None) -> tuple[float, float, list[Track]]:
    chosen = selection or {}
    start = params.start if params.start is not None else chosen.get("start", 0.0)
    end = params.end if params.end is not None else chosen.get("end", project.end)
    names = params.tracks if params.tracks is not None else chosen.get("tracks")
    tracks = [project.track(n) for n in names] if names else project.audio
    if not tracks:
        raise InvalidAction("The project has no audio track to edit.", hint="Import or generate audio first.",
                            code="no_audio")
    if end > project.end + LINE_TOLERANCE or start >= end:
        raise InvalidAction(f"The range {number(start)}-{number(end)} s is outside the audio (0-{number(project.end)} s).",
                            hint="Give start < end within the project length.", code="bad_range")
    return start, end, tracks


def select_lines(start: float, end: float, tracks: list[Track]) -> list[str]:
    """One Select per run of neighbouring tracks (each pipe command costs a menu refresh in Audacity)."""
    runs: list[list[int]] = []
    for index in sorted(t.index for t in tracks):
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return [f"Select: Start={number(start)} End={number(end)} Track={run[0]} TrackCount={len(run)} "
            f"Mode={'Set' if i == 0 else 'Add'}" for i, run in enumerate(runs)]


@dataclass(frozen=True)
class Scope:
    """What a planner checks a call against: the project, the selection edits default to, a resolver of
    workspace paths and the noise profile the running Audacity holds (None before its first Noise Reduction)."""

    project: Project
    selection: dict[str, Any] | None
    resolve: Callable[[str], Path]
    noise_profile: NoiseProfile | None = None


Planner = Callable[[Any, Scope], Step]  # parsed params -> the command lines that carry the call out


def plan(name: str, params: Any, project: Project, selection: dict[str, Any] | None, resolve: Callable[[str], Path],
         noise_profile: NoiseProfile | None = None) -> Step:
    """The command lines for one parsed call of the function ``name`` (export and save are the adapter's)."""
    return FUNCTIONS.require(name).require_handler()(params, Scope(project, selection, resolve, noise_profile))


def import_audio(params: act.ImportAudio, scope: Scope) -> Step:
    path = scope.resolve(params.path)
    if path.suffix.lower() not in act.IMPORT_EXTENSIONS or not path.is_file():
        raise InvalidAction(f"{params.path!r} is not an audio file in the workspace.",
                            hint=f"Import an existing {', '.join(act.IMPORT_EXTENSIONS)} file.", code="bad_path")
    return Step([f"Import2: Filename={quote(str(path))}"], ["@project"])


def generator(effect: Callable[[Any], str]) -> Planner:
    """The planner of a generator whose Audacity command is ``effect(params)``."""

    def planned(params: Any, scope: Scope) -> Step:
        start, end = params.start, params.start + params.duration
        if params.track is not None:
            if params.name is not None:
                raise InvalidAction("Give either track (write into it) or name (a new track), not both.",
                                    hint="Omit track to make a new track called name.", code="bad_params")
            track = scope.project.track(params.track)
            return Step([*select_lines(start, end, [track]), effect(params)], [track.name])
        new = Track(index=len(scope.project.tracks), name=params.name or "Generated", kind="wave")
        return Step(["NewMonoTrack", *select_lines(start, end, [new]), f"SetTrack: Name={quote(new.name)}",
                     effect(params)], [new.name])

    return planned


def tone(params: act.GenerateTone) -> str:
    # Audacity 3.2's scripted Tone ramps its amplitude down to 0; a Chirp with equal ends is a steady tone.
    frequency, amplitude = number(params.frequency), number(params.amplitude)
    return (f"Chirp: StartFreq={frequency} EndFreq={frequency} StartAmp={amplitude} EndAmp={amplitude} "
            f"Waveform={params.waveform} Interpolation=Linear")


def select(params: act.Select, scope: Scope) -> Step:
    start, end, tracks = _range(scope.project, params, None)
    # Tracks stay None when omitted: "all audio tracks", including ones added later.
    return Step(select_lines(start, end, tracks), ["@project"],
                {"selection": {"start": start, "end": end, "tracks": params.tracks}})


def effect(lines: Callable[[Any], list[str]]) -> Planner:
    """The planner of an effect on a range (the selection's, where omitted) run as ``lines(params)``."""

    def planned(params: Any, scope: Scope) -> Step:
        start, end, tracks = _range(scope.project, params, scope.selection)
        return Step(select_lines(start, end, tracks) + lines(params), [t.name for t in tracks])

    return planned


def _pitch_percent(params: act.ChangePitch) -> float:
    if params.percent is not None:
        return params.percent
    return (2 ** ((params.semitones or 0.0) / 12) - 1) * 100


def add_label(params: act.AddLabel, scope: Scope) -> Step:
    end = params.start if params.end is None else params.end
    if end < params.start:
        raise InvalidAction("A label's end cannot be before its start.", hint="Give end >= start.", code="bad_range")
    # AddLabel writes into the selected label track; with none, Audacity makes one.
    if params.track is not None:
        holder = scope.project.any_track(params.track)
        if holder.kind != "label":
            raise InvalidAction(f"{params.track!r} is an audio track, not a label track.",
                                hint="Name a label track (type 'label_track'), or omit track.", code="not_label_track")
        index = holder.index
    else:
        holders = [t for t in scope.project.tracks if t.kind == "label"] or scope.project.audio
        index = holders[0].index if holders else 0
    select = f"Select: Start={number(params.start)} End={number(end)} Track={index} TrackCount=1 Mode=Set"
    # AddLabel writes into the first label track at or after the focused track, whatever is selected: with
    # several label tracks, the chosen one gets the focus first.
    several = sum(t.kind == "label" for t in scope.project.tracks) > 1
    focus = [select, "SetTrack: Focused=1"] if several else []
    return Step([*focus, select, "AddLabel"], ["@labels"],
                {"label_text": params.text, "label_span": [params.start, end]})


def edit_label(params: act.EditLabel, scope: Scope) -> Step:
    labels = scope.project.labels
    if params.label >= len(labels):
        raise InvalidAction(f"There is no label {params.label}; the project has {len(labels)}.",
                            hint="Labels are 'label:0', 'label:1', ... in the observation.", code="unknown_label")
    old = labels[params.label]
    start = params.start if params.start is not None else old[0]
    end = params.end if params.end is not None else max(old[1], start)
    if end < start:
        raise InvalidAction("A label's end cannot be before its start.", hint="Give end >= start.", code="bad_range")
    parts = [f"Label={params.label}", f"Start={number(start)}", f"End={number(end)}"]
    if params.text is not None:
        parts.append(f"Text={quote(params.text)}")
    return Step([f"SetLabel: {' '.join(parts)}"], [f"label:{params.label}"])


def _label(scope: Scope, label: int) -> list[Any]:
    labels = scope.project.labels
    if label >= len(labels):
        raise InvalidAction(f"There is no label {label}; the project has {len(labels)}.",
                            hint="Labels are 'label:0', 'label:1', ... in the observation.", code="unknown_label")
    return list(labels[label])


def remove_label(params: act.RemoveLabel, scope: Scope) -> Step:
    """Audacity has no scripted 'delete label': the label is moved past everything else in its track and
    the time around it is deleted from that label track alone, so no other label moves or goes."""
    _label(scope, params.label)
    project = scope.project
    owner = project.label_owners[params.label]
    far = math.ceil(max([project.end, *(e for _s, e, _t in project.labels)])) + 10.0
    return Step([f"SetLabel: Label={params.label} Start={number(far)} End={number(far)}",
                 f"Select: Start={number(far - 0.001)} End={number(far + 0.001)} Track={owner} TrackCount=1 Mode=Set",
                 "Delete"], [f"label:{params.label}"], {"label_removed": params.label})


SET_TRACK_AUDIO = ("gain_db", "pan", "mute", "solo")  # the settings only audio tracks have


def set_track(params: act.SetTrack, scope: Scope) -> Step:
    track = scope.project.any_track(params.track)
    asked = [key for key in SET_TRACK_AUDIO if getattr(params, key) is not None]
    if track.kind != "wave" and asked:
        raise InvalidAction(f"{track.name!r} is a label track, which has no {', '.join(asked)}.",
                            hint="Only audio tracks have gain_db, pan, mute and solo; a label track takes name only.",
                            code="not_audio_track")
    parts = [f"Name={quote(params.name)}"] if params.name is not None else []
    if params.gain_db is not None:
        parts.append(f"Gain={number(params.gain_db)}")
    if params.pan is not None:
        parts.append(f"Pan={number(params.pan * 100)}")  # SetTrack takes pan in percent
    parts += [f"{key.title()}={int(value)}" for key in ("mute", "solo") if (value := getattr(params, key)) is not None]
    select = f"Select: Start=0 End=0 Track={track.index} TrackCount=1 Mode=Set"
    # The settings as a fresh GetInfo would report them (gain_db to 0.01 dB, pan to 4 places).
    settings: dict[str, Any] = {"name": params.name, "gain_db": None if params.gain_db is None else round(params.gain_db, 2),
                                "pan": None if params.pan is None else round(params.pan, 4),
                                "mute": params.mute, "solo": params.solo}
    after = {"track_settings": (track.index, {k: v for k, v in settings.items() if v is not None})}
    return Step([select, f"SetTrack: {' '.join(parts)}"], [track.name] + ([params.name] if params.name else []), after)


def _whole(track: Track, project: Project) -> list[str]:
    return [f"Select: Start=0 End={number(max(project.end, track.end, 1.0))} Track={track.index} TrackCount=1 Mode=Set"]


def rename_track(params: act.RenameTrack, scope: Scope) -> Step:
    track = scope.project.track(params.track)
    return Step([*_whole(track, scope.project), f"SetTrack: Name={quote(params.name)}"], [track.name, params.name])


def delete_track(params: act.TrackOnly, scope: Scope) -> Step:
    track = scope.project.track(params.track)
    return Step([*_whole(track, scope.project), "RemoveTracks"], [track.name])


def mix_tracks(params: act.MixTracks, scope: Scope) -> Step:
    tracks = [scope.project.track(n) for n in params.tracks] if params.tracks else scope.project.audio
    if len(tracks) < 2:
        raise InvalidAction("Mixing needs at least two audio tracks.", hint="Import or generate another track.",
                            code="bad_mix")
    end = max(t.end for t in tracks)
    return Step([*select_lines(0.0, end, tracks), "MixAndRender", f"SetTrack: Name={quote('Mix')}"],
                [t.name for t in tracks] + ["Mix"])


# ---------------------------------------------------------------- noise reduction
# Audacity 3.2's Noise Reduction has no scripting parameters. Run through the pipe, its first run in an
# Audacity takes the noise profile of the selection and every later run reduces noise with that
# profile; the profile cannot be taken again without its dialog. Its settings are read from the
# preferences once, when it first runs. A profile region too short for one analysis window makes it
# open a message box, which blocks the pipe: such regions are refused here.
NOISE_WINDOW_SAMPLES = 2048  # Audacity's default analysis window
MIN_PROFILE_SECONDS = 0.2


@dataclass(frozen=True)
class NoiseProfile:
    """What the running Audacity's Noise Reduction learnt and was set to (fixed for that Audacity)."""

    noise_start: float
    noise_end: float
    reduction_db: float
    sensitivity: float
    smoothing_bands: int

    @classmethod
    def of(cls, params: act.ReduceNoise) -> NoiseProfile:
        return cls(params.noise_start, params.noise_end, params.reduction_db, params.sensitivity,
                   params.smoothing_bands)

    def describe(self) -> str:
        return (f"noise_start={number(self.noise_start)}, noise_end={number(self.noise_end)}, "
                f"reduction_db={number(self.reduction_db)}, sensitivity={number(self.sensitivity)}, "
                f"smoothing_bands={self.smoothing_bands}")


def reduce_noise(params: act.ReduceNoise, scope: Scope) -> Step:
    project, kept = scope.project, scope.noise_profile
    start, end, tracks = _range(project, params, scope.selection)
    wanted = NoiseProfile.of(params)
    reduce = [*select_lines(start, end, tracks), "NoiseReduction:"]
    if kept is not None:
        if wanted != kept:
            raise InvalidAction("Audacity keeps one noise profile and one set of Noise Reduction settings per "
                                f"document, and this one was taken with {kept.describe()}.",
                                hint="Repeat those values to reduce noise elsewhere with the same profile.",
                                code="noise_profile_fixed")
        return Step(reduce, [t.name for t in tracks])
    _check_profile_region(params, project, tracks)
    settings = {"Gain": wanted.reduction_db, "Sensitivity": wanted.sensitivity,
                "FreqSmoothing": wanted.smoothing_bands, "ReductionChoice": 0}
    prefs = [f"SetPreference: Name=/Effects/NoiseReduction/{key} Value={number(value)}"
             for key, value in settings.items()]
    profile = [*select_lines(params.noise_start, params.noise_end, tracks), "NoiseReduction:"]
    return Step(prefs + profile + reduce, [t.name for t in tracks], {"noise_profile": wanted})


def _check_profile_region(params: act.ReduceNoise, project: Project, tracks: list[Track]) -> None:
    shortest = max(MIN_PROFILE_SECONDS, 2 * NOISE_WINDOW_SAMPLES / project.rate)
    if params.noise_end - params.noise_start < shortest - LINE_TOLERANCE:
        raise InvalidAction(f"The noise region {number(params.noise_start)}-{number(params.noise_end)} s is too "
                            "short for a noise profile.",
                            hint=f"Give a noise-only region of at least {number(round(shortest, 3))} s.",
                            code="bad_range")
    outside = [t.name for t in tracks
               if params.noise_start < t.start - LINE_TOLERANCE or params.noise_end > t.end + LINE_TOLERANCE]
    if outside:
        raise InvalidAction(f"The noise region {number(params.noise_start)}-{number(params.noise_end)} s is not "
                            f"inside the audio of {', '.join(repr(n) for n in outside)}.",
                            hint="Pick a noise-only region within every edited track's audio.", code="bad_range")


# ---------------------------------------------------------------- the functions, in the order of the schema
# An edit on a range (acts_on "range") takes what it omits of start/end/tracks from the last select.
FUNCTIONS = FunctionTable[Planner]("Audacity", [
    AppFunction("import_audio", act.ImportAudio, "Import an audio file from the workspace as new track(s).",
                acts_on="tracks", handler=import_audio),
    AppFunction("generate_tone", act.GenerateTone, "Generate a tone (sine/square/sawtooth/triangle).",
                acts_on="tracks", handler=generator(tone)),
    AppFunction("generate_noise", act.GenerateNoise, "Generate white, pink or Brownian noise.", acts_on="tracks",
                handler=generator(lambda p: f"Noise: Type={p.noise_type} Amplitude={number(p.amplitude)}")),
    AppFunction("generate_silence", act.GenerateSilence, "Write silence over a time range.", acts_on="tracks",
                handler=generator(lambda p: "Silence")),
    AppFunction("select", act.Select, "Set the selection later edits use when they omit start/end/tracks.",
                acts_on="range", handler=select),
    AppFunction("amplify", act.Amplify, "Change the level of a range by a gain in dB.", acts_on="range",
                handler=effect(lambda p: [f"Amplify: Ratio={number(10 ** (p.gain_db / 20))} AllowClipping=1"])),
    AppFunction("normalize", act.Normalize, "Scale a range so its peak reaches peak_db.", acts_on="range",
                handler=effect(lambda p: [f"Normalize: PeakLevel={number(p.peak_db)} ApplyGain=1 "
                                          f"RemoveDcOffset={int(p.remove_dc)} StereoIndependent=0"])),
    AppFunction("fade_in", act.Fade, "Linear fade-in over a range.", acts_on="range",
                handler=effect(lambda p: ["FadeIn"])),
    AppFunction("fade_out", act.Fade, "Linear fade-out over a range.", acts_on="range",
                handler=effect(lambda p: ["FadeOut"])),
    AppFunction("change_tempo", act.ChangeTempo, "Change tempo (length) of a range, keeping pitch.", acts_on="range",
                handler=effect(lambda p: [f"ChangeTempo: Percentage={number(p.percent)} SBSMS=0"])),
    AppFunction("change_pitch", act.ChangePitch, "Change pitch of a range, keeping tempo.", acts_on="range",
                handler=effect(lambda p: [f"ChangePitch: Percentage={number(_pitch_percent(p))} SBSMS=0"])),
    AppFunction("reduce_noise", act.ReduceNoise, "Noise Reduction: learn the noise from a noise-only region, then "
                "lower it in the range by reduction_db.", acts_on="range", handler=reduce_noise),
    AppFunction("delete_range", act.DeleteRange, "Cut a time range out of tracks (later audio moves earlier).",
                destructive=True, acts_on="range", handler=effect(lambda p: ["Delete"])),
    AppFunction("add_label", act.AddLabel, "Add a point or region label.", acts_on="labels", handler=add_label),
    AppFunction("edit_label", act.EditLabel, "Change a label's text or times.", acts_on="labels", handler=edit_label),
    AppFunction("remove_label", act.RemoveLabel, "Remove a label; later labels are renumbered.", destructive=True,
                acts_on="labels", handler=remove_label),
    AppFunction("set_track", act.SetTrack, "Set a track's name, gain (dB), pan, mute or solo.", acts_on="track",
                handler=set_track),
    AppFunction("rename_track", act.RenameTrack, "Rename a track; its element id becomes the new name.",
                acts_on="track", handler=rename_track),
    AppFunction("delete_track", act.TrackOnly, "Remove a track.", destructive=True, acts_on="track",
                handler=delete_track),
    AppFunction("mix_tracks", act.MixTracks, "Mix audio tracks down into one track named 'Mix'.", destructive=True,
                acts_on="tracks", handler=mix_tracks),
    # The adapter writes files itself: these two have no planner.
    AppFunction("export", act.Export, "Export the mix (or a time range of it) to an audio file.", acts_on="file"),
    AppFunction("save", NoParams, "Write the document now: the mix to the .wav, labels to <name>.labels.txt.",
                acts_on="file", batch=False),
])
