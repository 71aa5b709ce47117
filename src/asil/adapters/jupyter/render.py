"""Rendering a notebook with real programs: nbconvert to HTML, then headless Chromium to PNG.

Notebook outputs are model-written, so the HTML is sanitized by nbconvert (no scripts survive),
and Chromium runs under bubblewrap without network, with a fresh profile.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from asil.adapters.jupyter.kernel import sandbox_argv
from asil.protocol import AppUnavailable
from asil.workspace import atomic_write

WIDTH, HEIGHT = 1280, 1200
TIMEOUT_S = 90


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def notebook_html(notebook: bytes) -> str:
    """The notebook as a standalone HTML page (JupyterLab's look, sanitized)."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", sanitize_html=True)  # type: ignore[no-untyped-call]
    node = nbformat.reads(notebook.decode("utf-8"), as_version=4)  # type: ignore[no-untyped-call]
    body, _ = exporter.from_notebook_node(node)
    return str(body)


def render_notebook(notebook: bytes, target: Path) -> Path:
    """Write a PNG screenshot of the notebook (as nbconvert's lab template shows it) to ``target``."""
    chromium = chromium_path()
    if chromium is None:
        raise AppUnavailable("Rendering a notebook needs Chromium.", hint="Install it with: apt-get install chromium")
    scratch = Path(tempfile.mkdtemp(prefix="asil-render-"))
    try:
        page = scratch / "notebook.html"
        page.write_text(notebook_html(notebook), encoding="utf-8")
        shot = scratch / "shot.png"
        command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   "--hide-scrollbars",
                   f"--user-data-dir={scratch / 'profile'}", f"--window-size={WIDTH},{HEIGHT}",
                   f"--screenshot={shot}", page.as_uri()]
        done = subprocess.run(sandbox_argv(scratch, scratch, scratch, command, limits=False), capture_output=True,
                              timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        if not shot.is_file():
            raise AppUnavailable(f"Chromium made no screenshot (exit {done.returncode}).",
                                 hint=done.stderr.decode(errors="replace")[-300:] or None)
        atomic_write(target, shot.read_bytes())
        return target
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
