"""A/B of the Audacity session set-up: two warm adapters in one process, edits alternating between them.

On a shared machine only side-by-side alternation compares two set-ups fairly. Variants:

* ``old``: the set-up before the speed-up (640x400 window with Audacity's default toolbars, every
  edit sends its Select);
* ``cfg``: today's audacity.cfg (no toolbars, 640x200 window), every edit still sends its Select;
* ``new``: today's adapter (that config, and no Select when Audacity already holds that selection).

Edits are ``amplify`` on a 1 s range, alternating +/-1 dB; ``--moving`` shifts the range every
edit, so no Select is ever skipped. It asserts that actions succeed, never on timings.

    .venv/bin/python benchmarks/adapter_ab_audacity.py old new [--repeats 40] [--moving] [--large]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapter_latency_audacity import build, enlarge
from timing import percentile, timed

import asil.apps.audacity as app
from asil.adapters.audacity.adapter import AudacityAdapter
from asil.protocol import Action
from asil.workspace import Workspace

NEW_CONFIG = app._config


def old_config(folder: Path) -> str:
    return NEW_CONFIG(folder).split("[GUI/ToolBars/")[0].replace("Height=200", "Height=400")


class SelectEveryTime(AudacityAdapter):
    """The adapter as it was: every edit sends its Select lines."""

    def _run(self, name: str, params: Any) -> list[str]:
        self._selected = None
        return super()._run(name, params)


VARIANTS: dict[str, tuple[Callable[[Path], str], type[AudacityAdapter]]] = {
    "old": (old_config, SelectEveryTime),
    "cfg": (NEW_CONFIG, SelectEveryTime),
    "new": (NEW_CONFIG, AudacityAdapter),
}


def amplify(i: int, moving: bool) -> Action:
    start = (i % 4) * 0.5 if moving else 0.5
    return Action(action_type="invoke_function", target="amplify",
                  params={"start": start, "end": start + 1.0, "gain_db": 1.0 if i % 2 else -1.0})


def open_variant(name: str, ws: Workspace, tracks: int) -> AudacityAdapter:
    config, cls = VARIANTS[name]
    adapter = cls(ws, "clip.wav")
    app._config = config  # type: ignore[assignment]  # read once, when the session starts
    try:
        adapter.observe()
    finally:
        app._config = NEW_CONFIG  # type: ignore[assignment]
    enlarge(adapter, tracks)
    adapter.observe()
    return adapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", choices=VARIANTS)
    parser.add_argument("b", choices=VARIANTS)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--moving", action="store_true", help="a new range every edit")
    parser.add_argument("--large", action="store_true", help="24 tracks and 200 labels")
    args = parser.parse_args()
    tracks, labels = (24, 200) if args.large else (1, 2)
    spaces = [Workspace.temporary(prefix="asil-ab-audacity-") for _ in range(2)]
    adapters: dict[str, AudacityAdapter] = {}
    edit: dict[str, list[float]] = {args.a: [], args.b: []}
    edit_observe: dict[str, list[float]] = {args.a: [], args.b: []}
    try:
        for name, ws in zip((args.a, args.b), spaces, strict=True):
            build(ws, labels)
            adapters[name] = open_variant(name, ws, tracks)
        for i in range(args.repeats):
            order = (args.a, args.b) if i % 2 == 0 else (args.b, args.a)
            for samples, action, observe in ((edit, amplify(2 * i, args.moving), False),
                                             (edit_observe, amplify(2 * i + 1, args.moving), True)):
                for name in order:
                    ms, result = timed(lambda n=name, a=action, o=observe: adapters[n].execute(a, observe=o))
                    assert result.ok, result.error
                    samples[name].append(ms)
    finally:
        for adapter in adapters.values():
            adapter.close()
        for ws in spaces:
            ws.cleanup()
    with open("/proc/loadavg") as handle:
        load = handle.read().split()[0]
    print("| variant | tracks | range | edit p50/p95 ms | edit+observe p50/p95 ms | load |")
    print("|---------|-------:|-------|----------------:|------------------------:|-----:|")
    for name in (args.a, args.b):
        e, eo = edit[name], edit_observe[name]
        print(f"| {name} | {tracks} | {'moving' if args.moving else 'same'} | {percentile(e, 50):.0f} / "
              f"{percentile(e, 95):.0f} | {percentile(eo, 50):.0f} / {percentile(eo, 95):.0f} | {load} |")


if __name__ == "__main__":
    main()
