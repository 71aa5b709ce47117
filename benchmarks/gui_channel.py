"""Latency of the ``gui`` execution channel inside an ASIL episode (LocalLSTC's GUI channel, issue 15).

Runs ``calc-total-column`` ``--repeats`` times through ``Env.dispatch`` with a plan that mixes the channels
(API header, GUI cursor keys and typed rows, a Bash look, API total: the plan of
``tests/agents/test_lstc_gui_channel.py``) and prints the step latency per channel, the GUI steps split into
those that (re)started the program (the first GUI step, and the first after an API change) and those that
reused its window. A GUI step's latency is input + settle + save through the program + the adapters'
reopen. Asserts that every episode succeeds; never asserts on timings.

    PYTHONPATH=src .venv/bin/python benchmarks/gui_channel.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import platform

from timing import fmt, markdown_table, percentile

from asil.env import Env
from asil.protocol import Action, bash_action
from asil.tasks import get_task


def gui(**params: object) -> Action:
    return Action(action_type="invoke_function", target="gui", params=params)


def cell(target: str, value: str) -> Action:
    return Action(action_type="invoke_function", target="set_range", params={"range": target, "values": [[value]]})


PLAN = [("api", cell("Orders!D1", "Total"), ""),
        ("gui", gui(action="key", keys="ctrl+Home Down Right Right Right"), "start"),
        ("gui", gui(action="type", text="=B2*C2\n=B3*C3\n=B4*C4\n"), "reuse"),
        ("bash", bash_action("test -s sales.ods && echo saved"), ""),
        ("api", cell("Orders!D5", "=B5*C5"), ""),
        ("gui", gui(action="key", keys="ctrl+Home Down Down Down Down Down Right Right Right"), "start"),
        ("gui", gui(action="type", text="=SUM(D2:D5)\n"), "reuse")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    samples: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        env = Env(get_task("calc-total-column"))
        try:
            env.reset()
            for channel, action, kind in PLAN:
                result = env.dispatch(channel, action).result
                assert result.ok, (channel, result.error)
                samples.setdefault(f"{channel} ({kind})" if kind else channel, []).append(result.latency_ms)
            assert env.evaluate().success
        finally:
            env.close()
    print(f"machine: {platform.machine()}, {args.repeats} episode(s) of calc-total-column, all judged successful\n")
    markdown_table(["step", "n", "p50 ms", "max ms"],
                   [[name, str(len(values)), fmt(percentile(values, 50)), fmt(max(values))]
                    for name, values in samples.items()])


if __name__ == "__main__":
    main()
