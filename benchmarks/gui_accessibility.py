"""The accessibility tree of each GUI app's launch spec (issue 15 item 2): what a GUI observation adds with
``--accessibility-tree``.

For one demonstrated task per GUI app: ``GuiEnv(task, accessibility=True).reset()`` starts the real program
(with its own accessibility bus where its launch spec can start one), then the tree is read ``--repeats``
times from the program as launched. Prints per app the widgets (lines), bytes and estimated tokens of the
tree text (characters / 4) and the read time, or the one sentence an app without a tree gets instead. Never
asserts on timings.

    PYTHONPATH=src .venv/bin/python benchmarks/gui_accessibility.py [--repeats 3] [--apps inkscape,gimp]
"""

from __future__ import annotations

import argparse
import platform

from timing import fmt, markdown_table, percentile

from asil.gui.accessibility import TreeLimits, read_tree, widget_tree
from asil.gui.environment import GuiEnv
from asil.tasks import get_task

TASKS = {"calc": "calc-sort-scores", "writer": "writer-retitle", "impress": "impress-retitle",
         "inkscape": "ink-move-dot", "gimp": "gimp-invert-colors", "blender": "blender-move-cube",
         "audacity": "audacity-amplify-6db", "obs": "obs-rename-break", "thunderbird": "thunderbird-flag-invoice",
         "nautilus": "nautilus-rename-draft", "codeserver": "codeserver-font-size",
         "jupyter": "jupyter-title-markdown", "kdenlive": "kdenlive-guide-retitle", "drawio": "drawio-relabel-typo"}


def measure(app: str, repeats: int) -> list[str]:
    env = GuiEnv(get_task(TASKS[app]), accessibility=True)
    try:
        env.reset()
        session = env.session
        address = getattr(session, "accessibility_address", lambda: None)()
        if address is None:
            return [app, "-", "-", "-", "-", widget_tree(session, app)]
        trees = [read_tree(address, TreeLimits(env.size)) for _ in range(repeats)]
    finally:
        env.close()
    last, times = trees[-1], [tree.read_ms for tree in trees]
    size = len(last.text.encode("utf-8"))
    cut = f"cut: {', '.join(last.cut)}" if last.cut else "whole"
    return [app, str(last.nodes), str(size), str(len(last.text) // 4),
            f"{fmt(percentile(times, 50))} / {fmt(max(times))}", cut]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--apps", default=",".join(TASKS), help="comma-separated GUI apps")
    args = parser.parse_args()
    rows = [measure(app, args.repeats) for app in args.apps.split(",")]
    print(f"python {platform.python_version()}, {args.repeats} reads per app, screen 1280x800")
    markdown_table(["app", "widgets", "bytes", "tokens (chars/4)", "read ms p50 / max", "tree"], rows)


if __name__ == "__main__":
    main()
