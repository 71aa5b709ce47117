"""Task set-up for code-server: .vsix packages, and the user profile a task starts from.

``vsix`` writes a small valid extension package built from a spec (publisher, name, version,
display_name, settings) at the file's path. The profile kinds write into the session's private
profile instead of the workspace, because that is where code-server keeps user state; their
``path`` is the profile file's name at the top of the workspace (``settings.json``,
``keybindings.json``, or ``<id>.extension`` for a pre-installed extension) and nothing is
written at it. A pre-installed extension is installed by code-server's own CLI. ``codeserver_editors``
(path ``editors.json``) starts the task with editors open in the VS Code window.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from asil.adapters.codeserver.state import profile_of
from asil.adapters.codeserver.vsix import build_vsix, inspect
from asil.adapters.codeserver.workbench import snapshot_file
from asil.apps.codeserver import run_cli
from asil.protocol import AsilError
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import SetupError
from asil.workspace import atomic_write


def _root(item: SetupFile, target: Path) -> Path:
    """The workspace folder, from a top-level set-up path."""
    if len(Path(item.path).parts) != 1:
        raise SetupError(f"The code-server profile file {item.path!r} must be a plain name (e.g. 'settings.json').")
    return target.parent


def _spec(item: SetupFile, task: Task) -> dict[str, object]:
    spec = item.content
    if not isinstance(spec, dict) or not {"publisher", "name"} <= set(spec):
        raise SetupError(f"Task {task.id}: {item.path!r} needs content: an extension spec with publisher and name.")
    return spec


def build_vsix_file(item: SetupFile, task: Task, target: Path) -> None:
    atomic_write(target, build_vsix(_spec(item, task)))


def build_user_settings(item: SetupFile, task: Task, target: Path) -> None:
    profile = profile_of(_root(item, target))
    profile.create()
    atomic_write(profile.settings, str(item.content or "").encode("utf-8"))


def build_keybindings(item: SetupFile, task: Task, target: Path) -> None:
    profile = profile_of(_root(item, target))
    profile.create()
    atomic_write(profile.keybindings, str(item.content or "").encode("utf-8"))


def build_installed_extension(item: SetupFile, task: Task, target: Path) -> None:
    profile = profile_of(_root(item, target))
    with tempfile.TemporaryDirectory(prefix="asil-vsix-") as scratch:
        package = Path(scratch, "extension.vsix")
        package.write_bytes(build_vsix(_spec(item, task)))
        try:
            info = inspect(package, item.path)
            done = run_cli(profile, ["--install-extension", str(package), "--force"])
        except AsilError as exc:
            raise SetupError(f"Task {task.id}: the extension {item.path!r} could not be pre-installed: "
                             f"{exc.message}", hint=exc.hint) from None
    if done.returncode != 0:
        raise SetupError(f"Task {task.id}: code-server could not pre-install {info.id}: {done.stderr.strip()[-300:]}")


def build_open_editors(item: SetupFile, task: Task, target: Path) -> None:
    """A task that starts with editors open: the state a VS Code window left, which the next window brings back.

    ``content``: ``{"open": [paths], "active": path, "cursors": {path: [line, column]}}`` (1-based, as
    VS Code shows them); written where the editor bridge records the window's editors.
    """
    spec = item.content
    if not isinstance(spec, dict) or not isinstance(spec.get("open"), list) or spec.get("active") not in spec["open"]:
        raise SetupError(f"Task {task.id}: {item.path!r} needs content {{'open': [paths], 'active': one of them}}.")
    cursors = spec.get("cursors") or {}
    profile = profile_of(_root(item, target))
    profile.create()
    editors = [{"path": p, "group": 1, "active": p == spec["active"], "preview": False, "dirty": False}
               for p in spec["open"]]
    visible = [{"path": p, "group": 1, "selections": [{"anchor": [line - 1, column - 1],
                                                       "active": [line - 1, column - 1], "text": ""}]}
               for p, (line, column) in cursors.items()]
    snapshot = {"editors": editors, "others": [], "visible": visible, "active_group": 1, "active": spec["active"]}
    atomic_write(snapshot_file(profile), json.dumps(snapshot).encode("utf-8"))
