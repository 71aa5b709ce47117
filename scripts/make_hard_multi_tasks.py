"""Write the hard suite's multi-app group (src/asil/tasks/hard/multi/hard-multi-*.json).

    python scripts/make_hard_multi_tasks.py

Thirty workflows over the fourteen live apps, each needing 6-15 meaningful actions: something is read in one
app (a figure, a name, a time, a colour, a folder name, a mail's request) and lands, with the edits around it,
in a deliverable of another app that the evaluator checks. The tasks live in three modules by the apps they
start from; this one writes them all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hard_multi_dev import TASKS as DEV  # noqa: E402
from hard_multi_media import TASKS as MEDIA  # noqa: E402
from hard_multi_office import TASKS as OFFICE  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "src" / "asil" / "tasks" / "hard" / "multi"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("hard-multi-*.json"):
        old.unlink()
    tasks = [*OFFICE, *MEDIA, *DEV]
    ids = [t["id"] for t in tasks]
    assert len(ids) == len(set(ids)), "duplicate task ids"
    for t in tasks:
        (OUT / f"{t['id']}.json").write_text(json.dumps(t, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(tasks)} tasks to {OUT}")


if __name__ == "__main__":
    main()
