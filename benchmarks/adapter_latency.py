"""Latency and observation-size benchmark of the Calc adapter on a warm headless LibreOffice.

For sheets of 10 columns x N rows of numbers (100, 10,000 and 100,000 cells by default) it
measures, with ``time.perf_counter``:

* the cold start of LibreOffice (once) and the cost of opening each document;
* ``adapter.observe()`` latency and the size of what an agent sees
  (``json.dumps(obs.to_agent_dict())``, characters and chars/4 as approximate tokens);
* plain ``set_value`` edits of numbers into random data cells, without the observation
  (the action itself) and with it (what an agent loop pays per step);
* formula edits (``=SUM(X1:X<n>)*2`` over a data column) into a free column, whose computed
  results are checked against the expected sums so the benchmark cannot time a no-op.

Documents are built beforehand with a separate LibreOffice, outside every timed part.
This script prints a report; it asserts correctness (actions succeed, formulas compute)
but never asserts on timings.

    .venv/bin/python benchmarks/adapter_latency.py [--repeats 50] [--sizes 100,10000,100000]

It is also the one entry point for every adapter's latency benchmark: ``--app NAME`` runs
``benchmarks/adapter_latency_NAME.py`` (its own flags follow), ``--app all`` runs them all in turn.

    .venv/bin/python benchmarks/adapter_latency.py --app gimp
    .venv/bin/python benchmarks/adapter_latency.py --app all
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from timing import fmt, markdown_table, pair, percentile, timed

from asil.adapters.calc.adapter import CalcAdapter, create_spreadsheet
from asil.adapters.calc.refs import column_letters
from asil.apps.libreoffice import Office, shared_office, soffice_path
from asil.protocol import Action, ActionResult
from asil.workspace import Workspace

COLS = 10
FORMULA_COL = COLS  # column K, right of the data
SHEET = "Sheet1"
WARMUP = 5
OPEN_REPEATS = 3
TARGET_SET_VALUE_P50_MS = 20.0
TARGET_OBS_TOKENS = 8000
TARGET_FORMULA_P50_MS = 300.0


# ---------------------------------------------------------------- statistics


def series(fn: Callable[[int], Any], repeats: int, budget_s: float, after: Callable[[int, Any], None] | None = None,
           minimum: int = 10) -> list[float]:
    """Time ``fn(i)`` ``repeats`` times (stopping early past ``budget_s`` once ``minimum`` ran).

    ``after(i, result)`` runs outside the timer (checks, bookkeeping)."""
    samples: list[float] = []
    spent = 0.0
    for i in range(repeats):
        ms, result = timed(lambda i=i: fn(i))  # type: ignore[misc]
        samples.append(ms)
        spent += ms / 1000.0
        if after is not None:
            after(i, result)
        if spent > budget_s and len(samples) >= minimum:
            break
    return samples


# ---------------------------------------------------------------- the machine


def machine_line() -> str:
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:
        nproc = os.cpu_count() or 0
    binary = soffice_path()
    lo = "not installed"
    if binary:
        try:
            out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
            lo = out.stdout.strip() or out.stderr.strip() or f"exit {out.returncode}"
        except (OSError, subprocess.TimeoutExpired) as exc:
            lo = f"unknown ({exc})"
    return (f"machine: nproc={nproc}, python {platform.python_version()} ({platform.machine()}, "
            f"{platform.system()} {platform.release()}), {lo}")


# ---------------------------------------------------------------- one size


@dataclass
class SizeResult:
    cells: int
    rows: int
    open_ms: list[float] = field(default_factory=list)
    observe_ms: list[float] = field(default_factory=list)
    obs_chars: int = 0
    serialize_ms: list[float] = field(default_factory=list)
    set_ms: list[float] = field(default_factory=list)
    set_obs_ms: list[float] = field(default_factory=list)
    formula_ms: list[float] = field(default_factory=list)
    formula_checks: list[str] = field(default_factory=list)

    @property
    def obs_tokens(self) -> int:
        return math.ceil(self.obs_chars / 4)


def make_rows(rows: int, rng: random.Random) -> list[list[float]]:
    return [[round(rng.uniform(0, 1000), 2) for _ in range(COLS)] for _ in range(rows)]


def expect_ok(result: ActionResult, what: str) -> ActionResult:
    assert result.ok, f"{what} failed: {result.error}"
    return result


def close_enough(got: Any, expected: float) -> bool:
    return isinstance(got, (int, float)) and math.isclose(float(got), expected, rel_tol=1e-9, abs_tol=1e-6)


def bench_size(ws: Workspace, document: str, data: list[list[float]], office: Office, repeats: int,
               budget_s: float, rng: random.Random) -> SizeResult:
    rows = len(data)
    res = SizeResult(cells=rows * COLS, rows=rows)

    # ---- document open (the whole constructor: load + first info call)
    adapter: CalcAdapter | None = None
    for i in range(OPEN_REPEATS):
        ms, adapter = timed(lambda: CalcAdapter(ws, document, office=office))
        res.open_ms.append(ms)
        if i < OPEN_REPEATS - 1:
            adapter.close()
    assert adapter is not None
    try:
        _measure(adapter, res, data, repeats, budget_s, rng)
    finally:
        adapter.close()
    return res


def _measure(adapter: CalcAdapter, res: SizeResult, data: list[list[float]], repeats: int, budget_s: float,
             rng: random.Random) -> None:
    rows = len(data)

    def random_cell() -> tuple[int, int]:
        return rng.randrange(rows), rng.randrange(COLS)

    def set_action(row: int, col: int, value: int) -> Action:
        return Action(action_type="set_value", target=f"{SHEET}!{column_letters(col)}{row + 1}",
                      params={"value": value})

    # ---- observe
    for _ in range(WARMUP):
        adapter.observe()
    observations: list[Any] = []
    res.observe_ms = series(lambda i: adapter.observe(), repeats, budget_s,
                            after=lambda i, obs: observations.append(obs))
    for obs in observations:
        ms, text = timed(lambda obs=obs: json.dumps(obs.to_agent_dict()))  # type: ignore[misc]
        res.serialize_ms.append(ms)
        res.obs_chars = max(res.obs_chars, len(text))
    first = observations[0]
    assert first.elements and first.elements[0].id == f"{SHEET}!A1", "observation does not show the data"
    assert close_enough(first.elements[0].value, data[0][0]), "observation shows the wrong value in A1"

    # ---- plain set_value (observe=False: the action alone)
    planned: dict[int, tuple[int, int, int]] = {}

    def do_set(i: int, observe: bool) -> ActionResult:
        row, col, value = planned[i]
        return adapter.execute(set_action(row, col, value), observe=observe)

    def plan_next(i: int) -> None:
        row, col = random_cell()
        planned[i] = (row, col, rng.randint(0, 9999))

    def after_set(i: int, result: ActionResult) -> None:
        row, col, value = planned[i]
        expect_ok(result, f"set_value {column_letters(col)}{row + 1}")
        data[row][col] = float(value)

    for phase_observe in (False, True):
        for i in range(WARMUP):
            plan_next(i)
            after_set(i, do_set(i, phase_observe))
        for i in range(repeats):
            plan_next(i)
        def timed_set(i: int, observe: bool = phase_observe) -> ActionResult:
            return do_set(i, observe)

        samples = series(timed_set, repeats, budget_s, after=after_set)
        if phase_observe:
            res.set_obs_ms = samples
        else:
            res.set_ms = samples
    # the values written are really there (checked once, outside the timer)
    row, col, value = planned[len(res.set_obs_ms) - 1]
    got = adapter.cells(SHEET, [(col, row)])[0]["value"]
    assert close_enough(got, float(value)), f"set_value did not land: {got!r} != {value}"

    # ---- formula edits into the free column K, referencing a data column
    formulas: dict[int, tuple[int, int]] = {}  # i -> (target row, source column)

    def plan_formula(i: int) -> None:
        formulas[i] = (rng.randrange(rows), rng.randrange(COLS))

    def formula_action(i: int) -> Action:
        row, src = formulas[i]
        letters = column_letters(src)
        return Action(action_type="set_value", target=f"{SHEET}!{column_letters(FORMULA_COL)}{row + 1}",
                      params={"formula": f"=SUM({letters}1:{letters}{rows})*2"})

    def expected(i: int) -> float:
        return 2.0 * math.fsum(line[formulas[i][1]] for line in data)

    def after_formula(i: int, result: ActionResult) -> None:
        expect_ok(result, f"formula {formula_action(i).params['formula']}")

    for i in range(WARMUP):
        plan_formula(i)
        after_formula(i, adapter.execute(formula_action(i), observe=False))
    for i in range(repeats):
        plan_formula(i)
    res.formula_ms = series(lambda i: adapter.execute(formula_action(i), observe=False), repeats, budget_s,
                            after=after_formula)
    last = len(res.formula_ms) - 1
    row, src = formulas[last]
    want = expected(last)
    # what an agent sees: navigate the window onto the formula cell and read the observation
    expect_ok(adapter.execute(Action(action_type="navigate",
                                     target=f"{SHEET}!{column_letters(FORMULA_COL)}{row + 1}"), observe=False),
              "navigate")
    obs = adapter.observe()
    target_id = f"{SHEET}!{column_letters(FORMULA_COL)}{row + 1}"
    seen = next((e for e in obs.elements if e.id == target_id), None)
    assert seen is not None, f"{target_id} is not in the observation"
    assert seen.meta.get("formula", "").upper().startswith("=SUM("), f"{target_id} holds no formula: {seen}"
    assert close_enough(seen.value, want), f"{target_id} = {seen.value!r}, expected {want!r}"
    res.formula_checks.append(f"{target_id} {seen.meta['formula']} = {seen.value} (expected {want:.2f})")


# ---------------------------------------------------------------- report


def print_table(results: list[SizeResult]) -> None:
    header = ["cells", "open ms", "observe p50/p95 ms", "obs chars", "obs tokens≈ (1)", "set_value p50/p95 ms",
              "set_value+obs p50 ms", "formula p50/p95 ms"]
    lines = [[f"{r.cells:,}", fmt(percentile(r.open_ms, 50)), pair(r.observe_ms), f"{r.obs_chars:,}",
              f"{r.obs_tokens:,}", pair(r.set_ms), fmt(percentile(r.set_obs_ms, 50)), pair(r.formula_ms)]
             for r in results]
    markdown_table(header, lines)


HERE = os.path.dirname(os.path.abspath(__file__))
SHARED_SCRIPTS = {"writer": "lo_docs", "impress": "lo_docs"}  # apps measured by one script together


def app_scripts() -> dict[str, str]:
    """App (or script) name -> the benchmark script that measures it; 'calc' is this file."""
    found = {"calc": os.path.abspath(__file__)}
    for name in sorted(os.listdir(HERE)):
        if name.startswith("adapter_latency_") and name.endswith(".py"):
            found[name.removeprefix("adapter_latency_").removesuffix(".py")] = os.path.join(HERE, name)
    return found


def run_other(app: str, rest: list[str]) -> int:
    scripts = app_scripts()
    names = list(scripts) if app == "all" else [SHARED_SCRIPTS.get(app, app)]
    unknown = [name for name in names if name not in scripts]
    if unknown:
        print(f"No latency benchmark for {app!r}; known: {', '.join(['all', *scripts, *SHARED_SCRIPTS])}.",
              file=sys.stderr)
        return 2
    worst = 0
    for name in names:
        print(f"\n## {name}\n", flush=True)
        args = rest if app != "all" else []
        if name == "calc":
            worst = max(worst, main(args))
        else:
            worst = max(worst, subprocess.run([sys.executable, scripts[name], *args], check=False).returncode)
    return worst


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--app" in argv:
        at = argv.index("--app")
        if at + 1 >= len(argv):
            print("--app needs a name (or 'all').", file=sys.stderr)
            return 2
        app, rest = argv[at + 1], argv[:at] + argv[at + 2:]
        if app != "calc":
            return run_other(app, rest)
        argv = rest
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50, help="timed actions per table cell (default 50)")
    parser.add_argument("--sizes", default="100,10000,100000",
                        help="comma-separated cell counts, each a multiple of 10 (default 100,10000,100000)")
    parser.add_argument("--budget-s", type=float, default=60.0,
                        help="stop a timed series early after this many seconds (at least 10 samples; default 60)")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "").replace(",", "")) for s in args.sizes.split(",") if s.strip()]
    if not sizes or any(s < COLS or s % COLS for s in sizes) or args.repeats < 1:
        parser.error(f"--sizes must be multiples of {COLS} (10 columns wide) and --repeats >= 1")
    rng = random.Random(args.seed)

    print(machine_line())
    print(f"settings: repeats={args.repeats}, warm-up={WARMUP} actions per series, open repeats={OPEN_REPEATS}, "
          f"sheet {COLS} columns wide, observation window = adapter default (20 rows x 10 cols), seed={args.seed}")
    ws = Workspace.temporary(prefix="asil-bench-")
    try:
        # ---- build the documents with a separate LibreOffice (not timed; leaves the measured one cold)
        datasets: dict[int, list[list[float]]] = {}
        builder = Office()
        try:
            for size in sizes:
                datasets[size] = make_rows(size // COLS, rng)
                started = time.perf_counter()
                create_spreadsheet(ws.resolve(f"bench-{size}.ods"), [{"name": SHEET, "rows": datasets[size]}],
                                   office=builder)
                print(f"  built bench-{size}.ods ({size:,} cells) in {(time.perf_counter() - started) * 1000:.0f} ms "
                      f"[not timed]", file=sys.stderr)
        finally:
            builder.stop()

        # ---- cold start of the measured LibreOffice, then the first (cold) document open
        office = shared_office()
        start_ms, _ = timed(office.ensure)
        smallest = min(sizes)
        first_open_ms, adapter = timed(lambda: CalcAdapter(ws, f"bench-{smallest}.ods", office=office))
        first_obs_ms, _ = timed(adapter.observe)
        adapter.close()

        results: list[SizeResult] = []
        for size in sizes:
            print(f"  measuring {size:,} cells ...", file=sys.stderr)
            results.append(bench_size(ws, f"bench-{size}.ods", datasets[size], office, args.repeats,
                                      args.budget_s, rng))
    finally:
        ws.cleanup()

    print(f"cold start: LibreOffice process start + UNO connect {start_ms:.0f} ms; first document open "
          f"({smallest:,} cells, loads Calc and ASIL's engine script) {first_open_ms:.0f} ms; first observe "
          f"{first_obs_ms:.0f} ms")
    print()
    print_table(results)
    print()
    print("(1) tokens ≈ characters / 4 of json.dumps(observation.to_agent_dict()); obs chars is the largest seen.")
    print(f"open ms = median of {OPEN_REPEATS} CalcAdapter(...) constructions on the warm LibreOffice "
          "(load + first info call).")
    print("set_value = execute(set_value number, observe=False) into a random data cell; set_value+obs = the same "
          "with observe=True (not counting to_agent_dict/json.dumps, p50 "
          + ", ".join(f"{fmt(percentile(r.serialize_ms, 50))} ms" for r in results) + " per size).")
    print("formula = execute(set_value {'formula': '=SUM(X1:X<rows>)*2'}, observe=False) into a random row of "
          "column K, X a random data column.")
    short = [(r, name, len(s)) for r in results for name, s in
             (("observe", r.observe_ms), ("set_value", r.set_ms), ("set_value+obs", r.set_obs_ms),
              ("formula", r.formula_ms)) if len(s) < args.repeats]
    if short:
        print("series cut short by --budget-s: " + "; ".join(f"{r.cells:,} cells {n}: {k} samples"
                                                            for r, n, k in short))
    print("formula results verified through the observation:")
    for r in results:
        for check in r.formula_checks:
            print(f"  {r.cells:,} cells: {check}")

    print()
    print("targets:")
    set_ok = all(percentile(r.set_ms, 50) <= TARGET_SET_VALUE_P50_MS for r in results)
    obs_ok = all(r.obs_tokens <= TARGET_OBS_TOKENS for r in results)
    formula_ok = all(percentile(r.formula_ms, 50) <= TARGET_FORMULA_P50_MS for r in results)
    worst_set = max(percentile(r.set_ms, 50) for r in results)
    worst_obs = max(r.obs_tokens for r in results)
    worst_formula = max(percentile(r.formula_ms, 50) for r in results)
    print(f"  plain set_value p50 <= {TARGET_SET_VALUE_P50_MS:.0f} ms on every size: "
          f"{'MET' if set_ok else 'NOT MET'} (worst {worst_set:.1f} ms)")
    print(f"  observation <= {TARGET_OBS_TOKENS:,} tokens on every size: "
          f"{'MET' if obs_ok else 'NOT MET'} (largest ≈{worst_obs:,} tokens)")
    print(f"  formula edit p50 <= {TARGET_FORMULA_P50_MS:.0f} ms on every size: "
          f"{'MET' if formula_ok else 'NOT MET'} (worst {worst_formula:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
