"""Write the multi-a tasks (src/asil/tasks/suites/multi/multi-a-*.json): the creative and office apps together.

    python scripts/make_multi_a_tasks.py

Each task reads something in one app (a size, a name, a time, a colour, a value) or takes a file one app
exports, and the evaluator checks it where it landed in another app. The tasks live in three modules by
the app that is read first; this one writes them all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from multi_a_media import TASKS as MEDIA  # noqa: E402
from multi_a_office import TASKS as OFFICE  # noqa: E402
from multi_a_studio import TASKS as STUDIO  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "src" / "asil" / "tasks" / "suites" / "multi"


def main() -> None:
    for old in OUT.glob("multi-a-*.json"):
        old.unlink()
    tasks = [*OFFICE, *MEDIA, *STUDIO]
    ids = [t["id"] for t in tasks]
    assert len(ids) == len(set(ids)), "duplicate task ids"
    for t in tasks:
        (OUT / f"{t['id']}.json").write_text(json.dumps(t, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(tasks)} tasks to {OUT}")


if __name__ == "__main__":
    main()
