"""The Audacity action vocabulary: parameter models, examples and tips.

The functions are declared with their planners in ``asil.adapters.audacity.project``.

Every action is data; the adapter turns it into mod-script-pipe command lines whose values it
formats itself (no agent text reaches the pipe unquoted), after checking them against the project.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from asil.adapters.functions import Vocabulary, navigate_page
from asil.adapters.params import Params
from asil.adapters.params import parse_params as parse_params  # re-exported: tests parse single models

MAX_SECONDS = 3600.0
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS)]
Duration = Annotated[float, Field(gt=0, le=600)]
# Names travel inside a quoted pipe argument: no quotes, backslashes or line breaks.
Name = Annotated[str, Field(min_length=1, max_length=60, pattern=r'^[^"\\\x00-\x1f]+$')]
LabelText = Annotated[str, Field(max_length=200, pattern=r'^[^"\\\x00-\x1f]*$')]
TrackRef = Annotated[str, Field(min_length=1, max_length=60, description="A track name (its element id).")]
AudioPath = Annotated[str, Field(min_length=1, max_length=255, pattern=r'^[^"\\\x00-\x1f]+$')]
IMPORT_EXTENSIONS = (".wav", ".flac", ".ogg", ".mp3", ".aiff", ".aif")
EXPORT_EXTENSIONS = (".wav", ".flac", ".ogg")


class _Range(Params):
    """Where an edit applies; omitted parts come from the current selection (or the whole project)."""

    start: Seconds | None = Field(None, description="Start in seconds.")
    end: Seconds | None = Field(None, description="End in seconds (after start).")
    tracks: Annotated[list[TrackRef], Field(min_length=1, max_length=50)] | None = Field(
        None, description="Audio track names; all audio tracks when omitted.")

    @model_validator(mode="after")
    def _ordered(self) -> _Range:
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError("end must be after start")
        return self


class Select(_Range):
    pass


class Amplify(_Range):
    gain_db: Annotated[float, Field(ge=-60, le=60)] = Field(description="Gain in dB (negative is quieter).")


class Normalize(_Range):
    peak_db: Annotated[float, Field(ge=-60, le=0)] = Field(-1.0, description="Target peak in dBFS.")
    remove_dc: bool = True


class Fade(_Range):
    pass


class ChangeTempo(_Range):
    percent: Annotated[float, Field(ge=-90, le=300)] = Field(
        description="Tempo change in percent (100 = twice as fast); pitch is kept.")


class ChangePitch(_Range):
    percent: Annotated[float, Field(ge=-90, le=300)] | None = Field(None, description="Pitch change in percent.")
    semitones: Annotated[float, Field(ge=-24, le=24)] | None = Field(None, description="Pitch change in semitones.")

    @model_validator(mode="after")
    def _one_amount(self) -> ChangePitch:
        if (self.percent is None) == (self.semitones is None):
            raise ValueError("give exactly one of percent or semitones")
        return self


class DeleteRange(_Range):
    pass


class ReduceNoise(_Range):
    """Audacity's spectral Noise Reduction: a noise profile from a noise-only region, then the range is cleaned.

    Audacity keeps one noise profile, and these settings, per run: the first call takes them and
    later calls reuse them, so later calls must name the same noise region and settings.
    """

    noise_start: Seconds = Field(description="Start (s) of a region that holds only the noise (the noise profile).")
    noise_end: Seconds = Field(description="End (s) of the noise-only region.")
    reduction_db: Annotated[float, Field(ge=0, le=48)] = Field(12.0, description="How far the noise is lowered (dB).")
    sensitivity: Annotated[float, Field(ge=0, le=24)] = Field(
        6.0, description="How much of the sound counts as noise (higher removes more).")
    smoothing_bands: Annotated[int, Field(ge=0, le=12)] = Field(
        0, description="Frequency smoothing in bands (Audacity's dialog uses 3; 0 keeps pure tones intact).")

    @model_validator(mode="after")
    def _noise_ordered(self) -> ReduceNoise:
        if self.noise_end <= self.noise_start:
            raise ValueError("noise_end must be after noise_start")
        return self


class _Generate(Params):
    start: Seconds = Field(0.0, description="Where the generated audio begins (s).")
    duration: Duration
    track: TrackRef | None = Field(None, description="An existing audio track to write into (its audio in the "
                                   "range is replaced); a new track is made when omitted.")
    name: Name | None = Field(None, description="Name of the new track (when track is omitted).")


class GenerateTone(_Generate):
    frequency: Annotated[float, Field(ge=1, le=20000)] = 440.0
    amplitude: Annotated[float, Field(ge=0, le=1)] = 0.8
    waveform: Literal["Sine", "Square", "Sawtooth", "Triangle"] = "Sine"


class GenerateNoise(_Generate):
    noise_type: Literal["White", "Pink", "Brownian"] = "White"
    amplitude: Annotated[float, Field(ge=0, le=1)] = 0.5


class GenerateSilence(_Generate):
    pass


class ImportAudio(Params):
    path: AudioPath = Field(description=f"Workspace-relative audio file ({', '.join(IMPORT_EXTENSIONS)}).")


class AddLabel(Params):
    text: LabelText
    start: Seconds
    end: Seconds | None = Field(None, description="End of a region label; a point label when omitted.")
    track: TrackRef | None = Field(None, description="The label track to add to; the first one (or a new one) "
                                   "when omitted.")


class RemoveLabel(Params):
    label: Annotated[int, Field(ge=0)] = Field(description="The label's index (element 'label:N').")


class SetTrack(Params):
    """Track settings as in Audacity's track control panel; what is omitted stays as it is."""

    track: TrackRef
    name: Name | None = Field(None, description="A new name (the element id becomes it).")
    gain_db: Annotated[float, Field(ge=-36, le=36)] | None = Field(
        None, description="The track's gain slider in dB (-36 to +36; 0 is unity). Audio tracks only.")
    pan: Annotated[float, Field(ge=-1, le=1)] | None = Field(
        None, description="Pan from -1 (full left) through 0 (centre) to 1 (full right). Audio tracks only.")
    mute: bool | None = Field(None, description="Mute the track (audio tracks only).")
    solo: bool | None = Field(None, description="Solo the track (audio tracks only).")

    @model_validator(mode="after")
    def _something(self) -> SetTrack:
        if all(getattr(self, key) is None for key in ("name", "gain_db", "pan", "mute", "solo")):
            raise ValueError("give at least one of name, gain_db, pan, mute or solo")
        return self


