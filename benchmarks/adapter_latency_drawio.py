"""Latency and observation-size benchmark of the draw.io adapter on small, typical and large diagrams.

For each size (cells on one page: vertices in a grid, edges between them) and each of draw.io's
two forms (plain XML and compressed), it measures with ``time.perf_counter``:

* opening the file (read + parse + index; for the compressed form also base64/inflate);
* ``adapter.observe()`` latency and what an agent sees (``json.dumps(obs.to_agent_dict())``,
  characters and chars/4 as approximate tokens — the largest over all observations taken);
* ``execute(..., observe=False)`` of a rotating mix of relabel, restyle, move and connect on
  random cells (the action alone), and the same with ``observe=True`` (what an agent loop pays);
* ``save()`` after an edit (serialise, re-compress the touched page, atomic write with fsync).

Every edit is checked outside the timer (the new label is in the next observation), so the
benchmark cannot time no-ops. It prints a report and never asserts on timings.

With ``--mcp-repeats N`` (default 10; 0 skips) it also times the ``drawio-mcp`` channel of the draw.io MCP
native baseline beside the ASIL action making the same edit;
``--mcp-only`` skips the adapter sizes.

    PYTHONPATH=src:benchmarks .venv/bin/python benchmarks/adapter_latency_drawio.py [--repeats 200] [--sizes 12,150,5000]
        [--mcp-repeats 10] [--mcp-only]
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import platform
import random
import sys
import time
import urllib.parse
import zlib
from dataclasses import dataclass, field
from typing import Any

from timing import fmt, markdown_table, pair, percentile, timed

from asil.adapters.drawio.adapter import DrawioAdapter
from asil.protocol import Action
from asil.workspace import Workspace

TARGET_P50_MS = 50.0  # observe + execute on typical documents
TARGET_TOKENS = 8000
WARMUP = 5


def diagram(cells: int, compressed: bool, rng: random.Random) -> str:
    """One page of ``cells`` cells (2/3 vertices, 1/3 edges), as draw.io writes it."""
    vertices = max(2, cells * 2 // 3)
    parts = ['<mxCell id="0"/><mxCell id="1" parent="0"/>']
    for i in range(vertices):
        colour = rng.choice(["#dae8fc", "#d5e8d4", "#ffe6cc", "#f8cecc"])
        parts.append(f'<mxCell id="v{i}" value="Node {i}" style="rounded=1;whiteSpace=wrap;html=1;fillColor={colour};" '
                     f'vertex="1" parent="1"><mxGeometry x="{(i % 60) * 160}" y="{(i // 60) * 100}" width="120" '
                     f'height="60" as="geometry"/></mxCell>')
    for i in range(cells - vertices - 2 if cells > vertices + 2 else 0):
        a, b = rng.randrange(vertices), rng.randrange(vertices)
        parts.append(f'<mxCell id="e{i}" style="edgeStyle=orthogonalEdgeStyle;rounded=0;html=1;" edge="1" parent="1" '
                     f'source="v{a}" target="v{b}"><mxGeometry relative="1" as="geometry"/></mxCell>')
    model = f'<mxGraphModel dx="1200" dy="800" grid="1" gridSize="10"><root>{"".join(parts)}</root></mxGraphModel>'
    if compressed:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        model = base64.b64encode(packer.compress(urllib.parse.quote(model, safe="~()*!.'").encode()) + packer.flush()).decode()
    return f'<mxfile host="bench" version="24.4.0"><diagram id="p1" name="Page-1">{model}</diagram></mxfile>\n'


@dataclass
class Row:
    cells: int
    form: str
    file_kb: float
    open_ms: list[float] = field(default_factory=list)
    observe_ms: list[float] = field(default_factory=list)
    execute_ms: list[float] = field(default_factory=list)
    execute_obs_ms: list[float] = field(default_factory=list)
    save_ms: list[float] = field(default_factory=list)
    obs_chars: int = 0

    @property
    def tokens(self) -> int:
        return math.ceil(self.obs_chars / 4)


def edit(i: int, vertices: int, rng: random.Random) -> tuple[Action, str | None]:
    """The i-th edit of the rotating mix, and the label it writes (checked afterwards)."""
    cell = f"v{rng.randrange(vertices)}"
    kind = i % 4
    if kind == 0:
        label = f"Renamed {i}"
        return Action(action_type="invoke_function", target="relabel", params={"cell": cell, "label": label}), label
    if kind == 1:
        return Action(action_type="invoke_function", target="restyle",
                      params={"cells": [cell], "set": {"strokeColor": "#b85450"}, "remove": ["rounded"]}), None
    if kind == 2:
        return Action(action_type="invoke_function", target="move", params={"cell": cell, "dx": 10, "dy": -10}), None
    other = f"v{rng.randrange(vertices)}"
    return Action(action_type="invoke_function", target="connect", params={"source": cell, "target": other}), None


def measure(ws: Workspace, cells: int, form: str, repeats: int, rng: random.Random) -> Row:
    name = f"bench-{cells}-{form}.drawio"
    text = diagram(cells, form == "compressed", rng)
    ws.resolve(name).write_text(text, encoding="utf-8")
    row = Row(cells, form, len(text.encode()) / 1024)
    vertices = max(2, cells * 2 // 3)
    adapter: DrawioAdapter | None = None
    for _ in range(3):
        started = time.perf_counter()
        adapter = DrawioAdapter(ws, name)
        row.open_ms.append((time.perf_counter() - started) * 1000)
    assert adapter is not None

    def observe() -> Any:
        started = time.perf_counter()
        obs = adapter.observe()
        row.observe_ms.append((time.perf_counter() - started) * 1000)
        row.obs_chars = max(row.obs_chars, len(json.dumps(obs.to_agent_dict())))
        return obs

    for _ in range(WARMUP):
        adapter.observe()
    for _ in range(repeats):
        observe()
    for i in range(repeats + WARMUP):
        action, label = edit(i, vertices, rng)
        started = time.perf_counter()
        result = adapter.execute(action, observe=False)
        elapsed = (time.perf_counter() - started) * 1000
        assert result.ok, result.error
        if i >= WARMUP:
            row.execute_ms.append(elapsed)
        if label is not None:  # the edit is really there
            assert adapter.execute(Action(action_type="navigate", params={"find": label})).ok
            assert any(e.value == label for e in observe().elements), f"{label!r} did not land"
            adapter.execute(Action(action_type="navigate", params={"find": ""}), observe=False)
    for i in range(repeats):
        action, _ = edit(i, vertices, rng)
        started = time.perf_counter()
        result = adapter.execute(action, observe=True)
        row.execute_obs_ms.append((time.perf_counter() - started) * 1000)
        assert result.ok and result.observation is not None
        row.obs_chars = max(row.obs_chars, len(json.dumps(result.observation.to_agent_dict())))
    for i in range(min(repeats, 20)):
        adapter.execute(edit(4 * i, vertices, rng)[0], observe=False)
        started = time.perf_counter()
        adapter.save()
        row.save_ms.append((time.perf_counter() - started) * 1000)
    assert DrawioAdapter(ws, name).observe().app_state.details["form"] == form, "the saved file changed its form"
    return row


def print_table(rows: list[Row]) -> None:
    header = ["cells", "form", "file KiB", "open ms", "observe p50/p95 ms", "execute p50/p95 ms",
              "execute+obs p50/p95 ms", "save p50 ms", "obs tokens≈"]
    lines = [[f"{r.cells:,}", r.form, f"{r.file_kb:,.0f}", fmt(percentile(r.open_ms, 50)), pair(r.observe_ms),
              pair(r.execute_ms), pair(r.execute_obs_ms), fmt(percentile(r.save_ms, 50)), f"{r.tokens:,}"] for r in rows]
    markdown_table(header, lines)


# The drawio-mcp channel: one task per form of page draw.io stores (plain, compressed), the cell relabelled.
MCP_CASES = [("drawio-relabel-typo", "order.drawio", "n2"), ("drawio-restyle-decision", "order.drawio", "n2")]


def mcp(env: Any, tool: str, **arguments: str) -> Any:
    return env.dispatch("drawio-mcp", Action(action_type="invoke_function", target=tool,
                                             params={"arguments": arguments})).result


def measure_mcp(task_id: str, document: str, cell: str, repeats: int) -> list[str]:
    """One row: list_pages, get_page, set_page (a relabel written as page XML) and the ASIL relabel, each the
    whole Env step (save before, confined server start, MCP handshake, the call, re-read after)."""
    import re

    from asil.env import Env
    from asil.tasks import get_task

    env = Env(get_task(task_id), budget=100_000)
    env.reset()
    samples: dict[str, list[float]] = {"list_pages": [], "get_page": [], "set_page": [], "api": []}
    try:
        for i in range(1 + repeats):  # the first round warms the server's files into the page cache
            times = {"list_pages": timed(lambda: mcp(env, "list_pages", path=document)),
                     "get_page": timed(lambda: mcp(env, "get_page", path=document, page="0"))}
            page = times["get_page"][1].output
            relabelled = re.sub(rf'(<mxCell id="{cell}" value=")[^"]*', rf"\g<1>MCP {i}", page)
            times["set_page"] = timed(lambda c=relabelled: mcp(env, "set_page", path=document, page="0", content=c))
            times["api"] = timed(lambda n=i: env.step(Action(action_type="invoke_function", target="relabel",
                                                         params={"cell": cell, "label": f"API {n}"})).result)
            assert all(result.ok for _, result in times.values()), {k: r.error for k, (_, r) in times.items()}
            if i:
                for kind, (ms, _) in times.items():
                    samples[kind].append(ms)
        assert any(e.value == f"API {repeats}" for e in env.observe().elements), "the last relabel did not land"
    finally:
        env.close()
    form = "compressed" if task_id == "drawio-restyle-decision" else "plain"
    return [task_id, form, *(pair(samples[k]) for k in ("list_pages", "get_page", "set_page", "api"))]


def print_mcp_table(repeats: int) -> int:
    from asil.apps import drawio_mcp

    print(f"drawio-mcp channel (@drawio/mcp {drawio_mcp.VERSION}, a confined server per call), repeats={repeats}:")
    rows = [measure_mcp(task, document, cell, repeats) for task, document, cell in MCP_CASES]
    markdown_table(["task", "page form", "list_pages p50/p95 ms", "get_page p50/p95 ms", "set_page p50/p95 ms",
                    "ASIL relabel (+ observation) p50/p95 ms"], rows)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--sizes", default="12,150,5000", help="cells per page (default 12,150,5000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--mcp-repeats", type=int, default=10, help="steps per kind on the drawio-mcp channel (0 skips)")
    parser.add_argument("--mcp-only", action="store_true", help="only the drawio-mcp channel's table")
    args = parser.parse_args(argv)
    if args.mcp_only:
        return print_mcp_table(max(1, args.mcp_repeats))
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if not sizes or min(sizes) < 3 or args.repeats < 1:
        parser.error("--sizes must be at least 3 cells each and --repeats >= 1")
    rng = random.Random(args.seed)
    print(f"machine: python {platform.python_version()} ({platform.machine()}, {platform.system()} {platform.release()})")
    print(f"settings: repeats={args.repeats}, warm-up={WARMUP}, seed={args.seed}, observation window = adapter default")
    ws = Workspace.temporary(prefix="asil-bench-drawio-")
    try:
        rows = [measure(ws, size, form, args.repeats, rng) for size in sizes for form in ("plain", "compressed")]
    finally:
        ws.cleanup()
    print()
    print_table(rows)
    print()
    print("open = DrawioAdapter(...) (read, inflate if compressed, parse, index), median of 3.")
    print("execute = execute(action, observe=False) over a rotating mix of relabel / restyle / move / connect on "
          "random vertices; execute+obs = the same with observe=True.")
    print("obs tokens ≈ characters / 4 of json.dumps(observation.to_agent_dict()), the largest seen.")
    typical = [r for r in rows if r.cells == sorted(sizes)[len(sizes) // 2]]
    worst = max(percentile(r.observe_ms, 50) + percentile(r.execute_ms, 50) for r in typical)
    print()
    print("targets:")
    print(f"  observe + execute p50 <= {TARGET_P50_MS:.0f} ms on typical documents ({typical[0].cells:,} cells): "
          f"{'MET' if worst <= TARGET_P50_MS else 'NOT MET'} (worst {worst:.2f} ms)")
    largest = max(r.tokens for r in rows)
    print(f"  observation <= {TARGET_TOKENS:,} tokens at every size: {'MET' if largest <= TARGET_TOKENS else 'NOT MET'} "
          f"(largest ≈{largest:,})")
    if args.mcp_repeats > 0:
        print()
        return print_mcp_table(args.mcp_repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
