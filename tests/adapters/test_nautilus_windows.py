"""Nautilus's windows against a real Nautilus: location, back/forward history and selection, observed and changed,
refusals that change nothing, and windows that come back after Nautilus is killed or the adapter is reopened."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.adapters.nautilus.builders import build_tree
from asil.adapters.nautilus.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint, EvalContext
from asil.evaluate.evaluator import judge
from asil.protocol import Action, Element
from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nautilus") is None or shutil.which("dbus-run-session") is None,
                                 reason="needs nautilus and dbus (scripts/install-system.sh)")]
WINDOW_TASKS = [t for t in load_tasks(app="nautilus") if t.domain in ("windows", "history", "selection")]


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def ok(adapter: NautilusAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def windows(adapter: NautilusAdapter) -> dict[str, Element]:
    return {e.id: e for e in adapter.observe().elements if e.type == "window"}


def record(root: Path) -> list[dict[str, Any]]:
    return list(json.loads((root / ".asil" / "nautilus" / "windows.json").read_text())["windows"])


@pytest.fixture
def adapter(tmp_path: Path) -> Iterator[NautilusAdapter]:
    for folder in ("docs/old", "photos"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("docs/a.txt", "docs/b.txt", "docs/c.txt", "photos/p.jpg"):
        (tmp_path / name).write_text(name + "\n")
    nautilus = NautilusAdapter(Workspace(tmp_path), op_timeout_s=20)
    yield nautilus
    nautilus.close()


def test_a_window_navigates_and_its_history_follows_nautilus(adapter: NautilusAdapter) -> None:
    assert ok(adapter, fn("open_window", path="docs")) == ["window:1"]
    ok(adapter, fn("go_to", path="photos"))
    ok(adapter, fn("go_to", path="docs/old"))
    ok(adapter, fn("go_back"))
    window = windows(adapter)["window:1"]
    assert window.value == "photos"  # read back from FileManager1, not from ASIL's record
    assert (window.meta["back"], window.meta["forward"]) == (["docs"], ["docs/old"])
    assert (window.meta["can_go_back"], window.meta["can_go_forward"]) == (True, True)  # Nautilus's own flags
    ok(adapter, fn("go_forward"))
    ok(adapter, fn("go_up"))
    window = windows(adapter)["window:1"]
    assert window.value == "docs" and window.meta["back"] == ["docs", "photos", "docs/old"]
    assert window.meta["forward"] == [] and window.meta["history_complete"] is True


def test_selection_is_read_and_set_in_nautilus_view(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("select_items", paths=["docs/a.txt", "docs/c.txt"]))
    assert windows(adapter)["window:1"].meta["selection"] == ["docs/a.txt", "docs/c.txt"]
    ok(adapter, fn("select_items", paths=["docs/old"], add=True))
    assert windows(adapter)["window:1"].meta["selection"] == ["docs/a.txt", "docs/c.txt", "docs/old"]
    ok(adapter, fn("select_items", paths=["docs/b.txt"]))
    assert windows(adapter)["window:1"].meta["selection"] == ["docs/b.txt"]
    ok(adapter, fn("select_all"))
    assert windows(adapter)["window:1"].meta["selection"] == ["docs/a.txt", "docs/b.txt", "docs/c.txt", "docs/old"]
    ok(adapter, fn("clear_selection"))
    assert windows(adapter)["window:1"].meta["selection"] == []


def test_checkpoints_and_the_raw_validator_read_the_saved_windows(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("go_to", path="photos"))
    ok(adapter, fn("select_items", paths=["photos/p.jpg"]))
    ok(adapter, fn("open_window", path="docs/old"))
    adapter.save()
    checks = [
        (Checkpoint(type="nautilus_open_windows", expected=["docs/old", "photos"]), True),
        (Checkpoint(type="nautilus_window_open", target="docs/old", expected=True), True),
        (Checkpoint(type="nautilus_window_back", target="photos", expected=["docs"]), True),
        (Checkpoint(type="nautilus_window_forward", target="photos", expected=[]), True),
        (Checkpoint(type="nautilus_window_can_go", target="photos", expected={"back": True, "forward": False}), True),
        (Checkpoint(type="nautilus_selection", target="photos", expected=["photos/p.jpg"]), True),
        (Checkpoint(type="nautilus_selection", target="photos", expected=[]), False),
        (Checkpoint(type="nautilus_window_back", target="docs", expected=[]), False),  # no window shows docs
    ]
    for checkpoint, expected in checks:
        assert judge(EvalContext(adapter.workspace), checkpoint).passed is expected, checkpoint
        assert raw_judge(checkpoint, adapter.workspace) is expected, checkpoint


@pytest.mark.parametrize("action, sentence", [
    (fn("go_back"), "Window 1 has no earlier location to go back to."),
    (fn("go_forward"), "Window 1 has no later location to go forward to."),
    (fn("go_up"), "Window 1 shows the workspace root; going up would leave the workspace."),
    (fn("go_to", path="nowhere"), "There is no file or folder 'nowhere' in the workspace."),
    (fn("go_to", path="../etc"), "The path '../etc' climbs out of the workspace with '..'."),
    (fn("go_to", path="."), "Window 1 shows '.' already."),
    (fn("go_to", window=7, path="docs"), "There is no window 7; open windows: window:1 (.)."),
    (fn("select_items", paths=["docs/a.txt"]), "'docs/a.txt' is not in the folder window 1 shows ('.')."),
    (fn("select_items", paths=["ghost.txt"]), "There is no file or folder 'ghost.txt' in the workspace."),
    (Action(action_type="batch", params={"actions": [fn("go_to", path="docs").model_dump(exclude_none=True)]}),
     "Batch action 1: A batch cannot contain go_to."),
    (fn("select_items", paths=[]), "Parameter 'paths' of select_items is wrong"),
])
def test_refusals_say_what_is_wrong_and_change_nothing(adapter: NautilusAdapter, action: Action, sentence: str) -> None:
    ok(adapter, fn("open_window", path="."))
    ok(adapter, fn("select_items", paths=["photos"]))
    before = windows(adapter)
    record_before = record(adapter.workspace.root)
    result = adapter.execute(action, observe=False)
    assert result.status == "invalid" and result.error is not None
    assert sentence in result.error.message and result.error.hint
    assert result.error.message.count(". ") <= 1  # one sentence (paths may hold dots)
    after = windows(adapter)
    assert {k: (e.value, e.meta) for k, e in after.items()} == {k: (e.value, e.meta) for k, e in before.items()}
    assert record(adapter.workspace.root) == record_before


def test_several_windows_need_a_window_number(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("open_window", path="photos"))
    result = adapter.execute(fn("go_up"), observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message == ("Several windows are open, so params.window is needed; open windows: "
                                    "window:1 (docs), window:2 (photos).")
    ok(adapter, fn("go_up", window=2))
    assert [e.value for e in windows(adapter).values()] == ["docs", "."]


def test_a_killed_nautilus_reopens_the_windows_with_history_and_selection(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs"))
    ok(adapter, fn("go_to", path="photos"))
    ok(adapter, fn("go_back"))
    ok(adapter, fn("select_items", paths=["docs/b.txt"]))
    assert adapter.session is not None and adapter.session.pid is not None
    os.kill(adapter.session.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while adapter.session.alive and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "not running" in adapter.observe().environment["nautilus"]["state"]
    ok(adapter, fn("go_forward"))  # the next action restarts Nautilus, which gets its windows back first
    window = next(iter(windows(adapter).values()))
    assert window.value == "photos" and window.meta["back"] == ["docs"] and window.meta["can_go_back"] is True
    assert adapter.restarts == 1
    ok(adapter, fn("go_back"))
    assert next(iter(windows(adapter).values())).meta["selection"] is not None


def test_windows_outlive_the_adapter(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="photos"))
    ok(adapter, fn("go_to", path="docs"))
    ok(adapter, fn("select_items", paths=["docs/a.txt", "docs/b.txt"]))
    adapter.save()
    adapter.close()
    again = NautilusAdapter(adapter.workspace, op_timeout_s=20)
    try:
        window = next(iter(windows(again).values()))  # the first observation reopens them
        assert window.value == "docs" and window.meta["back"] == ["photos"]
        assert window.meta["can_go_back"] is True and window.meta["selection"] == ["docs/a.txt", "docs/b.txt"]
        ok(again, fn("go_back"))
        assert next(iter(windows(again).values())).value == "photos"
    finally:
        again.close()


def test_a_task_can_start_with_a_window_open(tmp_path: Path) -> None:
    task = WINDOW_TASKS[0]
    build_tree({"entries": [{"path": "inbox/x.txt", "content": "x"}, {"path": "done", "folder": True}],
                "windows": [{"path": "inbox", "back": ["done"], "selection": ["inbox/x.txt"]}]}, tmp_path, task)
    nautilus = NautilusAdapter(Workspace(tmp_path), op_timeout_s=20)
    try:
        window = next(iter(windows(nautilus).values()))
        assert (window.value, window.meta["back"], window.meta["selection"]) == ("inbox", ["done"], ["inbox/x.txt"])
        assert window.meta["can_go_back"] is True
    finally:
        nautilus.close()


@pytest.mark.parametrize("task", WINDOW_TASKS, ids=lambda t: t.id)
def test_window_tasks_are_sound_and_the_raw_validator_agrees(task: Any) -> None:
    check = check_task(task, raw=True)
    assert check.ok, check.detail


def test_there_are_window_tasks_for_location_history_and_selection() -> None:
    domains = [t.domain for t in WINDOW_TASKS]
    assert all(domains.count(d) >= 3 for d in ("windows", "history", "selection"))


def api(request: str, **data: Any) -> Action:
    return Action(action_type="api_call", target=request, params={"request": request, "data": data})


def test_api_calls_open_and_move_windows_in_nautilus_vocabulary(adapter: NautilusAdapter) -> None:
    ok(adapter, api("org.gtk.Application.Open", uris=["docs"]))
    ok(adapter, api("org.gtk.Actions.Activate", window=1, action_name="open-location",
                    parameter=[(adapter.workspace.root / "photos").as_uri()]))
    ok(adapter, api("org.gtk.Actions.Activate", window=1, action_name="back"))
    window = windows(adapter)["window:1"]
    assert (window.value, window.meta["forward"], window.meta["can_go_forward"]) == ("docs", ["photos"], True)
    refused = adapter.execute(api("org.gtk.Actions.Activate", window=1, action_name="open-location"), observe=False)
    assert refused.status == "invalid" and refused.error is not None
    assert refused.error.message == "The window action 'open-location' takes one folder URI."
    closing = adapter.execute(api("org.gtk.Actions.Activate", window=1, action_name="close"), observe=False)
    assert closing.status == "invalid" and closing.error is not None and "action_name" in closing.error.message
    assert windows(adapter)["window:1"].value == "docs"


def test_a_window_nautilus_moves_by_itself_is_reported_with_an_incomplete_history(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="docs/old"))
    ok(adapter, fn("trash", paths=["docs/old"]))  # Nautilus leaves a folder that goes to the trash
    deadline = time.monotonic() + 10
    while windows(adapter)["window:1"].value == "docs/old" and time.monotonic() < deadline:
        time.sleep(0.1)
    window = windows(adapter)["window:1"]
    assert window.value == "docs" and window.meta["can_go_back"] is True  # Nautilus's own flag
    assert window.meta["back"] == [] and window.meta["history_complete"] is False  # ASIL did not see that move


def test_a_recorded_window_whose_folder_is_gone_is_not_reopened_and_said_so(adapter: NautilusAdapter) -> None:
    ok(adapter, fn("open_window", path="photos"))
    ok(adapter, fn("open_window", path="docs/old"))
    adapter.save()
    adapter.close()
    shutil.rmtree(adapter.workspace.root / "docs" / "old")
    again = NautilusAdapter(adapter.workspace, op_timeout_s=20)
    try:
        observed = again.observe()
        assert [e.value for e in observed.elements if e.type == "window"] == ["photos"]
        assert observed.environment["nautilus"]["not_reopened"] == [
            "window at 'docs/old' not reopened: the folder is gone"]
    finally:
        again.close()
