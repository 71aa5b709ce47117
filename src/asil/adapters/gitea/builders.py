"""Setup file builder for Gitea tasks: the seed spec, checked, written as a ``.gitea`` JSON file.

The repository itself is created through the API by the adapter when the episode first needs it;
this only places the (validated) seed in the workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

from asil.adapters.gitea.seed import parse_seed
from asil.protocol import DocumentError
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError, file_builder
from asil.workspace import atomic_write


@file_builder("gitea_seed")
def build_gitea_seed(item: SetupFile, task: Task, target: Path) -> None:
    try:
        spec = parse_seed(item.content, f"of task {task.id}")
    except DocumentError as exc:
        raise SetupError(exc.message, hint=exc.hint) from None
    atomic_write(target, json.dumps(spec.model_dump(mode="json"), indent=1).encode("utf-8"))
