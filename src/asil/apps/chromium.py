"""Headless chromium for screenshots: finding it, the flags every ASIL screenshot uses, and a bounded run."""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from asil.apps.process import run_once

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# No GPU, no first-run UI, no background traffic, no sound; the caller adds the profile, network rules and page.
HEADLESS_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio")


def browser() -> str | None:
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def run_headless(binary: str, flags: Sequence[str], timeout_s: float, late: str) -> tuple[int, str]:
    """Run ``binary`` headless with ``flags`` until it exits; its exit code and last line of stderr.

    Raises ProgramFailed with the message ``late`` when it outlives ``timeout_s``.
    """
    done = run_once([binary, *HEADLESS_FLAGS, *flags], timeout_s, late)
    last = done.stderr.strip().splitlines()[-1:] or ["no message"]
    return done.returncode, last[0]


# A visible browser for GUI episodes: one app window filling the private display (--kiosk: no tab strip, no
# address bar, no window frame), no first-run or default-browser question, no "unsupported flag" infobar
# (--test-type), no translate bubble or password prompt, and no network beyond the loopback service it shows.
VISIBLE_FLAGS = ("--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--test-type",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
                 "--password-store=basic", "--use-mock-keychain", "--disable-session-crashed-bubble",
                 "--hide-crash-restore-bubble", "--mute-audio", "--kiosk", "--window-position=0,0",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")


def visible_argv(binary: str, url: str, profile: str, size: tuple[int, int]) -> list[str]:
    """The command line of a visible chromium showing ``url`` as the only window, with its own profile."""
    return [binary, *VISIBLE_FLAGS, f"--window-size={size[0]},{size[1]}", f"--user-data-dir={profile}",
            f"--app={url}"]
