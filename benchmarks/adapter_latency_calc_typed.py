"""Latency of Calc's typed input (issue 14): a string read as LibreOffice reads what a person types.

On a warm headless LibreOffice and a small sheet it measures, with ``time.perf_counter``, the action
alone (``execute(..., observe=False)``):

* ``set_value`` of a JSON number (the baseline: no reading of text);
* ``set_value`` of typed strings: ``"80"``, ``"2026-12-01"``, ``"12%"``;
* ``set_value`` of a string with ``as_text`` (stored as text, no reading);
* ``set_range`` of a 10 x 10 block of typed strings (100 cells, one action), and of JSON numbers.

It asserts that every action succeeds and lands with the type LibreOffice gives, never on timings.

    .venv/bin/python benchmarks/adapter_latency_calc_typed.py [--repeats 40]
    .venv/bin/python benchmarks/adapter_latency.py --app calc_typed
"""

from __future__ import annotations

import argparse
import platform
import subprocess
from typing import Any

from timing import pair, timed

from asil.adapters.calc.adapter import CalcAdapter, create_spreadsheet
from asil.protocol import Action
from asil.workspace import Workspace

CASES: list[tuple[str, dict[str, Any], str]] = [
    ("number 80 (JSON number)", {"value": 80}, "number"),
    ('"80"', {"value": "80"}, "number"),
    ('"2026-12-01"', {"value": "2026-12-01"}, "date"),
    ('"12%"', {"value": "12%"}, "percent"),
    ('"00123" as_text', {"value": "00123", "as_text": True}, "text"),
]


def series(adapter: CalcAdapter, column: int, params: dict[str, Any], kind: str, repeats: int) -> list[float]:
    """One fresh column per case: a cell's format after typed input decides how the next input is read."""
    samples = []
    letter = "ABCDEFGHIJ"[column]
    for i in range(repeats):
        row = 2 + i
        action = Action(action_type="set_value", target=f"Sheet1!{letter}{row}", params=params)
        ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
        assert result.ok, result.error
        assert adapter.cells("Sheet1", [(column, row - 1)])[0]["type"] == kind
        samples.append(ms)
    return samples


def block(adapter: CalcAdapter, repeats: int, typed: bool = True) -> list[float]:
    numbers: list[list[Any]] = [[r * 10 + c for c in range(10)] for r in range(10)]
    strings: list[list[Any]] = [[f"{r + c}%" if c % 2 else f"2026-12-{(r % 28) + 1:02d}" for c in range(10)]
                                for r in range(10)]
    values = strings if typed else numbers
    samples = []
    for _ in range(repeats):
        where = "Sheet2!A2" if typed else "Sheet2!A20"
        action = Action(action_type="invoke_function", target="set_range", params={"range": where, "values": values})
        ms, result = timed(lambda a=action: adapter.execute(a, observe=False))
        assert result.ok, result.error
        samples.append(ms)
    kinds = [c["type"] for c in adapter.cells("Sheet2", [(0, 1 if typed else 19), (1, 1 if typed else 19)])]
    assert kinds == (["date", "percent"] if typed else ["number", "number"]), kinds
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    version = subprocess.run(["soffice", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"# {version}, Python {platform.python_version()}, {args.repeats} repeats, action only (no observation)")
    ws = Workspace.temporary(prefix="asil-bench-typed-")
    try:
        create_spreadsheet(ws.resolve("typed.ods"), [{"name": "Sheet1", "rows": [["Typed"]]},
                                                       {"name": "Sheet2", "rows": [["Block"]]}])
        with CalcAdapter(ws, "typed.ods") as adapter:
            adapter.observe()  # LibreOffice warm before timing
            rows = [(label, pair(series(adapter, column, params, kind, args.repeats)))
                    for column, (label, params, kind) in enumerate(CASES, start=1)]
            rows.append(("set_range 10x10 JSON numbers", pair(block(adapter, max(5, args.repeats // 4), typed=False))))
            rows.append(("set_range 10x10 typed dates/percentages", pair(block(adapter, max(5, args.repeats // 4)))))
    finally:
        ws.cleanup()
    print("| action | p50/p95 ms |")
    print("|--------|-----------:|")
    for label, cell in rows:
        print(f"| {label} | {cell} |")


if __name__ == "__main__":
    main()
