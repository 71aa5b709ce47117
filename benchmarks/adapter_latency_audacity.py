"""Latency and observation-size benchmark of the Audacity adapter (a real, scripted Audacity 3.2).

For a small project (one 3 s track, 2 labels) and a large one (24 tracks, 200 labels) it measures,
with ``time.perf_counter``:

* cold start: a new adapter's first observation (Xvfb + Audacity under bubblewrap, document import);
* a cold process per action: the same start plus one edit, i.e. what a one-process-per-action
  design would pay for every step;
* ``adapter.observe()`` and its size (``asil.llm.base.estimate_tokens`` on the agent JSON);
* warm edits (``amplify`` of a 1 s range, alternating +/-1 dB) alone and with the observation an
  agent gets back; exports excluded;
* ``save()`` (export to a temp file in the same folder, then rename; labels file);
* ``reduce_noise`` on a 30 s hissy take: the first call (preferences, noise profile of 1 s, reduction of
  the whole take) and later calls reusing the profile on a 1 s range;
* a real multi-track project (``.aup3``, 8 tracks, 2 label tracks with 20 labels) that Audacity builds and
  saves: building it, opening it, ``set_track`` (gain / pan / mute), ``add_label`` + ``remove_label``,
  ``edit_label`` (a move), each as ``execute(observe=False)``, and ``save`` (Audacity's SaveCopy).

It asserts that actions succeed, never on timings.

    .venv/bin/python benchmarks/adapter_latency_audacity.py [--repeats 30] [--noise-only | --project-only]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
from typing import Any

from timing import pair, percentile, timed

from asil.adapters.audacity.adapter import AudacityAdapter
from asil.adapters.audacity.audio import format_labels, synthesize
from asil.adapters.audacity.builders import make_project
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

SPEC = {"rate": 22050, "duration": 3.0, "parts": [{"kind": "sine", "frequency": 440, "amplitude": 0.3}]}


def amplify(i: int) -> Action:
    return Action(action_type="invoke_function", target="amplify",
                  params={"start": 0.5, "end": 1.5, "gain_db": 1.0 if i % 2 else -1.0})


def build(ws: Workspace, labels: int) -> None:
    ws.write_bytes("clip.wav", synthesize(SPEC))
    rows = [(i * 3.0 / max(labels, 1), i * 3.0 / max(labels, 1), f"Marker {i}") for i in range(labels)]
    if rows:
        ws.write_bytes("clip.labels.txt", format_labels(rows).encode())


def enlarge(adapter: AudacityAdapter, tracks: int) -> None:
    """Extra tone tracks, so the project has ``tracks`` audio tracks."""
    for i in range(tracks - 1):
        action = Action(action_type="invoke_function", target="generate_tone",
                        params={"frequency": 200 + 10 * i, "amplitude": 0.02, "duration": 3.0, "name": f"Tone {i}"})
        result = adapter.execute(action, observe=False)
        assert result.ok, result.error


def cold_action() -> float:
    ws = Workspace.temporary(prefix="asil-bench-audacity-cold-")
    build(ws, 0)
    adapter = AudacityAdapter(ws, "clip.wav")
    try:
        ms, result = timed(lambda: adapter.execute(amplify(0), observe=False))
        assert result.ok, result.error
        return ms
    finally:
        adapter.close()
        ws.cleanup()


def measure(label: str, tracks: int, labels: int, repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-audacity-")
    build(ws, labels)
    adapter = AudacityAdapter(ws, "clip.wav")  # the default window of 40 items
    try:
        cold_ms, obs = timed(adapter.observe)
        enlarge(adapter, tracks)
        obs = adapter.observe()
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        observe = []
        for _ in range(repeats):
            adapter._project = None  # measure a real read from Audacity, not the cached project
            observe.append(timed(adapter.observe)[0])
        edit, edit_observe = [], []
        for i in range(repeats):
            first, second = amplify(i), amplify(i + 1)
            ms, result = timed(lambda a=first: adapter.execute(a, observe=False))
            assert result.ok, result.error
            edit.append(ms)
            ms, result = timed(lambda a=second: adapter.execute(a))
            assert result.ok, result.error
            edit_observe.append(ms)
        assert len(adapter.project_data().audio) == tracks and len(adapter.project_data().labels) == labels
        save_ms, _ = timed(adapter.save)
    finally:
        adapter.close()
        ws.cleanup()
    return {"project": label, "tracks": tracks, "labels": labels, "cold_s": cold_ms / 1000,
            "observe": pair(observe), "edit": pair(edit), "edit_p50": percentile(edit, 50),
            "edit_observe": pair(edit_observe), "save": f"{save_ms:.0f}", "tokens": tokens}


NOISY = {"rate": 22050, "duration": 30.0, "parts": [{"kind": "noise", "amplitude": 0.1, "seed": 5},
                                                   {"kind": "sine", "frequency": 440, "amplitude": 0.3, "start": 1.0}]}


def reduce_noise(start: float, end: float) -> Action:
    return Action(action_type="invoke_function", target="reduce_noise",
                  params={"noise_start": 0.0, "noise_end": 1.0, "start": start, "end": end, "reduction_db": 12.0})


def measure_noise(repeats: int) -> str:
    """The markdown row of the reduce_noise timings (ms)."""
    ws = Workspace.temporary(prefix="asil-bench-audacity-noise-")
    ws.write_bytes("take.wav", synthesize(NOISY))
    adapter = AudacityAdapter(ws, "take.wav")
    try:
        adapter.observe()
        first_ms, result = timed(lambda: adapter.execute(reduce_noise(0.0, 30.0), observe=False))
        assert result.ok, result.error
        later = []
        for i in range(repeats):
            ms, result = timed(lambda i=i: adapter.execute(reduce_noise(i % 29, i % 29 + 1.0), observe=False))
            assert result.ok, result.error
            later.append(ms)
    finally:
        adapter.close()
        ws.cleanup()
    return f"| 30 s, 1 track | {first_ms:.0f} | {pair(later)} |"


def call(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


PROJECT = {"tracks": [{"name": f"Track {i}", "audio": {**SPEC, "parts": [{"kind": "sine", "frequency": 200 + 40 * i,
                                                                        "amplitude": 0.05}]}} for i in range(8)],
           "label_tracks": [{"name": name, "labels": [[0.1 * k + 0.05 * j, 0.1 * k + 0.05 * j, f"{name} {k}"]
                                                      for k in range(10)]}
                            for j, name in enumerate(("Sections", "Notes"))]}


def measure_project(repeats: int) -> list[str]:
    """Markdown rows of the .aup3 timings (ms)."""
    ws = Workspace.temporary(prefix="asil-bench-audacity-aup3-")
    build_ms, _ = timed(lambda: make_project(PROJECT, ws.root / "band.aup3"))
    adapter = AudacityAdapter(ws, "band.aup3")
    times: dict[str, list[float]] = {"set_track gain": [], "set_track pan+mute": [], "add_label + remove_label": [],
                                     "edit_label (move)": [], "save (SaveCopy)": []}
    try:
        open_ms, _ = timed(adapter.observe)
        for i in range(repeats):
            steps = {"set_track gain": [call("set_track", track="Track 3", gain_db=-6.0 if i % 2 else -3.0)],
                     "set_track pan+mute": [call("set_track", track="Track 5", pan=0.5 if i % 2 else -0.5,
                                                 mute=bool(i % 2))],
                     "add_label + remove_label": [call("add_label", text="tmp", start=2.9, track="Notes"),
                                                  call("remove_label", label=20)],
                     "edit_label (move)": [call("edit_label", label=3, start=0.3 + 0.01 * (i % 2))]}
            for name, actions in steps.items():
                ms = 0.0
                for action in actions:
                    took, result = timed(lambda a=action: adapter.execute(a, observe=False))
                    assert result.ok, (action, result.error)
                    ms += took
                times[name].append(ms)
            adapter.dirty = True  # save() writes only a changed project; each round changed it
            times["save (SaveCopy)"].append(timed(adapter.save)[0])
        assert len(adapter.project_data().labels) == 20
    finally:
        adapter.close()
        ws.cleanup()
    rows = [f"| build (Audacity imports 8 tracks, 20 labels, saves) | {build_ms:.0f} |",
            f"| open (new Audacity, OpenProject2, first observe) | {open_ms:.0f} |"]
    return rows + [f"| {name} | {pair(values)} |" for name, values in times.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--noise-only", action="store_true", help="only the reduce_noise table")
    parser.add_argument("--project-only", action="store_true", help="only the .aup3 project table")
    args = parser.parse_args()
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "audacity"], capture_output=True,
                             text=True).stdout.strip()
    with open("/proc/loadavg") as handle:
        load = handle.read().split()[0]
    print(f"# Audacity {version}, Python {platform.python_version()}, {args.repeats} repeats, load average {load}")
    print("| .aup3 project (8 tracks, 20 labels) | ms (p50/p95 over the repeats) |")
    print("|-------------------------------------|------------------------------:|")
    print("\n".join(measure_project(args.repeats)))
    if args.project_only:
        return
    print()
    print("| reduce_noise take | first call (profile + whole take) ms | later 1 s range p50/p95 ms |")
    print("|-------------------|-------------------------------------:|---------------------------:|")
    print(measure_noise(args.repeats))
    if args.noise_only:
        return
    print()
    cold = [cold_action() for _ in range(3)]
    rows = [measure("small", 1, 2, args.repeats), measure("large", 24, 200, args.repeats)]
    print("| project | tracks | labels | cold start s | observe p50/p95 ms | edit p50/p95 ms "
          "| edit+observe p50/p95 ms | save ms | obs tokens≈ |")
    print("|---------|-------:|-------:|-------------:|-------------------:|----------------:"
          "|------------------------:|--------:|------------:|")
    for r in rows:
        print(f"| {r['project']} | {r['tracks']} | {r['labels']} | {r['cold_s']:.2f} | {r['observe']} | {r['edit']} "
              f"| {r['edit_observe']} | {r['save']} | {r['tokens']:,} |")
    cold_p50 = percentile(cold, 50)
    print(f"\ncold process per action (start + import + one edit), median of 3: {cold_p50:.0f} ms; "
          f"warm edit p50 (small): {rows[0]['edit_p50']:.0f} ms, {cold_p50 / rows[0]['edit_p50']:.0f}x faster")


if __name__ == "__main__":
    main()
