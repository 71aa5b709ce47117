"""The live VS Code window of a session: headless chromium on code-server's URL, reached through the bridge.

Editors exist only while a window is open, so the window opens on the first editor request (or
when the last session left editors to bring back) and stays open with the session. Opening it
installs the bridge extension into the session's profile when it is missing, leaves the claim
that makes this window's bridge the one that serves, starts chromium with a profile kept in the
workspace and waits for the bridge's port. Closing it first tells the bridge to stop writing
``editors.json``, so the recorded state is the last one the agent saw.
"""

from __future__ import annotations

import json
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from asil.adapters.codeserver import bridge, state
from asil.apps.chromium import HEADLESS_FLAGS, browser
from asil.apps.codeserver import CodeServerSession, Profile, run_cli
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import ActionFailed, AppUnavailable
from asil.workspace import atomic_write

OPEN_TIMEOUT_S = 90.0  # chromium loads the workbench and the extension host starts in 6-9 s here
REQUEST_TIMEOUT_S = 20.0


def snapshot_file(profile: Profile) -> Path:
    return profile.root / bridge.SNAPSHOT


def read_snapshot(profile: Profile) -> dict[str, Any] | None:
    """The editor state the window recorded last; None when no window ever recorded one."""
    try:
        data = json.loads(snapshot_file(profile).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ensure_bridge(profile: Profile) -> None:
    """Install the bridge extension into the profile unless this version is there already."""
    if state.bridge_version(profile) == bridge.BRIDGE_VERSION:
        return
    with tempfile.TemporaryDirectory(prefix="asil-bridge-") as scratch:
        package = Path(scratch, "asil-editor-bridge.vsix")
        package.write_bytes(bridge.build_bridge_vsix())
        done = run_cli(profile, ["--install-extension", str(package), "--force"])
    if done.returncode != 0 or state.bridge_version(profile) != bridge.BRIDGE_VERSION:
        raise ActionFailed(f"code-server could not install ASIL's editor bridge ({done.stderr.strip()[-200:]}).")


class Workbench:
    """One open VS Code window on ``session``, driven through the bridge extension."""

    def __init__(self, session: CodeServerSession, profile: Profile):
        binary = browser()
        if binary is None:
            raise AppUnavailable("Open editors need a VS Code window, and that needs chromium.",
                                 hint="apt-get install chromium")
        ensure_bridge(profile)
        self.profile = profile
        endpoint = profile.root / bridge.ENDPOINT
        endpoint.unlink(missing_ok=True)
        (profile.root / bridge.CLAIM).write_text("claim", encoding="utf-8")
        flags = [f"--user-data-dir={profile.root / 'workbench-browser'}",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1280,800", session.url]
        self.browser = ManagedProcess("chromium (VS Code window)", [binary, *HEADLESS_FLAGS, *flags],
                                      log=profile.root / "workbench-browser.log", env=profile.env())
        try:
            self.browser.wait_until(endpoint.is_file, OPEN_TIMEOUT_S, "the VS Code window's bridge answered")
            self.port = int(json.loads(endpoint.read_text(encoding="utf-8"))["port"])
        except (ProgramFailed, OSError, ValueError, KeyError):
            self.browser.stop()
            (profile.root / bridge.CLAIM).unlink(missing_ok=True)
            raise

    @property
    def alive(self) -> bool:
        return self.browser.alive

    def request(self, op: str, **data: Any) -> dict[str, Any]:
        """Send one request to the bridge; the window's editor state after it (ActionFailed if VS Code refused)."""
        body = json.dumps({"op": op, **data}).encode("utf-8")
        try:
            with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{self.port}/", data=body),
                                        timeout=REQUEST_TIMEOUT_S) as reply:
                answer = json.loads(reply.read().decode("utf-8"))
        except (OSError, urllib.error.URLError, ValueError) as exc:
            raise ActionFailed(f"The VS Code window did not answer ({exc}).",
                               hint="Observe again: a new window is opened.") from None
        if not answer.get("ok"):
            raise ActionFailed(f"VS Code refused the request: {answer.get('error')}.")
        result: dict[str, Any] = answer["state"]
        return result

    def restore(self, last: dict[str, Any]) -> dict[str, Any]:
        """Reopen the editors ``last`` recorded (and its cursors), after VS Code restored what it keeps itself."""
        time.sleep(1.0)  # VS Code restores editors from the browser's storage right after the window loads
        return self.request("restore", editors=last.get("editors", []), visible=last.get("visible", []),
                            active=last.get("active"), active_group=last.get("active_group"))

    def stop(self) -> None:
        """Close the window; ``editors.json`` keeps the state it had before."""
        if self.browser.alive:
            try:
                self.request("detach")
            except ActionFailed:
                pass
        self.browser.stop()
        (self.profile.root / bridge.ENDPOINT).unlink(missing_ok=True)


def _moved(path: str, old: str, new: str) -> str:
    return new + path[len(old):] if path == old or path.startswith(old + "/") else path


def move_on_disk(root: Path, profile: Profile, old: str, new: str) -> None:
    """Rename ``old`` to ``new`` (workspace-relative) with no window open; the recorded editors follow it,
    as they would in the window."""
    target = root / new
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        (root / old).rename(target)
    except OSError as exc:
        raise ActionFailed(f"Moving {old!r} to {new!r} failed ({exc.strerror}); nothing was changed.") from None
    last = read_snapshot(profile)
    if not last:
        return
    for entry in [*last.get("editors", []), *last.get("visible", [])]:
        entry["path"] = _moved(str(entry.get("path")), old, new)
    if isinstance(last.get("active"), str):
        last["active"] = _moved(last["active"], old, new)
    atomic_write(snapshot_file(profile), json.dumps(last).encode("utf-8"))
