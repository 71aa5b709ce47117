"""Latency and observation-size benchmark of the Blender adapter (a real headless Blender).

For a small scene (5 objects: cube, sphere, floor, light, camera) and a large one (2,000 cubes
plus a light and a camera) it measures, with ``time.perf_counter``:

* cold start: a new adapter's first observation (starts ``blender -b`` and loads the file);
* ``adapter.observe()`` (one window of 50 objects) and its size (``json.dumps(obs.to_agent_dict())``,
  chars/4 as tokens);
* ``set_transform`` on a random object, alone and with the observation an agent gets back (each
  change also copies the scene to the private work file that failures roll back to);
* ``save()`` (temp file in the same folder, then rename);
* ``add_object`` of a primitive made to size (a cylinder with radius, depth and vertices);
* matching objects by properties as the ``blender_matching_objects`` checkpoint does (the whole scene's
  data, then the query ``type=MESH; dimensions~0.5,0.5,3``).

It asserts that actions succeed and land, never on timings.

    .venv/bin/python benchmarks/adapter_latency_blender.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
from typing import Any

from timing import pair, timed

from asil.adapters.blender.adapter import BlenderAdapter
from asil.adapters.blender.query import matching_names
from asil.adapters.blender.scene import build_blend
from asil.protocol import Action
from asil.workspace import Workspace

SMALL: dict[str, Any] = {"objects": [
    {"name": "Cube", "kind": "cube", "location": [0, 0, 1]},
    {"name": "Sphere", "kind": "uv_sphere", "location": [3, 0, 1]},
    {"name": "Floor", "kind": "plane", "scale": [5, 5, 1]},
    {"name": "Key Light", "kind": "light", "location": [4, -4, 6]},
    {"name": "Camera", "kind": "camera", "location": [7, -7, 5], "rotation": [63, 0, 45]}]}


def large(count: int) -> dict[str, Any]:
    cubes = [{"name": f"Crate {i:04d}", "kind": "cube", "location": [i % 50 * 3, i // 50 * 3, 0],
              "scale": [0.5, 0.5, 0.5]} for i in range(count)]
    return {"objects": [*cubes, *SMALL["objects"][3:]]}


def measure(label: str, spec: dict[str, Any], repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-blender-")
    build_ms, _ = timed(lambda: build_blend(ws.root / "scene.blend", spec))
    names = [o["name"] for o in spec["objects"] if o["kind"] != "camera"]
    adapter = BlenderAdapter(ws, "scene.blend")
    try:
        cold_ms, obs = timed(adapter.observe)
        tokens = len(json.dumps(obs.to_agent_dict())) // 4
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        edit, edit_observe = [], []
        rng = random.Random(7)
        for i in range(repeats):
            name = rng.choice(names)
            where = [float(i), 1.0, 2.0]
            action = Action(action_type="invoke_function", target="set_transform",
                            params={"object": name, "location": where})
            ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
            assert result.ok, result.error
            edit.append(ms)
            ms, result = timed(lambda a=action: adapter.execute(a))
            assert result.ok, result.error
            edit_observe.append(ms)
        assert adapter.scene_data()["total"] == len(spec["objects"])
        shaped, match = shaped_adds(adapter, repeats)
        save_ms, _ = timed(adapter.save)
    finally:
        adapter.close()
        ws.cleanup()
    return {"scene": label, "objects": len(spec["objects"]), "build_s": build_ms / 1000, "cold_s": cold_ms / 1000,
            "observe": pair(observe), "edit": pair(edit), "edit_observe": pair(edit_observe), "save": f"{save_ms:.0f}",
            "tokens": tokens, "shaped": pair(shaped), "match": pair(match)}


def shaped_adds(adapter: BlenderAdapter, repeats: int) -> tuple[list[float], list[float]]:
    """Milliseconds of add_object with shape parameters, and of matching the pillars by their dimensions."""
    adds, matches = [], []
    for i in range(repeats):
        action = Action(action_type="invoke_function", target="add_object",
                        params={"kind": "cylinder", "name": f"Pillar {i}", "radius": 0.25, "depth": 3, "vertices": 12,
                                "location": [i * 2.0, -5.0, 1.5]})
        ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
        assert result.ok, result.error
        adds.append(ms)
        ms, found = timed(lambda: matching_names({o["name"]: o for o in adapter.scene_data()["objects"]},
                                                 "type=MESH; dimensions~0.5,0.5,3", 0.001))
        assert len(found) == i + 1, found
        matches.append(ms)
    return adds, matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--large", type=int, default=2000, help="cubes in the large scene")
    args = parser.parse_args()
    version = subprocess.run(["blender", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"# {version}, Python {platform.python_version()}, {args.repeats} repeats")
    rows = [measure("small", SMALL, args.repeats), measure("large", large(args.large), args.repeats)]
    print("| scene | objects | build s | cold start s | observe p50/p95 ms | edit p50/p95 ms "
          "| edit+observe p50/p95 ms | save ms | obs tokens≈ | add_object shaped p50/p95 ms | match query p50/p95 ms |")
    print("|-------|--------:|--------:|-------------:|-------------------:|----------------:"
          "|------------------------:|--------:|------------:|------------------:|------------------:|")
    for r in rows:
        print(f"| {r['scene']} | {r['objects']:,} | {r['build_s']:.1f} | {r['cold_s']:.2f} | {r['observe']} | "
              f"{r['edit']} | {r['edit_observe']} | {r['save']} | {r['tokens']:,} | {r['shaped']} | {r['match']} |")


if __name__ == "__main__":
    main()
