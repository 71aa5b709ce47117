"""Latency and observation-size benchmark of the Nautilus adapter (a real Nautilus on Xvfb, over D-Bus).

It measures, with ``time.perf_counter``:

* cold start: a new adapter's first Nautilus action (starts Xvfb, a D-Bus session and Nautilus,
  waits until Nautilus serves calls, then creates a folder);
* warm actions without the observation, per function: ``rename`` / ``copy`` / ``trash`` go through
  Nautilus over D-Bus and wait until the file system shows the finished result; ``restore``
  (trash spec), ``create_file`` and ``set_permissions`` are direct; every change first
  snapshots the paths it may touch (the batch/rollback machinery is always on);
* window actions (``open_window``, ``go_to``, ``go_back``, ``go_forward``, ``go_up`` over the window's
  exported org.gtk.Actions; ``select_items``, ``select_all``, ``clear_selection`` over AT-SPI), each waiting
  until Nautilus shows the result, and ``observe()`` with those windows open;
* ``observe()`` (one page of 100 entries) and its size in tokens (``asil.llm.base.estimate_tokens`` of
  ``json.dumps(obs.to_agent_dict())``) on a small tree and on a 10,000-file tree.

Every action is asserted to succeed and land; timings are never asserted.

    .venv/bin/python benchmarks/adapter_latency_nautilus.py [--repeats 30] [--files 10000]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import subprocess
from pathlib import Path
from typing import Any

from timing import percentile, timed

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.llm.base import estimate_tokens
from asil.protocol import Action
from asil.workspace import Workspace

TARGET_ACTION_P50_MS = 100.0
TARGET_TOKENS = 8000


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def run(adapter: NautilusAdapter, action: Action) -> float:
    ms, result = timed(lambda: adapter.execute(action, observe=False))
    assert result.ok, result.error
    return ms


def warm_actions(adapter: NautilusAdapter, root: Path, repeats: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in
                                       ("rename", "copy", "trash", "restore", "create_file", "set_permissions")}
    for i in range(repeats):
        samples["rename"].append(run(adapter, fn("rename", path="work/a.txt", new_name="b.txt")))
        samples["rename"].append(run(adapter, fn("rename", path="work/b.txt", new_name="a.txt")))
        samples["copy"].append(run(adapter, fn("copy", sources=["work/a.txt"], destination=f"copies/{i % 2}")))
        assert (root / "copies" / str(i % 2) / "a.txt").is_file()
        samples["trash"].append(run(adapter, fn("trash", paths=[f"copies/{i % 2}/a.txt"])))
        samples["restore"].append(run(adapter, fn("restore", path=f"copies/{i % 2}/a.txt")))
        (root / "copies" / str(i % 2) / "a.txt").unlink()  # reset outside the timing
        samples["create_file"].append(run(adapter, fn("create_file", path=f"new/{i}.txt", content="x\n")))
        samples["set_permissions"].append(run(adapter, fn("set_permissions", path="work/a.txt",
                                                          mode="0600" if i % 2 else "0644")))
    return samples


WINDOW_PATHS = {"open_window": "GApplication Open (new-window)", "go_to": "window action open-location",
                "go_back": "window action back", "go_forward": "window action forward", "go_up": "window action up",
                "select_items": "AT-SPI Selection", "select_all": "AT-SPI Selection",
                "clear_selection": "AT-SPI Selection", "new_tab": "window action new-tab (+ open-location)",
                "switch_tab": "window action go-to-tab", "close_tab": "window action close-current-view",
                "close_window": "close-current-view per tab"}


def window_actions(adapter: NautilusAdapter, repeats: int) -> dict[str, list[float]]:
    """Window functions on window 1 (two more windows open, as a person comparing folders would have)."""
    samples: dict[str, list[float]] = {name: [] for name in WINDOW_PATHS}
    for folder in ("work", "copies", "new"):  # three windows: the cost of reading windows grows with them
        samples["open_window"].append(run(adapter, fn("open_window", path=folder)))
    for _ in range(repeats):
        samples["go_to"].append(run(adapter, fn("go_to", window=1, path="copies/0")))
        samples["go_back"].append(run(adapter, fn("go_back", window=1)))
        samples["go_forward"].append(run(adapter, fn("go_forward", window=1)))
        samples["go_up"].append(run(adapter, fn("go_up", window=1)))
        run(adapter, fn("go_to", window=1, path="work"))  # back to work for the selection, outside the timing
        samples["select_items"].append(run(adapter, fn("select_items", window=1, paths=["work/a.txt"])))
        samples["select_all"].append(run(adapter, fn("select_all", window=1)))
        samples["clear_selection"].append(run(adapter, fn("clear_selection", window=1)))
        samples["new_tab"].append(run(adapter, fn("new_tab", window=1, path="copies/1")))
        samples["switch_tab"].append(run(adapter, fn("switch_tab", window=1, tab=0)))
        samples["close_tab"].append(run(adapter, fn("close_tab", window=1, tab=1)))
    window = next(e for e in adapter.observe().elements if e.id == "window:1")
    assert window.value == "work" and window.meta["selection"] == [] and "tabs" not in window.meta, window
    for _ in range(repeats):  # a window with two tabs opened and closed again
        number = int(adapter.execute(fn("open_window", path="new"), observe=False).changed[0].split(":")[1])
        run(adapter, fn("new_tab", window=number, path="work"))
        samples["close_window"].append(run(adapter, fn("close_window", window=number)))
    return samples


def observe_stats(adapter: NautilusAdapter, repeats: int) -> tuple[float, int, int]:
    adapter.observe()
    times = [timed(adapter.observe)[0] for _ in range(repeats)]
    obs = adapter.observe()
    assert obs.navigation.paging is not None
    return percentile(times, 50), estimate_tokens(json.dumps(obs.to_agent_dict())), obs.navigation.paging.total


def big_tree(root: Path, files: int) -> None:
    per_folder = 100
    for folder in range(math.ceil(files / per_folder)):
        path = root / "tree" / f"dir{folder:04d}"
        path.mkdir(parents=True)
        for number in range(min(per_folder, files - folder * per_folder)):
            (path / f"file{number:03d}.txt").write_text("x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--only-windows", action="store_true", help="measure only the window and tab functions")
    args = parser.parse_args()
    package = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "nautilus"], capture_output=True, text=True)
    version = f"Nautilus {package.stdout.strip() or '(version unknown)'}"
    print(f"# {version}, Python {platform.python_version()}, {args.repeats} repeats")
    ws = Workspace.temporary(prefix="asil-bench-nautilus-")
    (ws.root / "work").mkdir()
    (ws.root / "work" / "a.txt").write_text("alpha\n" * 100)
    for sub in ("copies/0", "copies/1", "new"):
        (ws.root / sub).mkdir(parents=True)
    adapter = NautilusAdapter(ws)
    try:
        cold_ms = run(adapter, fn("create_folder", path="first"))
        if args.only_windows:
            print_windows(window_actions(adapter, args.repeats))
            return
        samples = warm_actions(adapter, ws.root, args.repeats)
        small = observe_stats(adapter, args.repeats)
        window_samples = window_actions(adapter, args.repeats)
        with_windows = observe_stats(adapter, args.repeats)
        big_tree(ws.root, args.files)
        large = observe_stats(adapter, max(5, args.repeats // 3))
    finally:
        adapter.close()
        ws.cleanup()
    every = [ms for values in samples.values() for ms in values]
    print(f"\ncold start (Xvfb + D-Bus session + Nautilus + first create_folder): {cold_ms / 1000:.2f} s\n")
    print("| warm action | path | p50 ms | p95 ms |")
    print("|-------------|------|-------:|-------:|")
    paths = {"rename": "Nautilus D-Bus", "copy": "Nautilus D-Bus", "trash": "Nautilus D-Bus",
             "restore": "trash spec (rename back)", "create_file": "file system", "set_permissions": "file system"}
    for name, values in samples.items():
        print(f"| {name} | {paths[name]} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} |")
    print(f"| **all** | | **{percentile(every, 50):.1f}** | **{percentile(every, 95):.1f}** |")
    print_windows(window_samples)
    print("\n| tree | entries | observe p50 ms | observation tokens |")
    print("|------|--------:|---------------:|-------------------:|")
    for label, (p50, tokens, total) in (("small", small), ("small, 3 windows open", with_windows),
                                        (f"{args.files:,} files, 3 windows open", large)):
        print(f"| {label} | {total:,} | {p50:.1f} | {tokens:,} |")
    met = percentile(every, 50) <= TARGET_ACTION_P50_MS and large[1] <= TARGET_TOKENS
    print(f"\ntargets: warm action p50 <= {TARGET_ACTION_P50_MS:g} ms, observation <= {TARGET_TOKENS:,} tokens "
          f"for the large tree: {'met' if met else 'NOT met'}")


def print_windows(window_samples: dict[str, list[float]]) -> None:
    print("\n| window action | path | p50 ms | p95 ms |")
    print("|---------------|------|-------:|-------:|")
    for name, values in window_samples.items():
        print(f"| {name} | {WINDOW_PATHS[name]} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} |")


if __name__ == "__main__":
    main()
