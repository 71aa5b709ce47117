"""A PNG of the live code-server workbench, taken by headless chromium from the session's own URL.

Headless chromium takes its screenshot when the page's load event fires, but the workbench
keeps loading long after that (scripts, then the folder over a websocket). So chromium opens a
small frame page from a loopback server of ours: the workbench fills an iframe, and the frame
page's load waits for an image this server answers only once the workbench is connected (the
caller watches code-server's log for the new extension host connection) plus ``DRAW_S`` to draw.
chromium runs in its own process group with a private profile and may only reach loopback; a hung
one is killed.
"""

from __future__ import annotations

import html
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asil.apps.chromium import browser, run_headless
from asil.protocol import ActionFailed, AppUnavailable
from asil.workspace import atomic_write

TIMEOUT_S = 90
WIDTH, HEIGHT = 1280, 800
MAX_WAIT_S = 45.0  # for the workbench to load its scripts and connect (VS Code's server part loads first)
DRAW_S = 4.0  # after it connected: opening the folder and drawing the explorer
PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def _wait_for_workbench(connected: Callable[[], bool]) -> None:
    deadline = time.monotonic() + MAX_WAIT_S
    while time.monotonic() < deadline and not connected():
        time.sleep(0.25)
    time.sleep(DRAW_S)


def _frame_server(url: str, connected: Callable[[], bool]) -> ThreadingHTTPServer:
    page = (f'<!doctype html><html><body style="margin:0"><iframe src="{html.escape(url)}" style="border:0;'
            f'width:{WIDTH}px;height:{HEIGHT}px"></iframe><img src="/wait" width="1" height="1"></body></html>')

    class Frame(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (the http.server hook's name)
            if self.path == "/wait":
                _wait_for_workbench(connected)
                body, kind = PIXEL, "image/gif"
            else:
                body, kind = page.encode("utf-8"), "text/html; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Frame)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def screenshot(url: str, target: Path, profile: Path, connected: Callable[[], bool]) -> Path:
    """Write a PNG of the page at ``url`` to ``target`` (atomically); ``connected`` says when a workbench is up."""
    binary = browser()
    if binary is None:
        raise AppUnavailable("Rendering code-server needs chromium.", hint="apt-get install chromium")
    shutil.rmtree(profile, ignore_errors=True)
    frame = _frame_server(url, connected)
    with tempfile.TemporaryDirectory(prefix="asil-codeserver-shot-") as scratch:
        shot = Path(scratch, "shot.png")
        flags = [f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                 f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", f"http://127.0.0.1:{frame.server_port}/"]
        try:
            code, last = run_headless(binary, flags, TIMEOUT_S, f"chromium did not take the screenshot within {TIMEOUT_S} s.")
        finally:
            frame.shutdown()
            frame.server_close()
            shutil.rmtree(profile, ignore_errors=True)
        if not shot.is_file() or shot.stat().st_size == 0:
            raise ActionFailed(f"chromium wrote no screenshot of code-server (exit {code}: {last}).")
        atomic_write(target, shot.read_bytes())
    return target
