"""Latency and observation-size benchmark of the GIMP adapter (a real warm gimp-console).

For a small image (3 layers) and a large one (50 layers of 128x128 on a 256x256 canvas) it
measures, with ``time.perf_counter``:

* cold start: a new adapter's first observation (starts gimp-console, loads the file, computes
  pixel statistics for the first page of layers);
* a cold process per action: one ``gimp-console -b`` that loads the file, applies the same edit
  and saves (what an adapter without a warm session would pay for every action);
* warm edits (``brightness_contrast`` on a random layer), alone and with the observation an agent
  gets back; each edit also saves the private .xcf work file that failures roll back to;
* ``observe()`` with cached statistics, and its size (``estimate_tokens`` on the agent JSON);
* the same layers ten to a layer group (their children are shown and edited like other layers);
* one JPEG pixel checkpoint read by the evaluator and by the raw validator;
* issue 14's additions on a 180x120 photo .xcf with a text layer: ``place_image`` of a 360x240 JPEG
  (own size, and scaled to 120x80), ``set_layer`` with a mode, and the .xcf checkpoints (a layer's mode,
  its fill colour decoded from the tiles, a text layer's font, and a composite region mean) read by the
  evaluator in Python and by the raw validator's one-shot GIMP (its dump, its projection; caches cleared).

It asserts that actions succeed, never on timings.

    .venv/bin/python benchmarks/adapter_latency_gimp.py [--repeats 30] [--part all|issue14]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from timing import pair, percentile, timed

from asil.adapters.gimp.adapter import GimpAdapter
from asil.adapters.gimp.builders import build_image
from asil.apps.gimp import one_shot, scheme_string
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

SMALL: dict[str, Any] = {"width": 96, "height": 64, "background": [40, 90, 160], "gradient": [240, 200, 80],
                         "layers": [{"name": "Box", "x": 10, "y": 10, "width": 24, "height": 16, "color": [220, 40, 40]},
                                    {"name": "Dot", "shape": "ellipse", "x": 56, "y": 30, "width": 24, "height": 24,
                                     "color": [40, 180, 60]}]}


def large(count: int) -> dict[str, Any]:
    layers = [{"name": f"Layer {i:02d}", "x": i * 2, "y": i * 2, "width": 128, "height": 128,
               "color": [(i * 37) % 256, (i * 91) % 256, (i * 53) % 256], "opacity": 50 + i % 50}
              for i in range(count - 1)]
    return {"width": 256, "height": 256, "background": [255, 255, 255], "gradient": [0, 0, 0], "layers": layers}


def grouped(count: int) -> dict[str, Any]:
    """The large image's layers, ten to a layer group (children are shown and paged like other layers)."""
    layers = large(count)["layers"]
    groups = [{"name": f"Group {i // 10}", "group": layers[i:i + 10]} for i in range(0, len(layers), 10)]
    return large(count) | {"layers": groups}


def painted(layers: list[dict[str, Any]]) -> list[str]:
    """The names of the layers with pixels, inside groups too."""
    return [name for layer in layers
            for name in (painted(layer["group"]) if "group" in layer else [layer["name"]])]


def raw_check(repeats: int) -> tuple[str, str]:
    """p50 ms of one JPEG pixel checkpoint: the evaluator (Pillow) and the raw validator (ffmpeg)."""
    from asil.adapters.gimp.validator import raw_judge
    from asil.evaluate.checkpoints import Checkpoint
    from asil.evaluate.evaluator import evaluate_paths

    ws = Workspace.temporary(prefix="asil-bench-gimp-")
    try:
        build_image(ws.root / "photo.jpg", SMALL)
        cp = Checkpoint(type="gimp_pixel_stats", app="gimp", document="photo.jpg", target="mean", expected=[0, 0, 0],
                        tolerance=255)
        evaluator = [timed(lambda: evaluate_paths([[cp]], ws))[0] for _ in range(repeats)]
        raw = [timed(lambda: raw_judge(cp, ws))[0] for _ in range(repeats)]
        return f"{percentile(evaluator, 50):.0f}", f"{percentile(raw, 50):.0f}"
    finally:
        ws.cleanup()


