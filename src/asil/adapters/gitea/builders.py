"""Setup file builder for Gitea tasks: the seed spec, checked, written as a ``.gitea`` JSON file.

When a Gitea server is configured, the episode repository is also created and seeded now, so the
untouched state a task check evaluates is the real seeded repository. Without a server only the
seed file is placed (the adapter would seed on first use, and there is nothing to evaluate).
"""

from __future__ import annotations

import json
from pathlib import Path

from asil.adapters.gitea.seed import parse_seed
from asil.apps.gitea import config_from
from asil.protocol import AsilError, DocumentError
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import Workspace, atomic_write


def build_gitea_seed(item: SetupFile, task: Task, target: Path) -> None:
    try:
        spec = parse_seed(item.content, f"of task {task.id}")
    except DocumentError as exc:
        raise SetupError(exc.message, hint=exc.hint) from None
    atomic_write(target, json.dumps(spec.model_dump(mode="json"), indent=1).encode("utf-8"))
    if config_from(None) is not None:
        root = target.parents[len(Path(item.path).parts) - 1]
        from asil.adapters.gitea.adapter import GiteaAdapter

        adapter = GiteaAdapter(Workspace(root), item.path)
        try:
            adapter.ensure_seeded()
        except AsilError as exc:
            raise SetupError(f"Task {task.id}: the Gitea repository could not be seeded: {exc.message}",
                             hint=exc.hint) from None
        finally:
            adapter.close()
