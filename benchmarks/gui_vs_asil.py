"""Screenshot-and-click control against ASIL on the same tasks, initial states and evaluator (issue 15).

For every task with a recorded GUI demonstration (``asil/gui/demos/<task>.json``, 2 per LibreOffice
program) it runs, ``--repeats`` times each:

* the GUI arm: ``GuiEnv`` (a visible soffice in a private 1280x800 Xvfb) replaying the demonstration,
  then the sync and the unchanged evaluator. Per step: the screenshot's PNG bytes, its image tokens
  estimated the way OpenAI counts them (high detail: fit in 2048x2048, shortest side to 768, 170 tokens
  per 512-pixel tile + 85; low detail: 85), and the step latency (input + settle + screenshot + PNG).
  Per episode: launch time (soffice start until the first settled screenshot) and wall time (launch to
  judged).
* the ASIL arm: ``Env`` replaying the task's reference (the oracle's steps) on the warm headless
  LibreOffice. Per step: the observation JSON's bytes and tokens (characters / 4), the step latency;
  per episode: wall time (reset to judged).

Prints a Markdown table per arm and the targets (GUI step p50 <= 500 ms, launch <= 10 s). Asserts that
every episode succeeds; never asserts on timings.

    PYTHONPATH=src .venv/bin/python benchmarks/gui_vs_asil.py [--repeats 3] [--tasks TASK ...]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from dataclasses import dataclass, field
from importlib import resources

from timing import fmt, markdown_table, pair, percentile

from asil.agents.gui import demonstration
from asil.env import Env
from asil.gui.environment import GuiEnv
from asil.tasks import get_task

TARGET_STEP_P50_MS = 500.0
TARGET_LAUNCH_S = 10.0


def image_tokens(width: int, height: int, detail: str = "high") -> int:
    """OpenAI's image token count: 85 at low detail; at high detail 85 + 170 per 512-pixel tile after
    fitting the image in 2048x2048 and scaling its shortest side to 768."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = 768 / min(width, height)
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


@dataclass
class Arm:
    steps_ms: list[float] = field(default_factory=list)
    obs_bytes: list[int] = field(default_factory=list)
    obs_tokens: list[int] = field(default_factory=list)
    episodes_s: list[float] = field(default_factory=list)
    launches_s: list[float] = field(default_factory=list)
    steps_per_episode: list[int] = field(default_factory=list)


def gui_episode(task_id: str, arm: Arm) -> None:
    started = time.perf_counter()
    env = GuiEnv(get_task(task_id))
    try:
        screen = env.reset()
        arm.launches_s.append(env.launch_s)
        arm.obs_bytes.append(len(screen.png))
        arm.obs_tokens.append(image_tokens(screen.width, screen.height))
        steps = demonstration(task_id) or []
        for params in steps:
            step = env.step(params)
            assert step.ok, (task_id, params, step.error)
            arm.steps_ms.append(step.latency_ms)
            arm.obs_bytes.append(len(step.screen.png))
            arm.obs_tokens.append(image_tokens(step.screen.width, step.screen.height))
        assert env.evaluate().success, task_id
        arm.steps_per_episode.append(len(steps))
    finally:
        env.close()
    arm.episodes_s.append(time.perf_counter() - started)


def asil_episode(task_id: str, arm: Arm) -> None:
    started = time.perf_counter()
    task = get_task(task_id)
    env = Env(task)
    try:
        observation = env.reset()
        steps = [s for s in task.reference_steps() if not s.is_control]
        for obs in [observation]:
            text = json.dumps(obs.to_agent_dict())
            arm.obs_bytes.append(len(text.encode()))
            arm.obs_tokens.append(len(text) // 4)
        for action in steps:
            step_started = time.perf_counter()
            outcome = env.play(action)
            arm.steps_ms.append((time.perf_counter() - step_started) * 1000)
            assert outcome.result.ok, (task_id, action, outcome.result.error)
            text = json.dumps((outcome.result.observation or env.observe()).to_agent_dict())
            arm.obs_bytes.append(len(text.encode()))
            arm.obs_tokens.append(len(text) // 4)
        assert env.evaluate().success, task_id
        arm.steps_per_episode.append(len(steps))
    finally:
        env.close()
    arm.episodes_s.append(time.perf_counter() - started)


def demo_tasks() -> list[str]:
    return sorted(p.name.removesuffix(".json") for p in resources.files("asil.gui").joinpath("demos").iterdir()
                  if p.name.endswith(".json"))


def row(name: str, arm: Arm, launch: bool) -> list[str]:
    mean = sum(arm.obs_bytes) / len(arm.obs_bytes)
    tokens = sum(arm.obs_tokens) / len(arm.obs_tokens)
    return [name, f"{len(arm.episodes_s)}", f"{sum(arm.steps_per_episode) / len(arm.steps_per_episode):.1f}",
            f"{mean / 1024:.1f}", f"{tokens:.0f}", pair(arm.steps_ms),
            f"{percentile(arm.episodes_s, 50):.2f}", f"{percentile(arm.launches_s, 50):.2f}" if launch else "-"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", nargs="+", metavar="TASK", help="only these demonstrated tasks (default: all)")
    args = parser.parse_args()
    tasks = args.tasks or demo_tasks()
    per_task: dict[str, tuple[Arm, Arm]] = {}
    for _ in range(args.repeats):
        for task_id in tasks:
            gui, asil = per_task.setdefault(task_id, (Arm(), Arm()))
            gui_episode(task_id, gui)
            asil_episode(task_id, asil)
    header = ["task / arm", "episodes", "steps", "obs KiB", "obs tokens", "step ms p50 / p95", "episode s p50",
              "launch s p50"]
    lines, everything = [], (Arm(), Arm())
    for task_id, arms in per_task.items():
        for name, arm, whole in (("gui", arms[0], everything[0]), ("asil", arms[1], everything[1])):
            lines.append(row(f"{task_id} / {name}", arm, name == "gui"))
            for key in ("steps_ms", "obs_bytes", "obs_tokens", "episodes_s", "launches_s", "steps_per_episode"):
                getattr(whole, key).extend(getattr(arm, key))
    lines.append(row("all / gui", everything[0], True))
    lines.append(row("all / asil", everything[1], False))
    print(f"# GUI vs ASIL, {args.repeats} repeats, {platform.node()} ({platform.processor() or platform.machine()})\n")
    markdown_table(header, lines)
    step_p50 = percentile(everything[0].steps_ms, 50)
    launch_max = max(everything[0].launches_s)
    print(f"\nGUI step latency p50 {fmt(step_p50)} ms (target <= {TARGET_STEP_P50_MS:g} ms): "
          f"{'met' if step_p50 <= TARGET_STEP_P50_MS else 'NOT met'}")
    print(f"GUI launch, slowest of {len(everything[0].launches_s)}: {launch_max:.2f} s (target <= {TARGET_LAUNCH_S:g} s): "
          f"{'met' if launch_max <= TARGET_LAUNCH_S else 'NOT met'}")
    print(f"Screenshot tokens: {image_tokens(1280, 800)} (high detail) or {image_tokens(1280, 800, 'low')} (low) per "
          "1280x800 step, against the ASIL observation tokens above.")


if __name__ == "__main__":
    main()
