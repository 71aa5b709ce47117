"""Is every reference action of a task checked? Drop one action at a time, replay the rest in the real app and
evaluate: a variant that still succeeds names an action no checkpoint notices (a no-op such as a trailing
select_none, or a step whose effect is not measured). Exports are skipped: without one a checked file is missing.

    PYTHONPATH=src python scripts/hard_ablation.py [--suite hard] [ID_SUBSTRING ...]

One episode per (task, action): about a minute per ten GIMP tasks. Used to build the hard GIMP tasks.
"""

from __future__ import annotations

import argparse
import sys

from asil.runner.check import reference_env
from asil.tasks import load_tasks
from asil.tasks.model import Task


def unchecked_actions(task: Task) -> list[str]:
    weak = []
    for skip, action in enumerate(task.reference):
        if action.target == "export_image" or action.is_control:
            continue
        variant = task.model_copy(update={"reference": [a for i, a in enumerate(task.reference) if i != skip]})
        variant.source_dir = task.source_dir
        env = reference_env(variant)
        env.reset()
        try:
            broke = any(not env.play(a).result.ok for a in variant.reference_steps())
            passed = env.evaluate().success
        finally:
            env.close()
        if passed and not broke:
            weak.append(f"{skip}:{action.target or action.action_type}")
    return weak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="hard")
    parser.add_argument("ids", nargs="*", help="only tasks whose id contains one of these")
    args = parser.parse_args()
    failing = 0
    for task in load_tasks(suite=args.suite):
        if args.ids and not any(part in task.id for part in args.ids):
            continue
        weak = unchecked_actions(task)
        failing += bool(weak)
        print(task.id, f"UNCHECKED {weak}" if weak else "every action checked", flush=True)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
