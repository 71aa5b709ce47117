"""Latency and observation-size benchmark of the Writer and Impress adapters (warm LibreOffice).

Documents: Writer small (8 paragraphs), typical (~10 pages: 120 blocks with headings, a table)
and large (300+ pages: 2,400 long paragraphs); Impress small (3 slides), typical (20 slides)
and large (200 slides). For each it measures with ``time.perf_counter``:

* ``adapter.observe()`` latency right after an edit (no cached state) and observation size (``json.dumps(obs.to_agent_dict())``,
  characters and chars/4 as approximate tokens);
* an edit without the observation (Writer: ``set_value`` on a paragraph; Impress:
  ``set_value`` on a slide title), checked to have taken effect, and the same with the
  observation (what an agent loop pays per step).

Documents are built beforehand, outside the timed parts. Prints a markdown table; asserts
that the edits succeed, never asserts on timings.

    .venv/bin/python benchmarks/adapter_latency_lo_docs.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from timing import pair, percentile

from asil.adapters.impress.adapter import ImpressAdapter, create_presentation
from asil.adapters.lo_document import OfficeDocumentAdapter
from asil.adapters.writer.adapter import WriterAdapter, create_document
from asil.protocol import Action
from asil.workspace import Workspace

TARGET_P50_MS = 50.0
TARGET_TOKENS = 8000
WARMUP = 3
WORDS = "The committee reviewed the quarterly figures and agreed on the next steps for each region. " * 6


def writer_spec(paragraphs: int, long_text: bool) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [{"text": "Benchmark document", "style": "Title"}]
    for i in range(1, paragraphs):
        if i % 20 == 1:
            blocks.append({"text": f"Section {i // 20 + 1}", "style": "Heading 1"})
        else:
            blocks.append({"text": f"{i}. {WORDS if long_text else 'A short paragraph of body text.'}", "style": "Text body"})
    if paragraphs >= 100:
        blocks.insert(10, {"table": [["Item", "Qty"], ["Pens", "3"], ["Paper", "5"]], "name": "Stock"})
    return {"blocks": blocks}


def impress_spec(slides: int) -> dict[str, Any]:
    return {"slides": [{"title": f"Topic {i}", "body": [f"Point {i}.{k} with a little more text" for k in range(5)],
                        "notes": f"Speaker notes for slide {i}."} for i in range(1, slides + 1)]}


@dataclass
class Case:
    app: str
    size: str
    describe: str
    build: Callable[[Workspace], str]
    open: Callable[[Workspace, str], OfficeDocumentAdapter]
    edit: Callable[[int], Action]
    check: Callable[[OfficeDocumentAdapter, int], bool]


def _writer_case(size: str, paragraphs: int, long_text: bool) -> Case:
    def build(ws: Workspace) -> str:
        create_document(ws.resolve(f"{size}.odt"), writer_spec(paragraphs, long_text))
        return f"{size}.odt"

    def check(adapter: OfficeDocumentAdapter, i: int) -> bool:
        return any(e.id == "p2" and e.value == f"Edited {i}" for e in adapter.observe(offset=0).elements)

    return Case("writer", size, f"{paragraphs} paragraphs", build, lambda ws, d: WriterAdapter(ws, d),
                lambda i: Action(action_type="set_value", target="p2", params={"text": f"Edited {i}"}), check)


def _impress_case(size: str, slides: int) -> Case:
    def build(ws: Workspace) -> str:
        create_presentation(ws.resolve(f"{size}.odp"), impress_spec(slides))
        return f"{size}.odp"

    def check(adapter: OfficeDocumentAdapter, i: int) -> bool:
        return any(e.id == "slide-1" and e.value == f"Edited {i}" for e in adapter.observe(offset=0).elements)

    return Case("impress", size, f"{slides} slides", build, lambda ws, d: ImpressAdapter(ws, d),
                lambda i: Action(action_type="set_value", target="slide-1/title", params={"text": f"Edited {i}"}), check)


CASES = [_writer_case("small", 8, False), _writer_case("typical", 120, False), _writer_case("large", 2400, True),
         _impress_case("small", 3), _impress_case("typical", 20), _impress_case("large", 200)]


def measure(case: Case, ws: Workspace, repeats: int) -> dict[str, Any]:
    document = case.build(ws)
    started = time.perf_counter()
    adapter = case.open(ws, document)
    open_ms = (time.perf_counter() - started) * 1000
    observe_ms, edit_ms, step_ms, tokens = [], [], [], 0
    try:
        for i in range(WARMUP + repeats):
            # The observation is timed right after an edit, so it never profits from the engine's
            # per-state reading cache: this is what an agent pays after each of its actions.
            t0 = time.perf_counter()
            result = adapter.execute(case.edit(i), observe=False)
            t1 = time.perf_counter()
            obs = adapter.observe()
            t2 = time.perf_counter()
            step = adapter.execute(case.edit(i + 10_000), observe=True)
            t3 = time.perf_counter()
            assert result.ok and step.ok, (result.error, step.error)
            if i >= WARMUP:
                edit_ms.append((t1 - t0) * 1000)
                observe_ms.append((t2 - t1) * 1000)
                step_ms.append((t3 - t2) * 1000)
            tokens = max(tokens, len(json.dumps(obs.to_agent_dict())) // 4)
        assert case.check(adapter, 10_000 + WARMUP + repeats - 1), "the last edit is not visible"
        pages = obs.app_state.details.get("pages")
    finally:
        adapter.close()
    return {"app": case.app, "size": case.size, "describe": case.describe + (f", {pages} pages" if pages else ""),
            "open_ms": open_ms, "observe": observe_ms, "edit": edit_ms, "step": step_ms, "tokens": tokens}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    ws = Workspace.temporary(prefix="asil-bench-docs-")
    try:
        rows = [measure(case, ws, args.repeats) for case in CASES]
    finally:
        ws.cleanup()
    print(f"Python {platform.python_version()}, {platform.machine()}, repeats {args.repeats}\n")
    print("| app | document | open ms | observe p50 / p95 ms | edit p50 / p95 ms | edit + observe p50 / p95 ms "
          "| observe + edit p50 ms | obs tokens≈ |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        both = percentile(r["observe"], 50) + percentile(r["edit"], 50)
        print(f"| {r['app']} | {r['size']}: {r['describe']} | {r['open_ms']:.0f} | {pair(r['observe'])} | {pair(r['edit'])} "
              f"| {pair(r['step'])} | {both:.1f} | {r['tokens']:,} |")
    typical = [r for r in rows if r["size"] == "typical"]
    met = all(percentile(r["observe"], 50) + percentile(r["edit"], 50) <= TARGET_P50_MS for r in typical)
    print(f"\nobserve + edit p50 <= {TARGET_P50_MS:.0f} ms on typical documents: {'MET' if met else 'NOT MET'}")
    worst = max(r["tokens"] for r in rows)
    print(f"observation <= {TARGET_TOKENS:,} tokens at every size: {'MET' if worst <= TARGET_TOKENS else 'NOT MET'} "
          f"(largest ≈{worst:,})")
    print("tokens ≈ characters / 4 of json.dumps(observation.to_agent_dict()).")


if __name__ == "__main__":
    main()
