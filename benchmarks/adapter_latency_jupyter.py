"""Latency and observation-size benchmark of the JupyterLab adapter.

For notebooks of 10 (small), 60 (typical) and 500 (large) cells — code cells with a few lines
and a saved output, every fifth cell markdown — it measures, with ``time.perf_counter``:

* opening the notebook (read, check, id repair);
* ``adapter.observe()`` and the observation size (``json.dumps(obs.to_agent_dict())``, chars/4 as tokens);
* edits: ``replace_in_cell`` on a random cell, alone and with the observation an agent gets back;
* ``save()`` (atomic, fsynced write of the whole notebook);
* kernel runs, reported apart: the first run (starts the confined kernel) and warm ``run_cell``;
* JupyterLab's own state through the real jupyter_server: starting the server (the first ``lab``
  observation), the ``lab`` observation, write_file, open/activate_document, rename_file (there and
  back), a notebook's kernel: start_kernel, restart_kernel, stop_kernel, and two api_call requests (each
  with its observation).

It asserts correctness (actions succeed, edits land) but never asserts on timings.

    .venv/bin/python benchmarks/adapter_latency_jupyter.py [--repeats 50] [--lab-only]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
from typing import Any

from timing import percentile, timed

from asil.adapters.jupyter.adapter import JupyterAdapter
from asil.adapters.jupyter.notebook import serialize
from asil.protocol import Action
from asil.workspace import Workspace

SIZES = {"small": 10, "typical": 60, "large": 500}
TARGET_P50_MS = 50.0
TARGET_TOKENS = 8000


def make_notebook(cells: int) -> dict[str, Any]:
    made = []
    for i in range(cells):
        if i % 5 == 0:
            made.append({"cell_type": "markdown", "id": f"c{i}", "metadata": {},
                         "source": [f"## Step {i}\n", "Explain what the next cells compute.\n"]})
        else:
            made.append({"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": i,
                         "source": [f"value_{i} = {i} * 2\n", f"items_{i} = [value_{i} + k for k in range(10)]\n",
                                    f"sum(items_{i})"],
                         "outputs": [{"output_type": "execute_result", "execution_count": i, "metadata": {},
                                      "data": {"text/plain": [str(sum(i * 2 + k for k in range(10)))]}}]})
    return {"cells": made, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                       "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def stats(samples: list[float]) -> str:
    return f"{percentile(samples, 50):8.2f} {percentile(samples, 95):8.2f}"


def bench_size(label: str, cells: int, repeats: int, rng: random.Random) -> dict[str, Any]:
    workspace = Workspace.temporary(prefix="asil-bench-jupyter-")
    try:
        workspace.write_bytes("nb.ipynb", serialize(make_notebook(cells)))
        opens = [timed(lambda: JupyterAdapter(workspace, "nb.ipynb"))[0] for _ in range(5)]
        adapter = JupyterAdapter(workspace, "nb.ipynb")
        observe = [timed(adapter.observe)[0] for _ in range(repeats)]
        tokens = len(json.dumps(adapter.observe().to_agent_dict())) / 4
        code_ids = [c["id"] for c in adapter.nb["cells"] if c["cell_type"] == "code"]
        edit, edit_obs, saves = [], [], []
        for i in range(repeats):
            cell = rng.choice(code_ids)
            action = Action(action_type="invoke_function", target="replace_in_cell",
                            params={"cell": cell, "old": " * 2", "new": " * 2 ", "all": False})
            ms, result = timed(lambda action=action: adapter.execute(action, observe=False))
            assert result.ok, result.error
            edit.append(ms)
            back = Action(action_type="invoke_function", target="replace_in_cell",
                          params={"cell": cell, "old": " * 2 ", "new": " * 2"})
            ms, result = timed(lambda back=back: adapter.execute(back))
            assert result.ok and result.observation is not None
            edit_obs.append(ms)
            if i < 20:
                saves.append(timed(adapter.save)[0])
        adapter.close()
        return {"label": label, "cells": cells, "open": opens, "observe": observe, "tokens": tokens,
                "edit": edit, "edit_obs": edit_obs, "save": saves}
    finally:
        workspace.cleanup()


def bench_kernel(repeats: int) -> dict[str, list[float]]:
    workspace = Workspace.temporary(prefix="asil-bench-kernel-")
    try:
        workspace.write_bytes("nb.ipynb", serialize(make_notebook(10)))
        adapter = JupyterAdapter(workspace, "nb.ipynb")
        run = Action(action_type="invoke_function", target="run_cell", params={"cell": "c1"})
        first, result = timed(lambda: adapter.execute(run, observe=False))
        assert result.ok, result.error
        warm = []
        for _ in range(repeats):
            ms, result = timed(lambda: adapter.execute(run))
            assert result.ok and "[c1] 65" in (result.output or ""), result.output
            warm.append(ms)
        adapter.close()
        return {"first": [first], "warm": warm}
    finally:
        workspace.cleanup()


def fn(name: str, **params: object) -> Action:
    return Action(action_type="invoke_function", target=name, params=params)


def _ok(adapter: JupyterAdapter, action: Action) -> float:
    ms, result = timed(lambda: adapter.execute(action))
    assert result.ok and result.observation is not None, result.error
    return ms


def bench_lab(repeats: int) -> dict[str, list[float]]:
    """JupyterLab's state through the real server; every action returns its observation (the lab view)."""
    workspace = Workspace.temporary(prefix="asil-bench-lab-")
    try:
        workspace.write_bytes("nb.ipynb", serialize(make_notebook(10)))
        workspace.write_bytes("data.csv", b"city,temp\nOslo,4\nRome,18\n")
        adapter = JupyterAdapter(workspace, "nb.ipynb")
        start, _ = timed(lambda: adapter.observe(view="lab"))
        found: dict[str, list[float]] = {"server start": [start], "observe lab": [], "write_file": [],
                                         "open+activate": [], "rename_file": [], "start_kernel": [],
                                         "restart_kernel": [], "stop_kernel": [], "api_call GET /api/sessions": [],
                                         "api_call PUT /api/contents/{path}": []}
        for i in range(repeats):
            found["observe lab"].append(timed(lambda: adapter.observe(view="lab"))[0])
            found["write_file"].append(_ok(adapter, fn("write_file", path="notes.md", text=f"# Notes {i}\n")))
            found["open+activate"].append(_ok(adapter, fn("open_document", path="data.csv"))
                                          + _ok(adapter, fn("activate_document", path="nb.ipynb")))
            found["rename_file"].append(_ok(adapter, fn("rename_file", path="data.csv", new_path="cities.csv")))
            _ok(adapter, fn("rename_file", path="cities.csv", new_path="data.csv"))
            found["api_call GET /api/sessions"].append(_ok(adapter, Action(
                action_type="api_call", params={"request": "GET /api/sessions"})))
            found["api_call PUT /api/contents/{path}"].append(_ok(adapter, Action(
                action_type="api_call", params={"request": "PUT /api/contents/{path}",
                                                "data": {"path": "todo.md", "content": f"- item {i}\n"}})))
        for _ in range(max(3, repeats // 5)):  # kernels start in seconds, not milliseconds: fewer rounds
            found["start_kernel"].append(_ok(adapter, fn("start_kernel", document="nb.ipynb")))
            found["restart_kernel"].append(_ok(adapter, fn("restart_kernel", document="nb.ipynb")))
            found["stop_kernel"].append(_ok(adapter, fn("stop_kernel", document="nb.ipynb")))
        adapter.close()
        return found
    finally:
        workspace.cleanup()


def print_lab(repeats: int) -> None:
    print(f"\n{'JupyterLab (real jupyter_server)':<34} | {'n':>3} | {'p50':>8} {'p95':>8}")
    for name, samples in bench_lab(repeats).items():
        print(f"{name:<34} | {len(samples):>3} | {stats(samples)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--lab-only", action="store_true", help="only the JupyterLab server's functions")
    args = parser.parse_args()
    rng = random.Random(7)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.repeats} repeats; times in ms (p50 p95)")
    if args.lab_only:
        print_lab(args.repeats)
        return
    rows = [bench_size(label, cells, args.repeats, rng) for label, cells in SIZES.items()]
    print(f"\n{'notebook':<9} {'cells':>5} | {'open':>17} | {'observe':>17} | {'edit':>17} | {'edit+observe':>17} | "
          f"{'save':>17} | {'obs tokens':>10}")
    for row in rows:
        print(f"{row['label']:<9} {row['cells']:>5} | {stats(row['open'])} | {stats(row['observe'])} | "
              f"{stats(row['edit'])} | {stats(row['edit_obs'])} | {stats(row['save'])} | {row['tokens']:>10.0f}")
    kernel = bench_kernel(max(10, args.repeats // 2))
    print(f"\nkernel: first run (starts the sandboxed kernel) {kernel['first'][0]:.0f} ms; "
          f"warm run_cell + observe p50 {percentile(kernel['warm'], 50):.1f} ms, p95 {percentile(kernel['warm'], 95):.1f} ms")
    typical = rows[1]
    step = percentile(typical["edit_obs"], 50)
    print(f"\ntargets: typical edit+observe p50 {step:.1f} ms (<= {TARGET_P50_MS:g}: "
          f"{'met' if step <= TARGET_P50_MS else 'MISSED'}); observation tokens max "
          f"{max(r['tokens'] for r in rows):.0f} (<= {TARGET_TOKENS}: "
          f"{'met' if all(r['tokens'] <= TARGET_TOKENS for r in rows) else 'MISSED'})")
    print_lab(args.repeats)


if __name__ == "__main__":
    main()
