"""Latency and observation-size benchmark of the Kdenlive adapter (MLT XML in memory, melt renders).

For projects of 10, 100 and 500 clips (two tracks, a filter on every tenth clip) it measures with
``time.perf_counter``:

* opening the project (safety checks, parse, id assignment) — the adapter's "cold start": melt is a
  one-shot renderer, so there is no program to warm; the warm state is the parsed project;
* ``observe()`` latency and observation tokens (``asil.llm.base.estimate_tokens`` on the agent JSON);
* warm edits through ``execute`` without the observation: ``move_clip`` of a random clip to a free
  span and ``add_filter`` on a random clip (validation on a copy, then the swap), p50/p95;
* ``set_profile`` changing the frame rate (25 <-> 50 fps, every time in the project rescaled), p50;
* ``save`` (atomic write of the XML);
* melt: a one-second render of a 160x90 project to H.264 and a one-frame PNG, and a melt load
  check, compared with the warm edit (each render is a fresh melt process);
* guides, clip markers, the bin and titles on the 100-clip project (p50 of each action through
  ``execute`` without the observation): add_guide, set_guide, add_clip_marker, add_bin_clip,
  add_title, set_title, and placing a bin clip with add_clip; then a one-frame render of a title
  (melt on the runner's private Xvfb: the first render includes starting Xvfb, the rest reuse it).

Timings are printed, never asserted.

    .venv/bin/python benchmarks/adapter_latency_kdenlive.py [--repeats 40]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
from typing import Any

from timing import percentile, timed

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.builders import project_xml
from asil.apps.melt import check_loads, melt_version
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

COLOURS = ["#aa3333", "#33aa33", "#3333aa", "#aaaa33"]


def make_spec(clips: int) -> dict[str, Any]:
    """``clips`` colour clips of 10 frames with 5-frame gaps, split over two tracks."""
    tracks: list[dict[str, Any]] = [{"id": "V1", "clips": []}, {"id": "V2", "clips": []}]
    for n in range(clips):
        clip: dict[str, Any] = {"id": f"k{n}", "source": f"color:{COLOURS[n % 4]}", "start": (n // 2) * 15,
                                "in": 0, "out": 9}
        if n % 10 == 0:
            clip["filters"] = [{"id": f"f{n}", "service": "brightness", "params": {"level": 0.8}}]
        tracks[n % 2]["clips"].append(clip)
    return {"profile": {"width": 160, "height": 90, "fps_num": 25, "fps_den": 1}, "tracks": tracks}


def fn(name: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


def bench_size(ws: Workspace, clips: int, repeats: int, rng: random.Random) -> dict[str, Any]:
    name = f"p{clips}.kdenlive"
    ws.resolve(name).write_bytes(project_xml(make_spec(clips)))
    open_ms, adapter = timed(lambda: KdenliveAdapter(ws, name))
    observe, edits, filters = [], [], []
    tokens = 0
    for _ in range(repeats):
        ms, obs = timed(adapter.observe)
        observe.append(ms)
        tokens = max(tokens, estimate_tokens(json.dumps(obs.to_agent_dict())))
    end = (clips // 2 + 2) * 15
    for i in range(repeats):
        clip = f"k{rng.randrange(clips)}"
        ms, result = timed(lambda c=clip, i=i: adapter.execute(fn("move_clip", clip=c, position=end + 20 * i),
                                                               observe=False))
        assert result.ok, result.error
        edits.append(ms)
        ms, result = timed(lambda c=clip: adapter.execute(fn("add_filter", target=c, service="greyscale"),
                                                          observe=False))
        assert result.ok, result.error
        filters.append(ms)
    rates = []
    for i in range(max(2, repeats // 4)):
        ms, result = timed(lambda i=i: adapter.execute(fn("set_profile", fps_num=50 if i % 2 == 0 else 25),
                                                       observe=False))
        assert result.ok, result.error
        rates.append(ms)
    save_ms, _ = timed(adapter.save)
    return {"fps50": percentile(rates, 50), "clips": clips, "kb": ws.resolve(name).stat().st_size / 1024, "open": open_ms,
            "observe": percentile(observe, 50), "tokens": tokens, "move50": percentile(edits, 50),
            "move95": percentile(edits, 95), "filter50": percentile(filters, 50), "save": save_ms}


def bench_melt(ws: Workspace, repeats: int) -> dict[str, float]:
    spec = {"profile": {"width": 160, "height": 90, "fps_num": 25, "fps_den": 1},
            "tracks": [{"id": "V1", "clips": [{"id": "a", "source": "color:#cc3333", "start": 0, "in": 0, "out": 24}]}]}
    ws.resolve("short.kdenlive").write_bytes(project_xml(spec))
    adapter = KdenliveAdapter(ws, "short.kdenlive")
    video, frame, load = [], [], []
    for i in range(repeats):
        ms, result = timed(lambda i=i: adapter.execute(fn("render_video", path=f"r{i}.mp4"), observe=False))
        assert result.ok, result.error
        video.append(ms)
        ms, result = timed(lambda i=i: adapter.execute(fn("render_frame", path=f"f{i}.png", frame=12), observe=False))
        assert result.ok, result.error
        frame.append(ms)
        ms, _ = timed(lambda: check_loads(ws.resolve("short.kdenlive")))
        load.append(ms)
    return {"video": percentile(video, 50), "frame": percentile(frame, 50), "load": percentile(load, 50)}


def bench_markers(ws: Workspace, repeats: int) -> dict[str, float]:
    """p50 ms of the guide, marker, bin and title functions on a 100-clip project."""
    ws.resolve("m.kdenlive").write_bytes(project_xml(make_spec(100)))
    adapter = KdenliveAdapter(ws, "m.kdenlive")
    times: dict[str, list[float]] = {}

    def run(name: str, **params: Any) -> None:
        ms, result = timed(lambda: adapter.execute(fn(name, **params), observe=False))
        assert result.ok, result.error
        times.setdefault(name, []).append(ms)

    for i in range(repeats):
        run("add_guide", frame=10 * i, comment=f"guide {i}", category=i % 9)
        run("set_guide", frame=10 * i, comment=f"chapter {i}")
        run("add_bin_clip", source=f"color:#{i:06x}", id=f"card{i}")
        run("add_clip_marker", clip=f"card{i}", frame=i, comment="cue", category=1)
        run("add_title", text=f"Title {i}", id=f"title{i}", duration=25)
        run("set_title", clip=f"title{i}", text=f"Title number {i}")
        run("add_clip", track="V1", source=f"bin:title{i}", out_frame=24, position=5000 + 30 * i)
    ms_observe, _ = timed(adapter.observe)
    result = {name: percentile(values, 50) for name, values in times.items()}
    result["observe"] = ms_observe
    return result


def bench_title_render(ws: Workspace, repeats: int) -> tuple[float, float]:
    """A one-frame PNG of a title clip: the first render (starting Xvfb too) and the p50 of the rest."""
    spec = {"profile": {"width": 160, "height": 90, "fps_num": 25, "fps_den": 1},
            "tracks": [{"id": "V1", "clips": [{"id": "t", "source": "title:Hello", "start": 0, "in": 0, "out": 24}]}]}
    ws.resolve("title.kdenlive").write_bytes(project_xml(spec))
    adapter = KdenliveAdapter(ws, "title.kdenlive")
    runs = []
    try:
        for i in range(repeats + 1):
            ms, result = timed(lambda i=i: adapter.execute(fn("render_frame", path=f"t{i}.png", frame=5),
                                                           observe=False))
            assert result.ok, result.error
            runs.append(ms)
    finally:
        adapter.close()
    return runs[0], percentile(runs[1:], 50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--melt-repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="asil-bench-kdenlive-") as scratch:
        ws = Workspace(scratch)
        rows = [bench_size(ws, n, args.repeats, rng) for n in (10, 100, 500)]
        melt = bench_melt(ws, args.melt_repeats)
        markers = bench_markers(ws, args.repeats)
        title_first, title_rest = bench_title_render(ws, args.melt_repeats)
    print(f"Kdenlive adapter latency ({platform.python_version()}, {melt_version()}, {args.repeats} repeats)\n")
    print("| clips | file KB | open ms | observe p50 ms | obs tokens | move_clip p50 / p95 ms | add_filter p50 ms "
          "| fps change p50 ms | save ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['clips']} | {r['kb']:.0f} | {r['open']:.1f} | {r['observe']:.1f} | {r['tokens']} | "
              f"{r['move50']:.1f} / {r['move95']:.1f} | {r['filter50']:.1f} | {r['fps50']:.1f} | "
              f"{r['save']:.1f} |")
    warm = rows[0]["move50"]
    print(f"\nmelt (one-second 160x90 project, p50 of {args.melt_repeats}): render_video {melt['video']:.0f} ms, "
          f"render_frame {melt['frame']:.0f} ms, load check {melt['load']:.0f} ms; a warm edit of a 10-clip "
          f"project is {melt['load'] / warm:.0f}x faster than one melt start.")
    print("\nGuides, markers, bin and titles (100-clip project, p50 ms): "
          + ", ".join(f"{name} {ms:.1f}" for name, ms in markers.items() if name != "observe")
          + f"; observe with {args.repeats} guides, bin clips and titles {markers['observe']:.1f} ms.")
    print(f"Title render_frame (melt on a private Xvfb): first {title_first:.0f} ms (starts Xvfb), "
          f"then p50 {title_rest:.0f} ms.")


if __name__ == "__main__":
    main()
