"""Renaming and removing scene collections and profiles in a real OBS (see asil.adapters.obs.config_ops):
the change is made to OBS's config files and OBS restarts to read them; it shows in the observation,
survives a crash and a new adapter, refusals are one sentence and change nothing, and the core tasks
that use it are sound with the raw validator agreeing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from asil.adapters.obs.adapter import ObsAdapter
from asil.protocol import Action
from asil.runner.check import check_task
from asil.tasks import load_tasks
from asil.workspace import Workspace
from tests.adapters.test_obs_setup import digests, fn, make_workspace, setup_values

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("obs") is None or shutil.which("Xvfb") is None,
                                 reason="needs obs-studio and xvfb (scripts/install-system.sh)")]

NEW_TASKS = ["obs-rename-podcast-collection", "obs-remove-old-season-collection", "obs-retire-weekly-show-collection",
             "obs-rename-vertical-profile", "obs-remove-recording-profile"]


@pytest.fixture()
def ws(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path / "ws")  # collections Show (open) and Podcast; profiles Desktop and Vertical


def run(adapter: ObsAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def test_rename_and_remove_collections_and_profiles_survive_a_crash_and_a_new_adapter(ws: Workspace) -> None:
    with ObsAdapter(ws, "scenes.json") as adapter:
        assert run(adapter, fn("rename_collection", collection="Podcast", name="Podcast 2026")) == \
            ["@collections", "@program"]
        run(adapter, fn("create_collection", name="Scratch"))
        run(adapter, fn("switch_collection", collection="Show"))
        assert run(adapter, fn("remove_collection", collection="Scratch")) == ["@collections"]
        run(adapter, fn("rename_collection", collection="Show", name="Show 2026"))  # the open one
        run(adapter, fn("rename_profile", profile="Vertical", name="Phone"))
        run(adapter, fn("create_profile", name="Old"))
        run(adapter, fn("switch_profile", profile="Desktop"))
        run(adapter, fn("remove_profile", profile="Old"))
        run(adapter, fn("rename_profile", profile="Desktop", name="Laptop"))  # the current one
        values = setup_values(adapter)
        assert values["collections"] == {"current": "Show 2026", "collections": ["Podcast 2026", "Show 2026"]}
        assert values["profiles"] == {"current": "Laptop", "profiles": ["Laptop", "Phone"]}
        assert [e.label for e in adapter.observe().elements if e.type == "scene"] == ["Main", "Break"]
        assert adapter.session is not None and adapter.session.process is not None
        os.killpg(adapter.session.process.process.pid, signal.SIGKILL)  # OBS comes back from the checkpoint
        assert setup_values(adapter) == values
        run(adapter, fn("switch_profile", profile="Phone"))  # renamed, it keeps its own video
        assert setup_values(adapter)["video"] == [720, 1280]
        run(adapter, fn("switch_profile", profile="Laptop"))
        adapter.save()
    saved = json.loads((ws.root / "scenes.config.json").read_text())
    assert sorted(saved["collections"]) == ["Podcast 2026"] and saved["collections"]["Podcast 2026"]["name"] == \
        "Podcast 2026"
    assert json.loads((ws.root / "scenes.json").read_text())["name"] == "Show 2026"
    with ObsAdapter(ws, "scenes.json") as restarted:  # a new OBS reads the saved files
        assert setup_values(restarted) == values
        run(restarted, fn("switch_collection", collection="Podcast 2026"))
        assert [e.label for e in restarted.observe().elements if e.type == "scene"] == ["Interview", "Outro"]


REFUSALS: list[tuple[Action, str, str]] = [
    (fn("remove_collection", collection="Show"), "The scene collection 'Show' is the open one and cannot be removed.",
     "switch_collection: 'Podcast'"),
    (fn("remove_profile", profile="Desktop"), "The profile 'Desktop' is the current one and cannot be removed.",
     "switch_profile: 'Vertical'"),
    (fn("remove_collection", collection="Nope"), "There is no scene collection 'Nope'.", "Podcast"),
    (fn("rename_collection", collection="Podcast", name="Show"), "There is already a scene collection 'Show'.",
     "Choose another"),
    (fn("rename_profile", profile="Nope", name="X"), "There is no profile 'Nope'.", "Vertical"),
    (fn("rename_profile", profile="Vertical", name="Desktop"), "There is already a profile 'Desktop'.",
     "Choose another"),
    (fn("rename_collection", collection="Podcast", name="a/b"), "name", "rename_collection"),
    (Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "remove_profile", "params": {"profile": "Vertical"}}]}),
     "remove_profile", "batch"),
]


@pytest.mark.parametrize(("action", "says", "hint"), REFUSALS)
def test_refusals_are_one_sentence_and_change_nothing(ws: Workspace, action: Action, says: str, hint: str) -> None:
    before = digests(ws)
    with ObsAdapter(ws, "scenes.json") as adapter:
        shown = setup_values(adapter)
        result = adapter.execute(action, observe=False)
        assert result.status == "invalid" and result.error is not None
        assert says in result.error.message and result.error.message.count(". ") == 0, result.error.message
        assert hint in f"{result.error.message} {result.error.hint}", result.error
        assert setup_values(adapter) == shown and adapter.restarts == 0
        adapter.save()
    assert digests(ws) == before


@pytest.mark.parametrize("task_id", NEW_TASKS)
def test_the_collection_and_profile_tasks_are_sound_and_the_raw_validator_agrees(task_id: str) -> None:
    (task,) = [t for t in load_tasks(suite="core", app="obs") if t.id == task_id]
    check = check_task(task, raw=True)
    assert check.ok, check.detail
