"""Setting up a generated app's state: an empty one made the program's way, then the app's own functions.

A task's setup file of kind ``profile_state`` has ``content = {"actions": [...]}``: actions of the app's
published functions applied to a fresh state. So a task's starting point is built only through the
reviewed write paths, and (for file apps) rewritten by the real program before the episode sees it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.generated.adapter import GeneratedAdapter
from asil.adapters.generated.bundle import Bundle
from asil.adapters.generated.stores import ScriptStore, clean_env, fill_argv
from asil.apps.process import run_once
from asil.plugins import adapter_class
from asil.protocol import ActionFailed, parse_action
from asil.tasks.model import SetupFile, Task
from asil.workspace import Workspace, atomic_write, cache_dir


def fresh_state(bundle: Bundle, target: Path, workspace: Workspace) -> None:
    """An empty state at ``target``: the seed document, or what the program's own 'new' makes."""
    home = workspace.private("fresh-home")
    home.mkdir(exist_ok=True)
    if bundle.pattern == "file":
        atomic_write(target, bundle.seed.encode("utf-8"))
    elif bundle.pattern == "service":
        target.mkdir(parents=True, exist_ok=True)
        argv = fill_argv(bundle.store.fresh, state=str(target))
        try:
            done = run_once(argv, 60, f"{argv[0]} did not create a state in 60 s.", env=clean_env(home, bundle.store.env))
        except FileNotFoundError:
            raise ActionFailed(f"The program {argv[0]!r} is not installed.") from None
        if done.returncode != 0:
            raise ActionFailed(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[-300:]}")
    else:
        store = bundle.store.model_copy(update={"open": bundle.store.new, "save": ""})
        target.touch()
        ScriptStore(store, target, workspace, bundle.elements).save()
        shutil.copyfile(workspace.private(f"working-{target.name}"), target)


def normalize(bundle: Bundle, target: Path, workspace: Workspace) -> None:
    """Let the real program rewrite a built document, so episodes start from a file it wrote."""
    if not bundle.normalize:
        return
    out = workspace.private(f"normalized{target.suffix}")
    home = workspace.private("fresh-home")
    argv = fill_argv(bundle.normalize, out=str(out), **{"in": str(target)})
    try:
        run_once(argv, 120, f"{argv[0]} did not rewrite {target.name} in 120 s.", env=clean_env(home))
    except FileNotFoundError:
        raise ActionFailed(f"The program {argv[0]!r} is not installed.") from None
    if not out.is_file() or out.stat().st_size == 0:
        raise ActionFailed(f"{argv[0]} did not rewrite {target.name}.")
    atomic_write(target, out.read_bytes())
    out.unlink()


def build_state(adapter: type[GeneratedAdapter], target: Path, workspace: Workspace, actions: list[dict[str, Any]]) -> None:
    """A fresh state at ``target`` with ``actions`` of the app's functions applied through ``adapter``."""
    bundle = adapter.bundle
    fresh_state(bundle, target, workspace)
    if actions:
        with adapter(workspace, workspace.relative(target)) as opened:
            for index, raw in enumerate(actions, start=1):
                result = opened.execute(parse_action(raw), observe=False)
                if not result.ok:
                    raise ActionFailed(f"set-up action {index} of {bundle.app} failed: "
                                       f"{result.error.message if result.error else result.status}")
            opened.save()
    normalize(bundle, target, workspace)


def build_profile_state(item: SetupFile, task: Task, target: Path) -> None:
    """Build the state once per distinct (bundle, actions) in the cache, and copy it into the workspace."""
    content = item.content if isinstance(item.content, dict) else {}
    app = str(content.get("app") or task.apps[0])
    adapter = adapter_class(app)
    if not issubclass(adapter, GeneratedAdapter):
        raise ActionFailed(f"{app} is not an app onboarded from a profile; profile_state cannot build its files.")
    actions = list(content.get("actions", []))
    key = json.dumps({"bundle": adapter.bundle.profile_sha256, "path": item.path, "actions": actions}, sort_keys=True)
    cached = cache_dir() / "onboarded" / app / hashlib.sha256(key.encode()).hexdigest()[:24]
    if not cached.is_dir():
        cached.parent.mkdir(parents=True, exist_ok=True)
        building = Workspace(tempfile.mkdtemp(prefix="building-", dir=cached.parent))
        build_state(adapter, building.resolve(item.path), building, actions)
        try:
            building.root.rename(cached)
        except OSError:  # another worker built it first
            building.cleanup()
    source = cached / item.path
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copyfile(source, target)
