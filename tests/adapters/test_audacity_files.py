"""Audacity's file side without Audacity: WAV levels, label files, the raw validator, command planning."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

import asil.adapters.audacity.checkpoints  # noqa: F401  (registers the audio checkpoint types)
from asil.adapters.audacity import actions as act
from asil.adapters.audacity.audio import format_labels, read_labels, read_wav, synthesize
from asil.adapters.audacity.project import FUNCTIONS, plan, read_project
from asil.adapters.audacity.validator import raw_judge
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, EvalContext
from asil.protocol import InvalidAction
from asil.workspace import Workspace

SPEC = {"rate": 8000, "duration": 1.0, "parts": [{"kind": "sine", "frequency": 400, "amplitude": 0.5, "end": 0.5}]}


def both(ws: Workspace, kind: str, target: str, expected: object, tolerance: float = 1e-6,
         compare: str | None = None) -> tuple[bool, bool]:
    """(evaluator verdict, raw validator verdict) for one checkpoint."""
    cp = Checkpoint(type=kind, app="audacity", target=target, expected=expected, tolerance=tolerance, compare=compare)
    actual = CHECKPOINT_TYPES[kind].read(EvalContext(ws), cp)
    from asil.evaluate.compare import compare as run_compare

    evaluated = run_compare(compare or CHECKPOINT_TYPES[kind].default_compare, actual, expected, tolerance)
    return evaluated, raw_judge(cp, ws)


def test_levels_frequency_and_duration_agree_between_both_readers(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write_bytes("tone.wav", synthesize(SPEC))
    half = 20 * math.log10(0.5)
    assert both(ws, "audio_duration", "tone.wav", 1.0) == (True, True)
    assert both(ws, "audio_peak_db", "tone.wav", half, 0.01) == (True, True)
    assert both(ws, "audio_rms_db", "tone.wav@0.1-0.4", half - 3.01, 0.05) == (True, True)
    assert both(ws, "audio_peak_db", "tone.wav@0.6-0.9", [None, -150], compare="range") == (True, True)
    assert both(ws, "audio_frequency", "tone.wav@0-0.5", 400, 2) == (True, True)
    assert both(ws, "audio_frequency", "tone.wav@0-0.5", 800, 2) == (False, False)
    assert both(ws, "audio_channels", "tone.wav", 1) == (True, True)


def test_a_24_bit_stereo_file_reads_the_same_both_ways(tmp_path: Path) -> None:
    frames = b"".join(int(0.25 * 8388607 * math.sin(2 * math.pi * 100 * i / 4000)).to_bytes(3, "little", signed=True) * 2
                      for i in range(4000))
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(frames), b"WAVE", b"fmt ", 16, 1, 2, 4000,
                         4000 * 6, 6, 24, b"data", len(frames))
    ws = Workspace(tmp_path)
    ws.write_bytes("deep.wav", header + frames)
    assert read_wav(ws.resolve("deep.wav")).channels == 2
    assert both(ws, "audio_channels", "deep.wav", 2) == (True, True)
    assert both(ws, "audio_peak_db", "deep.wav", 20 * math.log10(0.25), 0.01) == (True, True)


def test_unreadable_files_fail_closed_in_both_readers(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write_bytes("junk.wav", b"RIFF----WAVEfmt nonsense")
    cp = Checkpoint(type="audio_duration", app="audacity", target="junk.wav", expected=0)
    assert raw_judge(cp, ws) is False
    assert raw_judge(cp.model_copy(update={"target": "absent.wav"}), ws) is False
    from asil.evaluate.checkpoints import CheckpointUnreadable

    with pytest.raises(CheckpointUnreadable):
        CHECKPOINT_TYPES["audio_duration"].read(EvalContext(ws), cp)


def test_label_files_round_trip(tmp_path: Path) -> None:
    rows = [(0.0, 0.0, "Intro"), (1.25, 2.5, "Verse one")]
    path = tmp_path / "x.labels.txt"
    path.write_text(format_labels(rows), encoding="utf-8")
    assert read_labels(path) == [[0.0, 0.0, "Intro"], [1.25, 2.5, "Verse one"]]
    ws = Workspace(tmp_path)
    assert both(ws, "audio_labels", "x.labels.txt", [[0, 0, "Intro"], [1.25, 2.5, "Verse one"]], 1e-3) == (True, True)
    assert both(ws, "audio_label_texts", "missing.labels.txt", []) == (True, True)


def project() -> object:
    tracks = [{"name": "Voice", "kind": "wave", "start": 0, "end": 3, "channels": 1},
              {"name": "Labels", "kind": "label"},
              {"name": "Music", "kind": "wave", "start": 0, "end": 4, "channels": 2}]
    return read_project(tracks, [{"track": 0, "start": 0, "end": 3}], [[1, [[0.5, 0.5, "A"]]]], 44100)


def test_plans_select_runs_of_tracks_and_format_values() -> None:
    proj = project()
    step = plan("amplify", act.Amplify(gain_db=6.0), proj, None, Path)  # type: ignore[arg-type]
    assert step.lines == ["Select: Start=0 End=4 Track=0 TrackCount=1 Mode=Set",
                          "Select: Start=0 End=4 Track=2 TrackCount=1 Mode=Add", "Amplify: Ratio=1.995262 AllowClipping=1"]
    step = plan("change_pitch", act.ChangePitch(semitones=12.0, tracks=["Music"]), proj, None, Path)  # type: ignore[arg-type]
    assert step.lines[-1] == "ChangePitch: Percentage=100 SBSMS=0"
    step = plan("fade_in", act.Fade(), proj, {"start": 1.0, "end": 2.0, "tracks": ["Voice"]}, Path)  # type: ignore[arg-type]
    assert step.lines[0] == "Select: Start=1 End=2 Track=0 TrackCount=1 Mode=Set"


@pytest.mark.parametrize("name, params, words", [
    ("amplify", {"gain_db": 3.0, "tracks": ["Nope"]}, "no audio track named 'Nope'"),
    ("fade_out", {"start": 3.0, "end": 9.0}, "outside the audio"),
    ("edit_label", {"label": 3, "text": "x"}, "no label 3"),
    ("mix_tracks", {"tracks": ["Voice", "Nope"]}, "no audio track named 'Nope'"),
    ("delete_track", {"track": "Labels"}, "no audio track named 'Labels'"),
])
def test_plans_refuse_what_does_not_fit_the_project(name: str, params: dict[str, object], words: str) -> None:
    parsed = act.parse_params(FUNCTIONS[name].params, params, name)
    with pytest.raises(InvalidAction, match=words):
        plan(name, parsed, project(), None, Path)  # type: ignore[arg-type]


def test_parameters_that_could_break_the_pipe_are_refused() -> None:
    for params in ({"track": "Voice", "name": 'a"b'}, {"track": "Voice", "name": "line\nbreak"},
                   {"track": "Voice", "name": "back\\slash"}):
        with pytest.raises(InvalidAction):
            act.parse_params(act.RenameTrack, params, "rename_track")
    with pytest.raises(InvalidAction, match="exactly one"):
        act.parse_params(act.ChangePitch, {"percent": 5.0, "semitones": 1.0}, "change_pitch")
