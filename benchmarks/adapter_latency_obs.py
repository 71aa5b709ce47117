"""Latency and observation-size benchmark of the OBS adapter (a real OBS Studio over obs-websocket 5).

For a small collection (2 scenes, 4 inputs) and a large one (50 scenes of 5 items each, 250
inputs) it measures, with ``time.perf_counter``:

* cold start: a new adapter's first observation (starts Xvfb and OBS, connects the websocket);
* ``adapter.observe()`` (one window of 60 elements) and its size (``estimate_tokens`` on the
  observation's JSON);
* warm actions without the observation: ``set_transform`` and ``set_input_settings`` on random
  items (each also makes OBS write its collection: the checkpoint a failure or crash goes back to);
* ``save()`` (OBS writes its collection, then a same-folder temp file is renamed over the document).

Recording is excluded (it lasts as long as the take). A second table times the functions on scene
collections, profiles and studio mode on the small collection (each switch and transition alternates
between two, so every call really changes OBS; a transition waits for OBS's 300 ms fade; each create
or duplicate makes a new one). It asserts that actions succeed, never timings.

    .venv/bin/python benchmarks/adapter_latency_obs.py [--repeats 40] [--setup-repeats 10]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
from typing import Any

from timing import pair, timed

from asil.adapters.obs.adapter import ObsAdapter
from asil.adapters.obs.builders import build_collection
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

SMALL: dict[str, Any] = {
    "scenes": [{"name": "Main", "items": [{"source": "Backdrop"}, {"source": "Title", "position": [40, 40]},
                                          {"source": "Panel", "position": [300, 200]}]},
               {"name": "Break", "items": [{"source": "Backdrop"}, {"source": "BRB"}]}],
    "inputs": [{"name": "Backdrop", "kind": "color", "settings": {"color": "#202020", "width": 640, "height": 360}},
               {"name": "Title", "kind": "text", "settings": {"text": "Hello"}},
               {"name": "Panel", "kind": "color", "settings": {"color": "#FF0000", "width": 200, "height": 100}},
               {"name": "BRB", "kind": "text", "settings": {"text": "Be right back"}}],
}


def large(scenes: int, per_scene: int) -> dict[str, Any]:
    inputs, specs = [], []
    for s in range(scenes):
        names = [f"Panel {s:02d}-{i}" for i in range(per_scene)]
        inputs += [{"name": n, "kind": "color", "settings": {"color": "#3366FF", "width": 64, "height": 64}}
                   for n in names]
        specs.append({"name": f"Scene {s:02d}", "items": [{"source": n, "position": [i * 70, 10]}
                                                          for i, n in enumerate(names)]})
    return {"scenes": specs, "inputs": inputs}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def measure(label: str, spec: dict[str, Any], repeats: int) -> dict[str, Any]:
    ws = Workspace.temporary(prefix="asil-bench-obs-")
    (ws.root / "scenes.json").write_bytes(build_collection(spec))
    items = [(s["name"], i["source"]) for s in spec["scenes"] for i in s["items"]]
    colors = [i["name"] for i in spec["inputs"] if i["kind"] == "color"]
    adapter = ObsAdapter(ws, "scenes.json")
    try:
        cold_ms, obs = timed(adapter.observe)
        tokens = estimate_tokens(json.dumps(obs.to_agent_dict()))
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        actions: list[float] = []
        rng = random.Random(7)
        for i in range(repeats):
            scene, source = rng.choice(items)
            for action in (fn("set_transform", scene=scene, source=source, position=[float(i), 20.0]),
                           fn("set_input_settings", input=rng.choice(colors), settings={"color": f"#00{i:02X}00"})):
                ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
                assert result.ok, result.error
                actions.append(ms)
        scene, source = items[-1]
        moved = [it for s in adapter.live_state()["scenes"] if s["name"] == scene for it in s["items"]]
        assert any(it["source"] == source for it in moved)
        save_ms, _ = timed(adapter.save)
    finally:
        adapter.close()
        ws.cleanup()
    return {"state": label, "scenes": len(spec["scenes"]), "inputs": len(spec["inputs"]), "cold_s": cold_ms / 1000,
            "observe": pair(observe), "action": pair(actions), "save": f"{save_ms:.0f}", "tokens": tokens,
            "total": obs.navigation.paging.total if obs.navigation.paging else 0}


def setup_rounds(i: int) -> list[Action]:
    """One round of the collection, profile and studio-mode functions; round ``i`` uses fresh names."""
    return [fn("create_collection", name=f"Extra {i}"), fn("switch_collection", collection="Small"),
            fn("duplicate_collection", name=f"Copy {i}"), fn("switch_collection", collection="Small"),
            fn("create_profile", name=f"Profile {i}"), fn("switch_profile", profile="Untitled"),
            fn("set_studio_mode", enabled=True), fn("set_preview_scene", scene="Break"),
            fn("transition_to_program"), fn("set_preview_scene", scene="Main"), fn("transition_to_program"),
            fn("set_studio_mode", enabled=False),
            # OBS restarts to read its changed config files after each of these four (see config_ops)
            fn("rename_collection", collection=f"Extra {i}", name=f"Renamed {i}"),
            fn("remove_collection", collection=f"Renamed {i}"),
            fn("rename_profile", profile=f"Profile {i}", name=f"Renamed Profile {i}"),
            fn("remove_profile", profile=f"Renamed Profile {i}")]


def measure_setup(repeats: int) -> dict[str, list[float]]:
    """Milliseconds per function (``execute(action, observe=False)``) for the setup functions."""
    ws = Workspace.temporary(prefix="asil-bench-obs-")
    (ws.root / "scenes.json").write_bytes(build_collection({**SMALL, "name": "Small"}))
    adapter = ObsAdapter(ws, "scenes.json")
    found: dict[str, list[float]] = {}
    try:
        adapter.observe()
        for i in range(repeats):
            for action in setup_rounds(i):
                ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
                assert result.ok, (action, result.error)
                found.setdefault(str(action.target), []).append(ms)
    finally:
        adapter.close()
        ws.cleanup()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--setup-repeats", type=int, default=10)
    parser.add_argument("--only-setup", action="store_true", help="measure only the collection/profile/studio functions")
    args = parser.parse_args()
    version = subprocess.run(["obs", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"# {version}, Python {platform.python_version()}, {args.repeats} repeats (2 actions each)")
    if not args.only_setup:
        print_actions(args.repeats)
    print(f"\n# collections, profiles and studio mode on the small collection, {args.setup_repeats} rounds")
    print("| function | calls | p50/p95 ms |")
    print("|----------|------:|-----------:|")
    for name, times in measure_setup(args.setup_repeats).items():
        print(f"| {name} | {len(times)} | {pair(times)} |")


def print_actions(repeats: int) -> None:
    rows = [measure("small", SMALL, repeats), measure("large", large(50, 5), repeats)]
    print("| state | scenes | inputs | elements | cold start s | observe p50/p95 ms | warm action p50/p95 ms "
          "| save ms | obs tokens≈ |")
    print("|-------|-------:|-------:|---------:|-------------:|-------------------:|-----------------------:"
          "|--------:|------------:|")
    for r in rows:
        print(f"| {r['state']} | {r['scenes']} | {r['inputs']} | {r['total']:,} | {r['cold_s']:.2f} | {r['observe']} | "
              f"{r['action']} | {r['save']} | {r['tokens']:,} |")


if __name__ == "__main__":
    main()
