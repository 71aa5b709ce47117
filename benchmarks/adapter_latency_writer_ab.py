"""A/B latency of the Writer adapter: this checkout's engine against an older one, in one LibreOffice.

The shared machine's load changes from minute to minute, so two separate benchmark runs do not
compare well. This script opens two copies of each document in the same warm LibreOffice, one
through this checkout's engine (B) and one through the engine of git revision ``--baseline`` (A,
installed beside it as ``asil_writer_base.py``, driven with the adapter's old rule of re-reading
block ids after every edit), and alternates the two step by step. Each step is what
``adapter_latency_lo_docs.py`` times: an edit without observation, the observation right after
it (no cached reading) and an edit with observation; then a structural edit (insert a paragraph,
then delete it again, each with its observation as an agent's step). Asserts that both variants observe the same
document after each step; never asserts on timings.

    .venv/bin/python benchmarks/adapter_latency_writer_ab.py [--baseline REVISION] [--repeats 30]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from adapter_latency_lo_docs import TARGET_P50_MS, WARMUP, writer_spec
from timing import pair, percentile

from asil.adapters.writer.adapter import WriterAdapter, create_document
from asil.apps.libreoffice import Office, shared_office
from asil.protocol import Action, Observation
from asil.workspace import Workspace

ENGINE_PATH = "src/asil/apps/lo_scripts/asil_writer.py"
BASE_ENGINE = "asil_writer_base"
BEFORE_CACHE = "0a4007f"
SIZES = (("small", 8, False), ("typical", 120, False), ("large", 2400, True))


class BaselineWriter(WriterAdapter):
    """The Writer adapter on the baseline engine, forgetting block ids after every edit as it used to."""

    ENGINE = BASE_ENGINE

    def _keeps_ids(self, steps: list[dict[str, Any]]) -> bool:
        return False


def install_baseline(office: Office, revision: str) -> None:
    """Put the baseline revision's engine into the running LibreOffice's script folder."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(["git", "show", f"{revision}:{ENGINE_PATH}"], cwd=root, check=True,
                            capture_output=True, text=True).stdout
    office.ensure()
    assert office.profile is not None
    (office.profile / "user" / "Scripts" / "python" / f"{BASE_ENGINE}.py").write_text(source, encoding="utf-8")


INSERT = Action(action_type="invoke_function", target="insert_paragraph", params={"after": "p2", "text": "Inserted."})


def _edit(i: int) -> Action:
    return Action(action_type="set_value", target="p2", params={"text": f"Edited {i}"})


def step(adapter: WriterAdapter, i: int) -> tuple[Observation, dict[str, float]]:
    """One timed round: edit, observe, edit with observation (as adapter_latency_lo_docs.py)."""
    t0 = time.perf_counter()
    result = adapter.execute(_edit(i), observe=False)
    t1 = time.perf_counter()
    obs = adapter.observe()
    t2 = time.perf_counter()
    both = adapter.execute(_edit(i + 10_000), observe=True)
    t3 = time.perf_counter()
    inserted = adapter.execute(INSERT, observe=True)
    t4 = time.perf_counter()
    assert result.ok and both.ok and inserted.ok, (result.error, both.error, inserted.error)
    deleted = adapter.execute(Action(action_type="invoke_function", target="delete",
                                     params={"id": inserted.changed[0]}), observe=True)
    t5 = time.perf_counter()
    assert deleted.ok, deleted.error
    return obs, {"edit": (t1 - t0) * 1000, "observe": (t2 - t1) * 1000, "step": (t3 - t2) * 1000,
                 "insert": (t4 - t3) * 1000, "delete": (t5 - t4) * 1000}


def _same(a: Observation, b: Observation) -> bool:
    """Both variants show the same document (the file names differ, so compare what the agent reads)."""
    keys = ("elements", "navigation")
    left, right = a.to_agent_dict(), b.to_agent_dict()
    return all(left[k] == right[k] for k in keys) and left["app_state"]["details"] == right["app_state"]["details"]


def measure(ws: Workspace, size: str, paragraphs: int, long_text: bool, repeats: int) -> dict[str, Any]:
    spec = writer_spec(paragraphs, long_text)
    for name in ("a", "b"):
        create_document(ws.resolve(f"{size}-{name}.odt"), spec)
    variants = {"A": BaselineWriter(ws, f"{size}-a.odt"), "B": WriterAdapter(ws, f"{size}-b.odt")}
    parts = ("edit", "observe", "step", "insert", "delete")
    samples: dict[str, dict[str, list[float]]] = {k: {part: [] for part in parts} for k in variants}
    pages = None
    try:
        for i in range(WARMUP + repeats):
            order = list(variants) if i % 2 == 0 else list(reversed(variants))  # neither always goes first
            seen = {}
            for key in order:
                seen[key], took = step(variants[key], i)
                for part, ms in took.items():
                    if i >= WARMUP:
                        samples[key][part].append(ms)
            assert _same(seen["A"], seen["B"]), f"the variants observe different documents at step {i}"
            pages = seen["B"].app_state.details.get("pages")
    finally:
        for adapter in variants.values():
            adapter.close()
    return {"size": size, "describe": f"{paragraphs} paragraphs, {pages} page{'' if pages == 1 else 's'}", "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=BEFORE_CACHE, help=f"git revision of the A engine (default: {BEFORE_CACHE}, "
                        "the last one before the engine kept its reading across edits)")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    install_baseline(shared_office(), args.baseline)
    ws = Workspace.temporary(prefix="asil-bench-writer-ab-")
    try:
        rows = [measure(ws, size, n, long_text, args.repeats) for size, n, long_text in SIZES]
    finally:
        ws.cleanup()
        shared_office().stop()
    print(f"Python {platform.python_version()}, {platform.machine()}, repeats {args.repeats}, "
          f"A = {args.baseline}, B = this checkout, alternating step by step\n")
    print("| document | engine | observe p50 / p95 ms | edit p50 / p95 ms | edit + observe p50 / p95 ms "
          "| observe + edit p50 ms | insert paragraph + observe p50 / p95 ms | delete + observe p50 / p95 ms |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        for key, label in (("A", f"A ({args.baseline})"), ("B", "B (this checkout)")):
            s = r["samples"][key]
            both = percentile(s["observe"], 50) + percentile(s["edit"], 50)
            print(f"| {r['size']}: {r['describe']} | {label} | {pair(s['observe'])} | {pair(s['edit'])} "
                  f"| {pair(s['step'])} | {both:.1f} | {pair(s['insert'])} | {pair(s['delete'])} |")
    typical = next(r for r in rows if r["size"] == "typical")["samples"]["B"]
    met = percentile(typical["observe"], 50) + percentile(typical["edit"], 50) <= TARGET_P50_MS
    print(f"\nB: observe + edit p50 <= {TARGET_P50_MS:.0f} ms on the typical document: {'MET' if met else 'NOT MET'}")


if __name__ == "__main__":
    main()
