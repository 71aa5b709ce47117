"""How much prompt text a prefix-caching server reads anew per ReAct step, with full observations and with
``observations="changes"``, on real tasks with the scripted replies (one wrong action, then the reference).

"New text" of a step is its user prompt past the prefix it shares with the previous step's prompt: what
llama.cpp's prompt cache cannot reuse. Characters, not tokens (no tokenizer is involved).

    .venv/bin/python benchmarks/react_prompt_text.py [TASK_ID ...]
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from timing import markdown_table

from asil.agents.react import ReActAgent
from asil.runner.episode import run_episode
from asil.tasks import get_task

TASKS = ("calc-sheet-management", "calc-total-column", "writer-add-subheading", "ink-align-left",
         "drawio-connect-missing")


def new_text_per_step(task_id: str, mode: str) -> tuple[int, float]:
    agent = ReActAgent(model="scripted", faults=["wrong_action"], observations=mode)
    result = run_episode(get_task(task_id), agent, Path(tempfile.mkdtemp(prefix="asil-prompt-text-")))
    prompts = [m[-1]["content"] for kind, m in agent.client.provider.calls if kind == "react"]  # type: ignore[attr-defined]
    later = [len(b) - len(os.path.commonprefix([a, b])) for a, b in zip(prompts, prompts[1:], strict=False)]
    return result.steps, sum(later) / max(1, len(later))


def main() -> None:
    rows = []
    for task_id in sys.argv[1:] or TASKS:
        steps, full = new_text_per_step(task_id, "full")
        _, changes = new_text_per_step(task_id, "changes")
        rows.append([task_id, str(steps), f"{full:.0f}", f"{changes:.0f}", f"{1 - changes / full:.0%}"])
    markdown_table(["task", "steps", "new chars/step (full)", "new chars/step (changes)", "less"], rows)


if __name__ == "__main__":
    main()
