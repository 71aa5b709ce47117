"""Latency of ``modify_file`` (file apps) and ``api_call`` (service apps) against the real programs.

Each app opens its conformance sample in a fresh workspace; after one warm-up, the action is timed N times
as ``Adapter.execute(action, observe=False)`` (the action itself: checking, applying and, for modify_file,
the one save), and once more with the observation that follows it.

    .venv/bin/python benchmarks/modify_api_latency.py [--repeats 10] [--app calc ...]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import markdown_table, pair, timed

from asil.plugins import adapter_class
from asil.protocol import Action
from asil.workspace import Workspace


def _modify(*operations: dict[str, Any]) -> Callable[[int], Action]:
    return lambda i: Action(action_type="modify_file", params={"operations": list(operations)})


def _api(request: str, data: Callable[[int], dict[str, Any]] | None = None) -> Callable[[int], Action]:
    return lambda i: Action(action_type="api_call", params={"request": request, "data": data(i) if data else {}})


OPS = "org.gnome.Nautilus.FileOperations2"
CASES: dict[str, list[tuple[str, Callable[[int], Action]]]] = {
    "calc": [("modify_file: set_value + format_range", _modify(
        {"op": "set_value", "target": "Sheet1!E1", "params": {"value": "Checked"}},
        {"op": "format_range", "params": {"range": "Sheet1!E1", "bold": True}}))],
    "writer": [("modify_file: insert_paragraph + set_paragraph_style", _modify(
        {"op": "insert_paragraph", "params": {"after": "p1", "text": "Noted."}},
        {"op": "set_paragraph_style", "params": {"paragraphs": ["p1"], "style": "Title"}}))],
    "impress": [("modify_file: set_title + set_notes", _modify(
        {"op": "set_title", "params": {"slide": "slide-1", "text": "Plan"}},
        {"op": "set_notes", "params": {"slide": "slide-1", "text": "Short."}}))],
    "inkscape": [("modify_file: add_rect + add_circle", _modify(
        {"op": "add_rect", "params": {"x": 5, "y": 5, "width": 20, "height": 10}},
        {"op": "add_circle", "params": {"cx": 50, "cy": 50, "r": 8}}))],
    "drawio": [("modify_file: move + resize", _modify(
        {"op": "move", "params": {"cell": "start", "dx": 1, "dy": 0}},
        {"op": "resize", "params": {"cell": "start", "width": 140}}))],
    "jupyter": [("modify_file: set_value + move_cell", _modify(
        {"op": "set_value", "target": "cell-2", "params": {"source": "# Notes"}},
        {"op": "move_cell", "params": {"cell": "cell-2", "index": 0}}))],
    "obs": [("api_call GetSceneList (read)", _api("GetSceneList")),
            ("api_call SetCurrentProgramScene", _api("SetCurrentProgramScene", lambda i: {"sceneName": "Scene"}))],
    "thunderbird": [("api_call state (read)", _api("state")),
                    ("api_call create_folder", _api("create_folder", lambda i: {"name": f"Bench{i}"}))],
    "nautilus": [("api_call OpenWindowsWithLocations (read)", _api("org.freedesktop.FileManager1.OpenWindowsWithLocations")),
                 ("api_call CreateFolder", _api(f"{OPS}.CreateFolder", lambda i: {"parent_uri": ".",
                                                                               "new_folder_name": f"bench-{i}"}))],
    "codeserver": [("api_call WorkspaceConfiguration.get (read)",
                    _api("WorkspaceConfiguration.get", lambda i: {"section": "editor.tabSize"})),
                   ("api_call WorkspaceConfiguration.update",
                    _api("WorkspaceConfiguration.update", lambda i: {"section": "editor.tabSize", "value": 2 + i % 3,
                                                                     "configurationTarget": "Workspace"}))],
}


def measure(app: str, repeats: int) -> list[list[str]]:
    cls = adapter_class(app)
    readiness = cls.readiness()
    if not readiness.ready:
        return [[app, "-", f"not ready: {readiness.detail}", "-"]]
    lines = []
    with tempfile.TemporaryDirectory(prefix="asil-bench-") as folder:
        workspace = Workspace(Path(folder) / "ws")
        with cls(workspace, cls.create_sample(workspace)) as adapter:
            for label, make in CASES[app]:
                result = adapter.execute(make(0), observe=False)  # warm-up (starts the program)
                assert result.ok, f"{app} {label}: {result.error}"
                samples = []
                for i in range(1, repeats + 1):
                    ms, result = timed(lambda i=i, make=make: adapter.execute(make(i), observe=False))
                    assert result.ok, f"{app} {label}: {result.error}"
                    samples.append(ms)
                with_obs, result = timed(lambda make=make: adapter.execute(make(repeats + 1)))
                assert result.ok, f"{app} {label}: {result.error}"
                lines.append([app, label, pair(samples), f"{with_obs:.0f}"])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--app", action="append", choices=sorted(CASES))
    args = parser.parse_args()
    lines = [line for app in (args.app or list(CASES)) for line in measure(app, args.repeats)]
    markdown_table(["app", "action", "p50 / p95 ms", "with observation ms"], lines)


if __name__ == "__main__":
    main()
