"""Nautilus's tabs and closing windows against a real Nautilus 43: new, switched and closed tabs observed per
window (the shown tab checked against the window's title), a history per tab, windows closed with all their
tabs, refusals that change nothing, tabs that come back after Nautilus is killed, and the core tasks that use
them, sound with the raw validator agreeing."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.adapters.nautilus.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.protocol import Action
from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.workspace import Workspace
from tests.adapters.test_nautilus_windows import fn, ok, record, windows

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nautilus") is None or shutil.which("dbus-run-session") is None,
                                 reason="needs nautilus and dbus (scripts/install-system.sh)")]
NEW_TASKS = ["nautilus-tab-receipts-beside-invoices", "nautilus-close-tmp-tab", "nautilus-switch-to-photos-tab",
             "nautilus-close-tmp-window"]


@pytest.fixture
def adapter(tmp_path: Path) -> Iterator[NautilusAdapter]:
    for folder in ("docs", "photos", "music"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("docs/a.txt", "docs/b.txt", "photos/p.jpg", "music/song.ogg"):
        (tmp_path / name).write_text(name + "\n")
    nautilus = NautilusAdapter(Workspace(tmp_path), op_timeout_s=20)
    yield nautilus
    nautilus.close()


def tabs(adapter: NautilusAdapter, number: int = 1) -> tuple[Any, ...]:
    window = windows(adapter)[f"window:{number}"]
    return window.value, window.meta.get("tabs"), window.meta.get("active_tab"), window.meta["back"]


def test_tabs_open_switch_and_close_with_a_history_each(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    assert ok(adapter, fn("new_tab", path="photos")) == ["window:1"]
    assert tabs(adapter) == ("photos", ["docs", "photos"], 1, ["docs"])  # Nautilus: Back goes to where it opened
    ok(adapter, fn("go_to", path="music"))
    ok(adapter, fn("switch_tab", tab=0))
    assert tabs(adapter) == ("docs", ["docs", "music"], 0, [])  # the first tab's own (empty) history
    assert windows(adapter)["window:1"].meta["can_go_back"] is False  # Nautilus's flag for the shown tab
    ok(adapter, fn("switch_tab", tab=1))
    assert tabs(adapter) == ("music", ["docs", "music"], 1, ["docs", "photos"])
    ok(adapter, fn("select_items", paths=["music/song.ogg"]))  # the shown tab's view, not the hidden one's
    assert windows(adapter)["window:1"].meta["selection"] == ["music/song.ogg"]
    ok(adapter, fn("new_tab"))  # Ctrl+T: the shown folder again
    assert tabs(adapter)[1:3] == (["docs", "music", "music"], 2)
    ok(adapter, fn("close_tab", tab=0))
    value, listed, active, _ = tabs(adapter)
    assert listed == ["music", "music"] and value == "music" and active in (0, 1)
    saved = record(adapter.guard.root)[0]
    assert saved["tabs"] == ["music", "music"] and len(saved["tab_history"]) == 2


def test_closing_a_window_closes_all_its_tabs(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("new_tab", path="photos"))
    ok(adapter, fn("open_window", path="music"))
    assert ok(adapter, fn("close_window", window=1)) == ["window:1"]
    assert list(windows(adapter)) == ["window:2"]
    assert [w["location"] for w in record(adapter.guard.root)] == ["music"]
    adapter.save()
    cp = Checkpoint(type="nautilus_open_windows", app="nautilus", expected=["music"])
    assert evaluate_paths([[cp]], adapter.workspace).checkpoints[0].passed and raw_judge(cp, adapter.workspace)


REFUSALS = [
    (fn("switch_tab", tab=3), "Window 1 has no tab 3; its tabs are 0: 'docs', 1: 'photos'."),
    (fn("switch_tab", tab=1), "Tab 1 of window 1 is already the one shown."),
    (fn("close_tab", window=2), "There is no window 2; open windows: window:1 (photos)."),
    (fn("new_tab", path="nowhere"), "nowhere"),
    (fn("close_window", window=7), "There is no window 7"),
    (fn("switch_tab", tab=-1), "tab"),
    (Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "close_tab", "params": {}}]}), "close_tab"),
]


def test_refusals_say_what_is_wrong_and_change_nothing(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("new_tab", path="photos"))
    before = (tabs(adapter), record(adapter.guard.root))
    for action, sentence in REFUSALS:
        result = adapter.execute(action, observe=False)
        assert result.status == "invalid" and result.error is not None, sentence
        assert sentence in result.error.message and result.error.hint, result.error
        assert (tabs(adapter), record(adapter.guard.root)) == before, sentence
    ok(adapter, fn("switch_tab", tab=0))
    ok(adapter, fn("close_tab", tab=1))
    result = adapter.execute(fn("close_tab"), observe=False)  # the last tab: close_window is the way
    assert result.error is not None and "has only one tab; closing it would close the window." in result.error.message


def test_a_killed_nautilus_reopens_the_tabs_and_the_shown_one(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("new_tab", path="photos"))
    ok(adapter, fn("new_tab", path="music"))
    ok(adapter, fn("switch_tab", tab=1))
    assert adapter.session is not None and adapter.session.pid is not None
    os.kill(adapter.session.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while adapter.session.alive and time.monotonic() < deadline:
        time.sleep(0.05)
    ok(adapter, fn("switch_tab", tab=2))  # the next action restarts Nautilus, which gets its tabs back first
    assert adapter.restarts == 1
    assert tabs(adapter)[:3] == ("music", ["docs", "photos", "music"], 2)
    ok(adapter, fn("switch_tab", tab=1))
    assert tabs(adapter)[:3] == ("photos", ["docs", "photos", "music"], 1)


@pytest.mark.parametrize("task_id", NEW_TASKS)
def test_the_tab_and_window_tasks_are_sound_and_the_raw_validator_agrees(task_id: str) -> None:
    (task,) = [t for t in load_tasks(suite="core", app="nautilus") if t.id == task_id]
    check = check_task(task, raw=True)
    assert check.ok, check.detail

