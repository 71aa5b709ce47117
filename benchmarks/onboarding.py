"""Time from a finished interface profile to a ready extension, per onboarded app.

For each profile it runs the whole walk of ``asil onboard PROFILE --allow-actions --install`` (qualify,
compile, audit, probes against the real program, then every readiness gate including all of the app's
tasks) with an empty cache of built task states, and prints the seconds each gate took. It asserts
nothing on timings; it fails only if an app does not become ready.

    .venv/bin/python benchmarks/onboarding.py [--app dia --app syncthing --app freecad]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from asil.onboard.pipeline import onboard
from asil.onboard.profile import builtin_profile

GATES = ("qualify", "compile", "audit", "probe", "readiness")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", action="append", default=[], help="an onboarded app (repeatable; default: all three)")
    args = parser.parse_args()
    apps = args.app or ["dia", "syncthing", "freecad"]
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{'app':<10} " + " ".join(f"{g:>10}" for g in GATES) + f" {'total s':>9}  ready")
    failed = 0
    for app in apps:
        with tempfile.TemporaryDirectory(prefix="asil-bench-cache-") as cache:
            os.environ["ASIL_CACHE_DIR"] = cache  # task states built from scratch, as on a first run
            walk = onboard(builtin_profile(app), allow_actions=True, install=True, say=lambda line: None)
        failed += not walk.ok
        print(f"{app:<10} " + " ".join(f"{walk.seconds.get(g, float('nan')):>10.1f}" for g in GATES)
              + f" {sum(walk.seconds.values()):>9.1f}  {'yes' if walk.ok else 'NO (' + walk.reached + ')'}", flush=True)
    print(f"profiles: {Path(builtin_profile(apps[0])).parent}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
