"""Latency of the ``uno`` execution channel (the LibreOffice UNO native baseline) beside the ASIL action
that makes the same edit, on a core task of each LibreOffice program (warm LibreOffice).

Per program it measures with ``time.perf_counter`` one step of each kind, through ``Env.dispatch``:

* ``api edit``: the ASIL ``set_value`` action making the edit (with its observation, as an agent gets it);
* ``uno edit``: code making the same kind of edit (a cell, a paragraph, a slide title), checked to have taken
  effect; it also pays for saving the api edit before it, as a step after an ASIL action would;
* ``uno print``: code that only prints, right after: the channel's fixed cost (sandbox, python3 and pyuno
  start, bridge connect, store, re-read) with nothing unsaved before it.

Prints a markdown table; asserts that the edits succeed, never asserts on timings.

    PYTHONPATH=src .venv/bin/python benchmarks/adapter_latency_uno.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import platform
import time
from dataclasses import dataclass

from timing import pair

from asil.env import Env
from asil.protocol import Action, ActionResult
from asil.tasks import get_task

WARMUP = 1


@dataclass
class Case:
    app: str
    task: str
    uno_edit: str  # UNO code writing {value}
    api_edit: Action  # the same edit as an ASIL action (value set per repeat)
    uno_check: str  # UNO code printing the edited text


CASES = [
    Case("calc", "calc-total-column", 'doc.Sheets.getByName("Orders").getCellRangeByName("F1").setString("{value}")',
         Action(action_type="set_value", target="Orders!F1"),
         'print(doc.Sheets.getByName("Orders").getCellRangeByName("F1").getString())'),
    Case("writer", "writer-retitle", 'doc.Text.createEnumeration().nextElement().setString("{value}")',
         Action(action_type="set_value", target="first paragraph"),
         "print(doc.Text.createEnumeration().nextElement().getString())"),
    Case("impress", "impress-retitle",
         'doc.DrawPages.getByIndex(0).getByIndex(0).setString("{value}")',
         Action(action_type="set_value", target="slide-1/title"),
         "print(doc.DrawPages.getByIndex(0).getByIndex(0).getString())"),
]


def uno(env: Env, code: str) -> ActionResult:
    return env.dispatch("uno", Action(action_type="invoke_function", target="uno", params={"code": code})).result


def timed(step: object) -> tuple[float, ActionResult]:
    started = time.perf_counter()
    result = step() if callable(step) else None
    assert isinstance(result, ActionResult)
    return (time.perf_counter() - started) * 1000, result


def measure(case: Case, repeats: int) -> dict[str, object]:
    env = Env(get_task(case.task), budget=10_000)
    env.reset()
    samples: dict[str, list[float]] = {"uno print": [], "uno edit": [], "api edit": []}
    try:
        first, result = timed(lambda: uno(env, "print('ready')"))  # starts the episode's confined LibreOffice
        assert result.ok, result.error
        for i in range(WARMUP + repeats):
            value = f"Edited {i}"
            steps = {"api edit": lambda v=value: env.dispatch("api", case.api_edit.model_copy(
                         update={"target": _target(env, case.api_edit), "params": _params(case.app, v + " api")})).result,
                     "uno edit": lambda v=value: uno(env, case.uno_edit.format(value=v)),
                     "uno print": lambda: uno(env, "print('ready')")}
            for kind, step in steps.items():
                ms, result = timed(step)
                assert result.ok, (kind, result.error)
                if i >= WARMUP:
                    samples[kind].append(ms)
        shown = uno(env, case.uno_check).output.strip()
        assert shown == f"Edited {WARMUP + repeats - 1}", shown
    finally:
        env.close()
    return {"app": case.app, "task": case.task, "first": first, **samples}


def _target(env: Env, edit: Action) -> str | None:
    """Writer gives a paragraph whose text was replaced over UNO a new id: the first paragraph's id as observed."""
    return env.observe().elements[0].id if edit.target == "first paragraph" else edit.target


def _params(app: str, value: str) -> dict[str, object]:
    return {"value": value} if app == "calc" else {"text": value}  # Calc cells take a value, documents text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    rows = [measure(case, args.repeats) for case in CASES]
    print(f"Python {platform.python_version()}, {platform.machine()}, repeats {args.repeats}\n")
    print("| app | task | first uno step ms (starts the confined office) | uno print p50 / p95 ms | "
          "uno edit p50 / p95 ms | api edit (+ observation) p50 / p95 ms |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['app']} | {r['task']} | {r['first']:.0f} | {pair(r['uno print'])} | "  # type: ignore[arg-type]
              f"{pair(r['uno edit'])} | "  # type: ignore[arg-type]
              f"{pair(r['api edit'])} |")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