class EditLabel(Params):
    label: Annotated[int, Field(ge=0)] = Field(description="The label's index (element 'label:N').")
    text: LabelText | None = None
    start: Seconds | None = None
    end: Seconds | None = None


class RenameTrack(Params):
    track: TrackRef
    name: Name


class TrackOnly(Params):
    track: TrackRef


class MixTracks(Params):
    tracks: Annotated[list[TrackRef], Field(min_length=2, max_length=50)] | None = Field(
        None, description="Audio tracks to mix into one; all audio tracks when omitted.")


class Export(Params):
    path: AudioPath = Field(description=f"Workspace-relative output ({', '.join(EXPORT_EXTENSIONS)}).")
    channels: Literal[1, 2] = 1
    start: Seconds | None = Field(None, description="Export only from here (s).")
    end: Seconds | None = Field(None, description="Export only up to here (s).")



EXAMPLES = [
    {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": -6.0}},
    {"action_type": "invoke_function", "target": "fade_in", "params": {"start": 0.0, "end": 0.5}},
    {"action_type": "invoke_function", "target": "normalize", "params": {"peak_db": -1.0}},
    {"action_type": "invoke_function", "target": "generate_tone",
     "params": {"frequency": 1000, "amplitude": 0.3, "start": 0.0, "duration": 0.5, "name": "Beep"}},
    {"action_type": "invoke_function", "target": "add_label", "params": {"text": "Intro", "start": 0.0}},
    {"action_type": "invoke_function", "target": "select", "params": {"start": 0.5, "end": 1.0}},
    {"action_type": "invoke_function", "target": "set_track",
     "params": {"track": "sample", "gain_db": -6.0, "pan": -0.5, "mute": False}},
    {"action_type": "invoke_function", "target": "remove_label", "params": {"label": 0}},
    {"action_type": "invoke_function", "target": "change_pitch", "params": {"semitones": 2}},
    {"action_type": "invoke_function", "target": "reduce_noise",
     "params": {"noise_start": 0.0, "noise_end": 0.5, "start": 0.0, "end": 2.0, "reduction_db": 12}},
    {"action_type": "invoke_function", "target": "export", "params": {"path": "preview.wav", "channels": 1}},
    {"action_type": "navigate", "params": {"offset": 0, "limit": 20}},
    {"action_type": "batch", "params": {"actions": [
        {"action_type": "invoke_function", "target": "fade_out", "params": {"start": 1.5, "end": 2.0}},
        {"action_type": "invoke_function", "target": "add_label", "params": {"text": "End", "start": 2.0}}]}},
]

TIPS = [
    "Elements: '@project' (rate, length, selection), one element per track (id = track name) and one per "
    "label (id 'label:N', N from 0 in time order; with several label tracks, track by track). Times are "
    "seconds from the project start.",
    "Edits (amplify, normalize, fade_in, fade_out, change_tempo, change_pitch, delete_range, reduce_noise) take optional "
    "start/end/tracks; what is omitted comes from the last 'select', else the whole project and all audio tracks.",
    "Generators write into a new track unless params.track names an existing one (its audio in the range is "
    "replaced). Beyond a track's end they extend it.",
    "save() writes the mix to the document .wav (16-bit PCM) and the labels to <name>.labels.txt beside it; a "
    "labels file there is loaded when the document opens. 'export' writes other files.",
    "An .aup3 document is a real Audacity project: every track keeps its gain_db, pan, mute and solo "
    "(set_track changes them), label tracks are elements too (type 'label_track'), and save() has Audacity "
    "write the project itself.",
    "A batch is atomic: if one action fails, the project is as before the batch.",
    "reduce_noise is Audacity's own Noise Reduction: it learns the noise from noise_start-noise_end (a region "
    "with only noise, at least 0.2 s (more below 22 kHz), inside every edited track), then lowers the noise in "
    "start/end/tracks by reduction_db. Audacity keeps ONE noise profile and one set of settings per document: later reduce_noise "
    "calls reuse them and must give the same noise region and settings (a different one is refused).",
]


VOCABULARY = Vocabulary(
    app="audacity",
    action_types=("invoke_function", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name (tracks go in params); navigate: a track name or none",
    navigate_params=navigate_page(200),
    batch_hint="Put only invoke_function edits in a batch; save after it.",
    max_batch=50,
    examples=EXAMPLES,
    tips=TIPS,
)