PHOTO = Path(__file__).resolve().parent.parent / "src/asil/tasks/suites/core/gimp/assets/chelsea.jpg"
CARD: dict[str, Any] = {"width": 180, "height": 120, "layers": [
    {"name": "Badge", "x": 8, "y": 8, "width": 24, "height": 24, "color": [220, 30, 30], "opacity": 60},
    {"name": "Title", "text": "Chelsea", "x": 40, "y": 6, "size": 16, "color": [255, 255, 255]}]}
XCF_CHECKS = {"gimp_layer_value": ("Badge.mode", "Badge.fill", "Title.font"),
              "gimp_pixel_stats": ("mean@0,0,60,40",)}


def issue14(repeats: int) -> None:
    """p50/p95 of place_image and set_layer mode (warm), and of the .xcf checkpoints (evaluator vs raw validator)."""
    from asil.adapters.gimp import validator
    from asil.adapters.gimp.validator import raw_judge
    from asil.evaluate.checkpoints import Checkpoint
    from asil.evaluate.evaluator import evaluate_paths

    ws = Workspace.temporary(prefix="asil-bench-gimp-")
    build_image(ws.root / "card.xcf", CARD, PHOTO)
    shutil.copyfile(PHOTO, ws.root / "cat.jpg")
    rows = []
    try:
        with GimpAdapter(ws, "card.xcf") as adapter:
            adapter.observe()
            for label, params in (("place_image 360x240 JPEG, own size", {}),
                                  ("place_image scaled to 120x80", {"width": 120, "height": 80})):
                times = []
                for _ in range(repeats):
                    ms, result = timed(lambda p=params: adapter.execute(Action(
                        action_type="invoke_function", target="place_image",
                        params={"path": "cat.jpg", "name": "Cat", "x": 30, "y": 20, **p}), observe=False))
                    assert result.ok, result.error
                    times.append(ms)
                    assert adapter.execute(Action(action_type="invoke_function", target="delete_layer",
                                                  params={"layer": "Cat"}), observe=False).ok
                rows.append((label, f"{pair(times)} | "))
            modes = [timed(lambda m=mode: adapter.execute(Action(
                action_type="invoke_function", target="set_layer", params={"layer": "Badge", "mode": m}),
                observe=False))[0] for mode in ["multiply", "normal"] * (repeats // 2)]
            rows.append(("set_layer mode", f"{pair(modes)} | "))
            adapter.save()
        for kind, targets in XCF_CHECKS.items():
            for target in targets:
                cp = Checkpoint(type=kind, app="gimp", document="card.xcf", target=target, expected=0, tolerance=1e9)
                ours = [timed(lambda c=cp: evaluate_paths([[c]], ws))[0] for _ in range(repeats)]
                raw = []
                for _ in range(3):  # a one-shot GIMP each time: the validator's caches are emptied
                    validator._DUMPS.clear()
                    validator._PROJECTIONS.clear()
                    raw.append(timed(lambda c=cp: raw_judge(c, ws))[0])
                rows.append((f"checkpoint {kind} {target}", f"{pair(ours)} | {percentile(raw, 50):.0f}"))
    finally:
        ws.cleanup()
    print("\n| issue 14 (180x120 photo .xcf, 3 layers) | warm action or evaluator p50/p95 ms | raw validator p50 ms |"
          "\n|---|---:|---:|")
    for label, value in rows:
        print(f"| {label} | {value} |")


def cold_action(path: Path, layer: str) -> float:
    """One fresh gimp-console that loads ``path``, brightens one layer and saves the .xcf."""
    name, target = scheme_string(layer), scheme_string(str(path))
    script = (f"(let* ((img (car (gimp-file-load 1 {target} {target}))) "
              f"(l (car (gimp-image-get-layer-by-name img {name})))) "
              f"(gimp-drawable-brightness-contrast l 0.1 0.0) (gimp-xcf-save 0 img l {target} {target}))")
    ms, done = timed(lambda: one_shot(script, timeout_s=120))
    assert done.returncode == 0, done.output[-300:]
    return ms


def measure(label: str, spec: dict[str, Any], repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-gimp-")
    build_image(ws.root / "image.xcf", spec)
    names = ["Background", *painted(spec["layers"])]
    cold_each = [cold_action(ws.root / "image.xcf", names[i % len(names)]) for i in range(3)]
    adapter = GimpAdapter(ws, "image.xcf")
    try:
        first_ms, obs = timed(adapter.observe)  # computes the page's pixel statistics
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        edit, edit_observe = [], []
        rng = random.Random(7)
        for _ in range(repeats):
            action = Action(action_type="invoke_function", target="brightness_contrast",
                            params={"layer": rng.choice(names), "brightness": 0.05})
            ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
            assert result.ok, result.error
            edit.append(ms)
            ms, result = timed(lambda a=action: adapter.execute(a))
            assert result.ok, result.error
            edit_observe.append(ms)
        save_ms, _ = timed(adapter.save)
    finally:
        adapter.close()
        ws.cleanup()
    total = obs.navigation.paging.total if obs.navigation.paging else len(names)  # groups count too
    return {"image": label, "layers": total, "first_observe": first_ms, "cold_action": percentile(cold_each, 50),
            "observe": pair(observe), "edit": pair(edit), "edit_observe": pair(edit_observe), "save": f"{save_ms:.0f}",
            "tokens": tokens, "speedup": percentile(cold_each, 50) / percentile(edit, 50)}


def cold_start(spec: dict[str, Any]) -> float:
    """A new adapter (starts GIMP, loads the file) plus its first observation."""
    ws = Workspace.temporary(prefix="asil-bench-gimp-")
    build_image(ws.root / "image.xcf", spec)
    try:
        started = time.perf_counter()
        with GimpAdapter(ws, "image.xcf") as adapter:
            adapter.observe()
            return time.perf_counter() - started
    finally:
        ws.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--layers", type=int, default=50, help="layers in the large image")
    parser.add_argument("--part", choices=("all", "issue14"), default="all", help="issue14: only its additions")
    args = parser.parse_args()
    version = subprocess.run(["gimp-console", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"# {version}, Python {platform.python_version()}, {args.repeats} repeats")
    if args.part == "issue14":
        issue14(args.repeats)
        return
    rows = []
    cases = (("small 96x64", SMALL), ("large 256x256", large(args.layers)),
             ("grouped 256x256", grouped(args.layers)))
    for label, spec in cases:
        row = measure(label, spec, args.repeats)
        row["cold_s"] = cold_start(spec)
        rows.append(row)
    print("| image | layers | cold start s | cold process per action ms | warm edit p50/p95 ms | speed-up "
          "| edit+observe p50/p95 ms | first observe ms | observe p50/p95 ms | save ms | obs tokens |")
    print("|-------|-------:|-------------:|---------------------------:|---------------------:|---------:"
          "|-----------------------:|-----------------:|-------------------:|--------:|-----------:|")
    for r in rows:
        print(f"| {r['image']} | {r['layers']} | {r['cold_s']:.2f} | {r['cold_action']:.0f} | {r['edit']} | "
              f"{r['speedup']:.0f}x | {r['edit_observe']} | {r['first_observe']:.0f} | {r['observe']} | {r['save']} "
              f"| {r['tokens']:,} |")
    evaluator_ms, raw_ms = raw_check(args.repeats)
    print(f"\nOne JPEG pixel checkpoint (96x64), p50: evaluator {evaluator_ms} ms (Pillow), "
          f"raw validator {raw_ms} ms (ffmpeg decode + own arithmetic)")
    issue14(args.repeats)


if __name__ == "__main__":
    main()
