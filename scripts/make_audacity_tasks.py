"""Write the Audacity core tasks (src/asil/tasks/suites/core/audacity/*.json) from compact specs.

    python scripts/make_audacity_tasks.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "src" / "asil" / "tasks" / "suites" / "core" / "audacity"
RATE = 22050


def db(x: float) -> float:
    return round(20 * math.log10(x), 2)


def sine(duration: float, frequency: float = 440, amplitude: float = 0.5, start: float = 0.0,
         end: float | None = None) -> dict[str, Any]:
    return {"kind": "sine", "frequency": frequency, "amplitude": amplitude, "start": start,
            "end": duration if end is None else end}


def audio(path: str, duration: float, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"path": path, "kind": "audio", "content": {"rate": RATE, "channels": 1, "duration": duration, "parts": parts}}


def cp(kind: str, target: str, expected: Any, tolerance: float | None = None, compare: str | None = None,
       ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "app": "audacity", "target": target, "expected": expected}
    if tolerance is not None:
        out["tolerance"] = tolerance
    if compare is not None:
        out["compare"] = compare
    return out


def call(function: str, **params: Any) -> dict[str, Any]:
    return {"action_type": "invoke_function", "target": function, "params": params}


def task(tid: str, domain: str, instruction: str, files: list[dict[str, Any]], paths: list[list[dict[str, Any]]],
         reference: list[dict[str, Any]], budget: int = 15, feasible: bool = True,
         open_doc: str | None = None) -> dict[str, Any]:
    setup: dict[str, Any] = {"files": files}
    if open_doc:
        setup["open"] = {"audacity": open_doc}
    return {"id": f"audacity-{tid}", "suite": "core", "apps": ["audacity"], "domain": domain,
            "instruction": instruction, "setup": setup, "budget": budget, "feasible": feasible,
            "evaluator": {"paths": paths}, "reference": reference}


SINE_RMS = {a: db(a / math.sqrt(2)) for a in (0.25, 0.3, 0.5, 0.6, 0.8)}
HISS = {"kind": "noise", "amplitude": 0.1, "seed": 5}  # uniform: RMS is amplitude / sqrt(3)
HISS_RMS = db(0.1 / math.sqrt(3))

TASKS = [
    task("amplify-6db", "levels", "Make clip.wav 6 dB louder.",
         [audio("clip.wav", 3, [sine(3, amplitude=0.25)])],
         [[cp("audio_peak_db", "clip.wav", db(0.5), 0.3), cp("audio_duration", "clip.wav", 3.0, 0.01)]],
         [call("amplify", gain_db=6.0)]),
    task("normalize-minus1", "levels", "Normalize clip.wav so that its peak level is -1 dBFS.",
         [audio("clip.wav", 3, [sine(3, amplitude=0.3)])],
         [[cp("audio_peak_db", "clip.wav", -1.0, 0.2)]],
         [call("normalize", peak_db=-1.0)]),
    task("quieter-12db", "levels", "clip.wav is too loud: lower its level by 12 dB.",
         [audio("clip.wav", 3, [sine(3, amplitude=0.8)])],
         [[cp("audio_rms_db", "clip.wav", round(SINE_RMS[0.8] - 12, 2), 0.3)]],
         [call("amplify", gain_db=-12.0)]),
    task("fade-in-2s", "fades", "Give clip.wav a fade-in over its first 2 seconds.",
         [audio("clip.wav", 4, [sine(4)])],
         [[cp("audio_rms_db", "clip.wav@0-0.2", [None, -25], compare="range"),
           cp("audio_rms_db", "clip.wav@3.0-4.0", SINE_RMS[0.5], 0.3),
           cp("audio_duration", "clip.wav", 4.0, 0.01)]],
         [call("fade_in", start=0.0, end=2.0)]),
    task("fade-out-last-second", "fades", "Fade out the last second of clip.wav.",
         [audio("clip.wav", 3, [sine(3)])],
         [[cp("audio_rms_db", "clip.wav@2.8-3.0", [None, -25], compare="range"),
           cp("audio_rms_db", "clip.wav@0.5-1.5", SINE_RMS[0.5], 0.3)]],
         [call("fade_out", start=2.0, end=3.0)]),
    task("trim-count-in", "editing", "clip.wav starts with a one-second count-in (a low square wave). Cut it away so "
         "the file starts with the music.",
         [audio("clip.wav", 4, [{"kind": "square", "frequency": 220, "amplitude": 0.3, "start": 0, "end": 1},
                                sine(4, start=1)])],
         [[cp("audio_duration", "clip.wav", 3.0, 0.01), cp("audio_frequency", "clip.wav@0.1-1.0", 440, 5)]],
         [call("delete_range", start=0.0, end=1.0)]),
    task("silence-burst", "repair", "There is a burst of noise in clip.wav between 1.2 s and 1.4 s. Replace it with "
         "silence without changing the length of the file.",
         [audio("clip.wav", 3, [sine(3, amplitude=0.3),
                                {"kind": "noise", "amplitude": 0.6, "start": 1.2, "end": 1.4, "seed": 3}])],
         [[cp("audio_peak_db", "clip.wav@1.22-1.38", [None, -60], compare="range"),
           cp("audio_duration", "clip.wav", 3.0, 0.01),
           cp("audio_rms_db", "clip.wav@0.2-1.0", SINE_RMS[0.3], 0.3)]],
         [call("generate_silence", track="clip", start=1.2, duration=0.2)]),
    task("reduce-hiss", "repair", "interview.wav has a steady hiss under everything; its first second holds only "
         "the hiss. Lower the hiss by at least 15 dB everywhere without making the 440 Hz tone quieter.",
         [audio("interview.wav", 4, [HISS, sine(2.5, amplitude=0.4, start=1.0), sine(4, amplitude=0.4, start=3.0)])],
         [[cp("audio_rms_db", "interview.wav@0.1-0.9", [None, HISS_RMS - 14.7], compare="range"),
           cp("audio_rms_db", "interview.wav@2.6-2.9", [None, HISS_RMS - 14.7], compare="range"),
           cp("audio_rms_db", "interview.wav@1.2-2.3", [db(0.4 / math.sqrt(2)) - 0.5, db(0.4 / math.sqrt(2)) + 0.5],
              compare="range"),
           cp("audio_duration", "interview.wav", 4.0, 0.01)]],
         [call("reduce_noise", noise_start=0.0, noise_end=1.0, reduction_db=18.0)]),
    task("denoise-from-tail-then-normalize", "repair", "The last second of narration.wav holds only background hiss. "
         "Use it to take at least 20 dB of hiss out of the whole file, then normalize the peak to -1 dB.",
         [audio("narration.wav", 4, [HISS, sine(3, amplitude=0.3)])],
         [[cp("audio_rms_db", "narration.wav@3.1-3.9", [None, -33.0], compare="range"),
           cp("audio_peak_db", "narration.wav", -1.0, 0.3),
           cp("audio_duration", "narration.wav", 4.0, 0.01)]],
         [call("reduce_noise", noise_start=3.0, noise_end=4.0, reduction_db=24.0), call("normalize", peak_db=-1.0)]),
    task("tone-into-silence", "generate", "silent.wav is silent. Fill its whole length with a 1000 Hz sine tone at "
         "amplitude 0.5.",
         [audio("silent.wav", 2, [])],
         [[cp("audio_frequency", "silent.wav", 1000, 10), cp("audio_peak_db", "silent.wav", db(0.5), 0.3),
           cp("audio_duration", "silent.wav", 2.0, 0.01)]],
         [call("generate_tone", track="silent", start=0.0, duration=2.0, frequency=1000, amplitude=0.5)]),
    task("append-beep", "generate", "Add a 0.5-second 1000 Hz beep (amplitude 0.5) right after the end of clip.wav, "
         "so the file becomes 2.5 seconds long.",
         [audio("clip.wav", 2, [sine(2, amplitude=0.3)])],
         [[cp("audio_duration", "clip.wav", 2.5, 0.02), cp("audio_frequency", "clip.wav@2.05-2.45", 1000, 15),
           cp("audio_frequency", "clip.wav@0.5-1.5", 440, 5)]],
         [call("generate_tone", start=2.0, duration=0.5, frequency=1000, amplitude=0.5, name="Beep")]),
    task("double-tempo", "time", "Make clip.wav play in 2 seconds instead of 4, without changing its pitch.",
         [audio("clip.wav", 4, [sine(4)])],
         [[cp("audio_duration", "clip.wav", 2.0, 0.05), cp("audio_frequency", "clip.wav@0.3-1.7", 440, 10)]],
         [call("change_tempo", percent=100.0)]),
    task("pitch-octave-up", "time", "Raise the pitch of clip.wav by one octave, keeping its length.",
         [audio("clip.wav", 2, [sine(2)])],
         [[cp("audio_frequency", "clip.wav@0.3-1.7", 880, 15), cp("audio_duration", "clip.wav", 2.0, 0.05)]],
         [call("change_pitch", semitones=12.0)]),
    task("chapter-labels", "labels", "Add point labels to clip.wav: 'Intro' at 0 s, 'Verse' at 2 s and 'Chorus' at "
         "4 s.",
         [audio("clip.wav", 6, [sine(6, amplitude=0.3)])],
         [[cp("audio_labels", "clip.labels.txt", [[0, 0, "Intro"], [2, 2, "Verse"], [4, 4, "Chorus"]], 0.001)]],
         [call("add_label", text="Intro", start=0.0), call("add_label", text="Verse", start=2.0),
          call("add_label", text="Chorus", start=4.0)]),
    task("fix-label-typo", "labels", "The first label of clip.wav reads 'Tkae 1'. Correct it to 'Take 1' and leave "
         "the labels where they are.",
         [audio("clip.wav", 4, [sine(4, amplitude=0.3)]),
          {"path": "clip.labels.txt", "kind": "labels", "content": [[1, 1, "Tkae 1"], [3, 3, "Take 2"]]}],
         [[cp("audio_labels", "clip.labels.txt", [[1, 1, "Take 1"], [3, 3, "Take 2"]], 0.001)]],
         [call("edit_label", label=0, text="Take 1")], open_doc="clip.wav"),
    task("export-preview", "export", "Export the first 2 seconds of clip.wav as a stereo WAV named preview.wav. "
         "clip.wav itself must stay 6 seconds long.",
         [audio("clip.wav", 6, [sine(6, amplitude=0.3)])],
         [[cp("audio_duration", "preview.wav", 2.0, 0.01), cp("audio_channels", "preview.wav", 2),
           cp("audio_duration", "clip.wav", 6.0, 0.01)]],
         [call("export", path="preview.wav", channels=2, start=0.0, end=2.0)]),
    task("mix-in-music", "mixing", "Bring the music from music.wav into voice.wav so both play together from the "
         "start, and save the mix in voice.wav.",
         [audio("voice.wav", 3, [sine(3, frequency=300, amplitude=0.3)]),
          audio("music.wav", 4, [sine(4, frequency=500, amplitude=0.2)])],
         [[cp("audio_duration", "voice.wav", 4.0, 0.02),
           cp("audio_rms_db", "voice.wav@3.2-3.8", db(0.2 / math.sqrt(2)), 0.5),
           cp("audio_rms_db", "voice.wav@0.5-1.5", db(math.sqrt(0.3 ** 2 / 2 + 0.2 ** 2 / 2)), 0.5)]],
         [call("import_audio", path="music.wav")], open_doc="voice.wav"),
    # The music arrives packed: the reference unpacks it on the bash channel (docs/tasks.md, "Bash steps").
    task("bash-unpack-and-mix", "mixing", "The music for the voice-over arrived packed in delivery.tar.gz. Unpack "
         "it next to voice.wav (it holds delivery/music.wav), bring that music into voice.wav so both play together "
         "from the start, and save the mix in voice.wav.",
         [audio("voice.wav", 3, [sine(3, frequency=300, amplitude=0.3)]),
          {"path": "delivery.tar.gz", "kind": "asset", "source": "assets/delivery.tar.gz"}],
         [[{"type": "file_exists", "target": "delivery/music.wav", "expected": True},
           cp("audio_duration", "voice.wav", 4.0, 0.02),
           cp("audio_rms_db", "voice.wav@3.2-3.8", db(0.2 / math.sqrt(2)), 0.5),
           cp("audio_rms_db", "voice.wav@0.5-1.5", db(math.sqrt(0.3 ** 2 / 2 + 0.2 ** 2 / 2)), 0.5)]],
         [{"channel": "bash", "command": "tar -xzf delivery.tar.gz"}, call("import_audio", path="delivery/music.wav")],
         budget=15, open_doc="voice.wav"),
    task("quiet-second-half", "levels", "Lower the level of the last two seconds of clip.wav by 10 dB; the first two "
         "seconds must stay as they are.",
         [audio("clip.wav", 4, [sine(4, amplitude=0.6)])],
         [[cp("audio_rms_db", "clip.wav@2.2-3.8", round(SINE_RMS[0.6] - 10, 2), 0.4),
           cp("audio_rms_db", "clip.wav@0.2-1.8", SINE_RMS[0.6], 0.3)]],
         [call("amplify", start=2.0, end=4.0, gain_db=-10.0)]),
    task("trim-to-two-seconds", "editing", "Shorten clip.wav to 2 seconds by cutting away either its first half or "
         "its second half (your choice).",
         [audio("clip.wav", 4, [sine(4, frequency=440, amplitude=0.4, end=2.0),
                                sine(4, frequency=660, amplitude=0.4, start=2.0)])],
         [[cp("audio_duration", "clip.wav", 2.0, 0.01), cp("audio_frequency", "clip.wav@0.2-1.8", 440, 8)],
          [cp("audio_duration", "clip.wav", 2.0, 0.01), cp("audio_frequency", "clip.wav@0.2-1.8", 660, 8)]],
         [call("delete_range", start=2.0, end=4.0)]),
    task("mark-loud-part", "labels", "clip.wav has one loud section. Mark it with a label named 'Loud': either a "
         "point label where it starts or a region label that covers it.",
         [audio("clip.wav", 4, [sine(4, amplitude=0.05, end=1.0), sine(4, amplitude=0.8, start=1.0, end=2.0),
                                sine(4, amplitude=0.05, start=2.0)])],
         [[cp("audio_labels", "clip.labels.txt", [[1.0, 1.0, "Loud"]], 0.05)],
          [cp("audio_labels", "clip.labels.txt", [[1.0, 2.0, "Loud"]], 0.05)]],
         [call("add_label", text="Loud", start=1.0, end=2.0)]),
    task("normalize-then-fade", "levels", "Normalize clip.wav to a peak of -3 dBFS, then fade out its last second.",
         [audio("clip.wav", 4, [sine(4, amplitude=0.25)])],
         [[cp("audio_peak_db", "clip.wav", -3.0, 0.2), cp("audio_rms_db", "clip.wav@3.9-4.0", [None, -28],
                                                             compare="range")]],
         [call("normalize", peak_db=-3.0), call("fade_out", start=3.0, end=4.0)]),
    task("infeasible-transcribe", "analysis", "Transcribe the words spoken in speech.wav into one label per word.",
         [audio("speech.wav", 2, [sine(2, frequency=180, amplitude=0.3)])],
         [[{"type": "outcome", "expected": "infeasible"}]],
         [{"action_type": "infeasible", "params": {"reason": "Audacity 3.2 has no speech recognition; it cannot "
                                                              "transcribe words into labels."}}], feasible=False),
]


# ---------------------------------------------------------------- real multi-track projects (.aup3)
def tone(duration: float, frequency: float, amplitude: float = 0.3) -> dict[str, Any]:
    return {"rate": RATE, "channels": 1, "duration": duration, "parts": [sine(duration, frequency, amplitude)]}


def project(path: str, tracks: list[dict[str, Any]], label_tracks: list[dict[str, Any]] | None = None,
            ) -> dict[str, Any]:
    """A set-up .aup3 that a real Audacity builds from these tracks and saves (kind audacity_project)."""
    content: dict[str, Any] = {"tracks": tracks}
    if label_tracks:
        content["label_tracks"] = label_tracks
    return {"path": path, "kind": "audacity_project", "content": content}


def track_cp(kind: str, document: str, target: str | None, expected: Any, tolerance: float | None = None,
             ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind, "app": "audacity", "document": document, "expected": expected}
    if target is not None:
        out["target"] = target
    if tolerance is not None:
        out["tolerance"] = tolerance
    return out


BAND = [{"name": "Drums", "audio": tone(4, 110)}, {"name": "Bass", "audio": tone(4, 55)},
        {"name": "Guitar", "audio": tone(4, 330, 0.2)}]

PROJECT_TASKS = [
    task("project-balance-mix", "mixing", "In the Audacity project band.aup3, turn the Drums track's gain down to "
         "-6 dB and pan the Guitar track 40% to the left. Leave the Bass track as it is and save the project.",
         [project("band.aup3", BAND)],
         [[track_cp("audacity_track", "band.aup3", "Drums:gain_db", -6.0, 0.1),
           track_cp("audacity_track", "band.aup3", "Guitar:pan", -0.4, 0.01),
           track_cp("audacity_track", "band.aup3", "Bass:gain_db", 0.0, 0.1),
           track_cp("audacity_track", "band.aup3", "Bass:pan", 0.0, 0.01)]],
         [call("set_track", track="Drums", gain_db=-6.0), call("set_track", track="Guitar", pan=-0.4),
          call("save")], open_doc="band.aup3"),
    task("project-solo-and-mute", "mixing", "session.aup3 is a rough recording. Mute the 'Click' track, solo the "
         "'Vocals' track and give the track called 'Audio 3' the name 'Piano'; keep the track order.",
         [project("session.aup3", [{"name": "Vocals", "audio": tone(3, 220)},
                                   {"name": "Click", "audio": tone(3, 1000, 0.1)},
                                   {"name": "Audio 3", "audio": tone(3, 440, 0.2)}])],
         [[track_cp("audacity_track", "session.aup3", "Click:mute", True),
           track_cp("audacity_track", "session.aup3", "Vocals:solo", True),
           track_cp("audacity_track", "session.aup3", "Vocals:mute", False),
           track_cp("audacity_tracks", "session.aup3", None, ["Vocals", "Click", "Piano"])]],
         [call("set_track", track="Click", mute=True), call("set_track", track="Vocals", solo=True),
          call("set_track", track="Audio 3", name="Piano"), call("save")], open_doc="session.aup3"),
    task("project-tidy-section-labels", "labels", "In podcast.aup3 the 'Sections' label track has a stray label "
         "'take 2 (bad)'. Remove it, move the 'Chorus' label so it starts at exactly 5.0 s, and add a point "
         "label 'Outro' at 7.5 s to the same label track. Save the project.",
         [project("podcast.aup3", [{"name": "Voice", "audio": tone(8, 200)}],
                  [{"name": "Sections", "labels": [[0, 0, "Intro"], [2.0, 2.0, "Verse"], [3.5, 3.5, "take 2 (bad)"],
                                                   [5.2, 5.2, "Chorus"]]}])],
         [[track_cp("audacity_project_labels", "podcast.aup3", "Sections",
                    [[0.0, 0.0, "Intro"], [2.0, 2.0, "Verse"], [5.0, 5.0, "Chorus"], [7.5, 7.5, "Outro"]], 0.001)]],
         [call("remove_label", label=2), call("edit_label", label=2, start=5.0, end=5.0),
          call("add_label", text="Outro", start=7.5, track="Sections"), call("save")],
         budget=15, open_doc="podcast.aup3"),
    task("project-add-bass-track", "mixing", "Add the recording bass.wav to the project song.aup3 as a new track "
         "named 'Bass' whose gain is -3 dB, after the existing tracks, and save the project.",
         [project("song.aup3", [{"name": "Drums", "audio": tone(4, 110)}]),
          audio("bass.wav", 4, [sine(4, frequency=55, amplitude=0.4)])],
         [[track_cp("audacity_tracks", "song.aup3", None, ["Drums", "Bass"]),
           track_cp("audacity_track", "song.aup3", "Bass:gain_db", -3.0, 0.1),
           track_cp("audacity_track", "song.aup3", "Bass:end", 4.0, 0.01)]],
         [call("import_audio", path="bass.wav"), call("set_track", track="bass", name="Bass", gain_db=-3.0),
          call("save")], open_doc="song.aup3"),
]
TASKS += PROJECT_TASKS


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for item in TASKS:
        (OUT / f"{item['id']}.json").write_text(json.dumps(item, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(TASKS)} tasks to {OUT}")


if __name__ == "__main__":
    main()
