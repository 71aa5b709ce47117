"""Prompt growth on a long task: LocalLSTC's bounded control state against ReAct's growing history.

Runs a synthetic 64-step Calc task (one cell per action) with the scripted provider and prints the
prompt tokens of the planner call at steps 5, 20 and 60 for each agent, plus the controller's own
overhead per step (agent time minus model time). Tokens are estimated as characters / 4, the same
estimate the LLM layer uses when a server reports no usage.

    .venv/bin/python benchmarks/context_growth.py [--steps 64]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.react import ReActAgent
from asil.llm.base import LLMReply, Message, estimate_tokens, prompt_text
from asil.runner.episode import run_episode
from asil.tasks.model import Task

CHECK_STEPS = (5, 20, 60)


def long_task(steps: int) -> Task:
    reference = [{"action_type": "set_value", "target": f"Log!B{row}", "params": {"value": row * 10}}
                 for row in range(2, steps + 2)]
    return Task.model_validate({
        "id": "synthetic-long-log", "suite": "bench", "apps": ["calc"], "domain": "office",
        "instruction": f"In log.ods, fill Log!B2:B{steps + 1} so that each cell is ten times its row number.",
        "setup": {"files": [{"path": "log.ods", "kind": "spreadsheet", "content": [
            {"name": "Log", "rows": [["Row", "Value"]] + [[row, None] for row in range(2, steps + 2)]}]}]},
        "budget": steps * 2 + 10,
        "evaluator": {"paths": [[{"type": "cell_value", "app": "calc", "document": "log.ods",
                                  "target": f"Log!B{steps + 1}", "expected": (steps + 1) * 10}]]},
        "reference": reference,
    })


class Recorder:
    """Wraps a provider and notes the prompt size of each call with the agent's step."""

    def __init__(self, inner: Any, step_of: Any):
        self.inner, self.step_of, self.name = inner, step_of, inner.name
        self.calls: list[tuple[str, int, int]] = []

    def bind(self, task: Task) -> None:
        self.inner.bind(task)

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None) -> LLMReply:
        self.calls.append((kind, self.step_of(), estimate_tokens(prompt_text(messages))))
        reply: LLMReply = self.inner.complete(messages, kind, context)
        return reply


def measure(agent: Any, kind: str, step_of: Any, task: Task) -> dict[str, Any]:
    recorder = Recorder(agent.client.provider, step_of)
    agent.client.provider = recorder
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = run_episode(task, agent, Path(out))
        wall = time.perf_counter() - started
    planner = [(step, tokens) for call_kind, step, tokens in recorder.calls if call_kind == kind]
    at = {target: next((tokens for step, tokens in planner if step >= target), None) for target in CHECK_STEPS}
    return {"success": result.success, "steps": result.steps, "calls": len(recorder.calls), "at": at,
            "wall_s": wall, "controller_ms": result.metrics.get("controller_ms_per_step")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=64)
    args = parser.parse_args()
    task = long_task(args.steps)
    lstc = LSTCAgent(model="scripted")
    react = ReActAgent(model="scripted")
    rows = {"lstc": measure(lstc, "planner", lambda: lstc.counts["steps"], task),
            "react": measure(react, "react", lambda: len(react.history) + 1, task)}
    print(f"synthetic task: {args.steps} cell edits, scripted provider, tokens = characters / 4")
    print("| agent | success | steps | model calls | prompt@5 | prompt@20 | prompt@60 | @60 / @5 | controller ms/step |")
    print("|-------|---------|-------|-------------|----------|-----------|-----------|----------|--------------------|")
    for name, row in rows.items():
        at = row["at"]
        ratio = f"{at[60] / at[5]:.2f}x" if at[5] and at[60] else "-"
        overhead = f"{row['controller_ms']:.2f}" if row["controller_ms"] is not None else "-"
        print(f"| {name} | {row['success']} | {row['steps']} | {row['calls']} | {at[5]} | {at[20]} | {at[60]} | "
              f"{ratio} | {overhead} |")
    print("(LSTC: the planner call made at or after the step; it commits up to 5 actions a call. "
          "ReAct: the call of that step.)")
    lstc_at = rows["lstc"]["at"]
    if lstc_at[5] and lstc_at[60]:
        print(f"target LSTC prompt@60 <= 1.5 x prompt@5: {'MET' if lstc_at[60] <= 1.5 * lstc_at[5] else 'NOT MET'}")
    overhead = rows["lstc"]["controller_ms"]
    if overhead is not None:
        print(f"target controller overhead <= 5 ms/step: {'MET' if overhead <= 5 else 'NOT MET'} ({overhead:.2f} ms)")


if __name__ == "__main__":
    main()
