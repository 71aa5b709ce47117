"""Running the real Inkscape command line: PNG export and ``--query-all`` bounding boxes.

Every call is a short-lived ``inkscape`` process with its own profile directory (so parallel
test workers never share preferences or a recent-files list) and a timeout. Nothing here is
imported by ``import asil``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from asil.protocol import ActionFailed, AppUnavailable

TIMEOUT_S = 120.0
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends inkscape"


def inkscape_path() -> str | None:
    return shutil.which("inkscape")


def _profile_dir() -> Path:
    base = Path(os.environ.get("ASIL_CACHE_DIR", Path.home() / ".cache" / "asil"))
    folder = base / "inkscape-profile" / str(os.getpid())
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_inkscape(args: list[str], timeout_s: float = TIMEOUT_S) -> str:
    """Run ``inkscape ARGS`` headless; its stdout, or ActionFailed naming what went wrong."""
    binary = inkscape_path()
    if binary is None:
        raise AppUnavailable("Inkscape is not installed.", hint=INSTALL_HINT)
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}  # never open a window
    env.update(INKSCAPE_PROFILE_DIR=str(_profile_dir()), SELF_CALL="1")
    try:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout_s, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise ActionFailed(f"Inkscape did not finish within {timeout_s:.0f} s.",
                           hint="Try a smaller export (lower dpi or size).") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ActionFailed(f"Inkscape failed (exit {done.returncode}): {last}", hint="Check the document and options.")
    return done.stdout


def export_png(svg: Path, png: Path, *, dpi: float | None = None, width: int | None = None,
               height: int | None = None, area: str = "page", object_id: str | None = None) -> None:
    """Export ``svg`` to ``png`` with Inkscape; ``png`` appears complete or not at all."""
    args = ["--export-type=png", "--export-overwrite"]
    if object_id:
        args += [f"--export-id={object_id}", "--export-id-only"]
    elif area == "drawing":
        args.append("--export-area-drawing")
    else:
        args.append("--export-area-page")
    if dpi is not None:
        args.append(f"--export-dpi={dpi:g}")
    if width is not None:
        args.append(f"--export-width={width}")
    if height is not None:
        args.append(f"--export-height={height}")
    with tempfile.TemporaryDirectory(prefix="asil-ink-") as scratch:
        out = Path(scratch) / "export.png"
        run_inkscape([*args, f"--export-filename={out}", str(svg)])
        if not out.is_file() or out.stat().st_size == 0:
            raise ActionFailed("Inkscape exported nothing.", hint="Check that the area or object is not empty.")
        from asil.workspace import atomic_write

        atomic_write(png, out.read_bytes())


def query_all(svg: Path) -> dict[str, tuple[float, float, float, float]]:
    """Inkscape's visual bounding boxes ``{id: (x, y, width, height)}`` in user units."""
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for line in run_inkscape(["--query-all", str(svg)]).splitlines():
        parts = line.strip().split(",")
        if len(parts) == 5:
            try:
                boxes[parts[0]] = (float(parts[1]), float(parts[2]), float(parts[3]), float(parts[4]))
            except ValueError:
                continue
    return boxes


def inkscape_version() -> str:
    try:
        return run_inkscape(["--version"], timeout_s=60).strip()
    except (AppUnavailable, ActionFailed) as exc:
        return f"unavailable ({exc.message})"
