"""Latency and observation-size benchmark of the Inkscape adapter (lxml, write-back on every change).

For SVGs of three sizes — small (a logo, ~10 elements), typical (~300 elements in 3 layers) and
large (20,000 shapes) — it measures with ``time.perf_counter``:

* opening the document (parse + id assignment);
* ``adapter.observe()`` latency and the size of what an agent sees
  (``json.dumps(obs.to_agent_dict())``; tokens ≈ characters / 4);
* ``execute`` of a ``restyle`` of one random element without the observation (the action, including
  the atomic write-back of the file) and with it (what an agent loop pays per step);
* ``execute`` of a ``move`` of one random element, observation included.

After the timed series the file on disk is re-read to confirm the last edits landed. The script
prints a report and never asserts on timings.

    .venv/bin/python benchmarks/adapter_latency_inkscape.py [--repeats 50]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
from dataclasses import dataclass, field

from timing import fmt, pair, percentile, timed

from asil.adapters.inkscape.adapter import InkscapeAdapter
from asil.apps.inkscape import inkscape_version
from asil.protocol import Action
from asil.workspace import Workspace

WARMUP = 5
TARGET_STEP_P50_MS = 50.0
TARGET_OBS_TOKENS = 8000
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="1000" height="1000" '
        'viewBox="0 0 1000 1000">\n')
SHAPES = [
    '<rect{id} x="{x}" y="{y}" width="12" height="8" style="fill:#{c};stroke:#000000;stroke-width:1"/>',
    '<circle{id} cx="{x}" cy="{y}" r="5" fill="#{c}"/>',
    '<path{id} d="M {x} {y} c 4 -6 10 -6 14 0 z" style="fill:#{c}"/>',
    '<text{id} x="{x}" y="{y}" style="font-size:10px">label {n}</text>',
]


def make_svg(shapes: int, layers: int, rng: random.Random) -> str:
    """``shapes`` mixed shapes spread over ``layers`` layers, every fourth in a small group, a third without ids."""
    out = [HEAD]
    per_layer = math.ceil(shapes / layers)
    n = 0
    for layer in range(layers):
        out.append(f'<g inkscape:groupmode="layer" id="layer{layer + 1}" inkscape:label="Layer {layer + 1}">\n')
        for k in range(min(per_layer, shapes - n)):
            ident = "" if n % 3 == 2 else f' id="e{n}"'
            shape = SHAPES[n % len(SHAPES)].format(id=ident, x=rng.randint(0, 980), y=rng.randint(0, 980),
                                                   c=f"{rng.randrange(4096):03x}", n=n)
            if k % 4 == 0:
                shape = f'<g transform="translate({rng.randint(-5, 5)},{rng.randint(-5, 5)})">{shape}</g>'
            out.append(shape + "\n")
            n += 1
        out.append("</g>\n")
    out.append("</svg>\n")
    return "".join(out)


@dataclass
class SizeResult:
    name: str
    shapes: int
    file_kb: float
    open_ms: float = 0.0
    observe_ms: list[float] = field(default_factory=list)
    obs_chars: int = 0
    restyle_ms: list[float] = field(default_factory=list)
    restyle_obs_ms: list[float] = field(default_factory=list)
    move_obs_ms: list[float] = field(default_factory=list)

    @property
    def obs_tokens(self) -> int:
        return math.ceil(self.obs_chars / 4)


def bench(ws: Workspace, name: str, shapes: int, layers: int, repeats: int, rng: random.Random) -> SizeResult:
    document = f"{name}.svg"
    ws.resolve(document).write_text(make_svg(shapes, layers, rng), encoding="utf-8")
    res = SizeResult(name, shapes, ws.resolve(document).stat().st_size / 1024)
    res.open_ms, adapter = timed(lambda: InkscapeAdapter(ws, document))
    ids = [f"e{n}" for n in range(shapes) if n % 3 != 2]
    for _ in range(WARMUP):
        adapter.observe()
    for _ in range(repeats):
        ms, obs = timed(adapter.observe)
        res.observe_ms.append(ms)
        res.obs_chars = max(res.obs_chars, len(json.dumps(obs.to_agent_dict())))
    colours: dict[str, str] = {}

    def restyle(observe: bool) -> float:
        target, colour = rng.choice(ids), f"#{rng.randrange(16**6):06x}"
        ms, result = timed(lambda: adapter.execute(Action(action_type="invoke_function", target="restyle",
                                                          params={"ids": [target], "style": {"fill": colour}}),
                                                   observe=observe))
        assert result.ok, result.error
        colours[target] = colour
        return float(ms)

    for _ in range(WARMUP):
        restyle(False)
    res.restyle_ms = [restyle(False) for _ in range(repeats)]
    res.restyle_obs_ms = [restyle(True) for _ in range(repeats)]
    for _ in range(repeats):
        target = rng.choice(ids)
        ms, result = timed(lambda target=target: adapter.execute(Action(  # type: ignore[misc]
            action_type="invoke_function", target="move", params={"ids": [target], "dx": 1.5, "dy": -2})))
        assert result.ok, result.error
        res.move_obs_ms.append(ms)
    # the edits are in the file: reopen and compare the last colours
    reread = InkscapeAdapter(ws, document)
    for target, colour in list(colours.items())[-5:]:
        el = reread.doc.get(target)
        assert el is not None and reread.doc.own_style(el).get("fill") == colour, f"{target} lost its edit"
    return res


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"machine: python {platform.python_version()} ({platform.machine()}, {platform.system()} "
          f"{platform.release()}), {inkscape_version()}; repeats={args.repeats}, warm-up={WARMUP}")
    ws = Workspace.temporary(prefix="asil-bench-ink-")
    try:
        results = [bench(ws, name, shapes, layers, args.repeats, rng)
                   for name, shapes, layers in (("small", 10, 1), ("typical", 300, 3), ("large", 20_000, 4))]
    finally:
        ws.cleanup()
    header = ["document", "shapes", "file KB", "open ms", "observe p50/p95 ms", "obs tokens≈",
              "restyle p50/p95 ms", "restyle+obs p50/p95 ms", "move+obs p50 ms"]
    rows = [[r.name, f"{r.shapes:,}", f"{r.file_kb:,.0f}", fmt(r.open_ms), pair(r.observe_ms), f"{r.obs_tokens:,}",
             pair(r.restyle_ms), pair(r.restyle_obs_ms), fmt(percentile(r.move_obs_ms, 50))] for r in results]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("restyle = execute(restyle of one random element, observe=False), including the atomic write-back; "
          "+obs = the same with the observation an agent receives.")
    typical = next(r for r in results if r.name == "typical")
    step = percentile(typical.restyle_obs_ms, 50)
    print(f"target: observe + execute p50 <= {TARGET_STEP_P50_MS:.0f} ms on the typical document: "
          f"{'MET' if step <= TARGET_STEP_P50_MS else 'NOT MET'} ({step:.1f} ms)")
    worst = max(r.obs_tokens for r in results)
    print(f"target: observation <= {TARGET_OBS_TOKENS:,} tokens at every size: "
          f"{'MET' if worst <= TARGET_OBS_TOKENS else 'NOT MET'} (largest ≈{worst:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
