"""A PNG of the live code-server workbench, taken by headless chromium from the session's own URL.

chromium runs in its own process group with a private profile and may only reach loopback
(every other host name fails to resolve); a hung chromium is killed with its whole group.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from asil.protocol import ActionFailed, AppUnavailable
from asil.workspace import atomic_write

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 60
WIDTH, HEIGHT = 1280, 800
WAIT_MS = 8000  # virtual time for the workbench to load its scripts and open the folder


def browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def screenshot(url: str, target: Path, profile: Path) -> Path:
    """Write a PNG of the page at ``url`` to ``target`` (atomically)."""
    binary = browser()
    if binary is None:
        raise AppUnavailable("Rendering code-server needs chromium.", hint="apt-get install chromium")
    shutil.rmtree(profile, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="asil-codeserver-shot-") as scratch:
        shot = Path(scratch, "shot.png")
        command = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   "--hide-scrollbars", "--mute-audio", f"--user-data-dir={profile}",
                   "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", f"--window-size={WIDTH},{HEIGHT}",
                   f"--virtual-time-budget={WAIT_MS}", f"--screenshot={shot}", url]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise ActionFailed(f"chromium did not take the screenshot within {TIMEOUT_S} s.") from None
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        if not shot.is_file() or shot.stat().st_size == 0:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            raise ActionFailed(f"chromium wrote no screenshot of code-server (exit {process.returncode}: {tail[0]}).")
        atomic_write(target, shot.read_bytes())
    return target
