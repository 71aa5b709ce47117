"""The GUI path against the real Audacity window in a private 1280x800 Xvfb: recorded demonstrations (real
clicks, menus and keystrokes) replayed through GuiEnv end in success under the task's unchanged evaluator and
the raw validator, on files Audacity itself wrote through mod-script-pipe (a .wav exported, an .aup3 saved);
the untouched Audacity fails; the saved work is what a restarted Audacity opens."""

from __future__ import annotations

import pytest

from asil.agents.gui import demonstration
from asil.gui.environment import GuiEnv
from asil.tasks import get_task
from tests.gui.demos import demos_of, disagreements, fills_the_screen, replay, solved

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DEMOS = demos_of("audacity")


def test_audacity_has_demonstrations_of_a_wav_and_a_project_task() -> None:
    documents = [get_task(task_id).document_for("audacity") or "" for task_id in DEMOS]
    assert all(get_task(task_id).apps == ["audacity"] for task_id in DEMOS)
    assert {document.rsplit(".", 1)[-1] for document in documents} == {"wav", "aup3"}, documents


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and note.startswith("stored ") and "by Audacity" in note, note


def test_the_untouched_audacity_fills_the_screen_and_fails_its_task() -> None:
    env = GuiEnv(get_task("audacity-amplify-6db"))
    try:
        env.reset()
        assert fills_the_screen(env, "audacity")
        evaluation = env.evaluate()
        assert not evaluation.success and disagreements(env, evaluation) == []
        assert env.sync_note == "stored clip.wav exported by Audacity (Export2), labels as Audacity reports them"
    finally:
        env.close()


def test_a_restarted_audacity_opens_what_the_sync_saved() -> None:
    env = GuiEnv(get_task("audacity-project-solo-and-mute"))
    try:
        env.reset()
        replay(env, demonstration("audacity-project-solo-and-mute") or [])
        env.restart()  # sync, then a new Audacity (sandbox, home, display) on the saved project
        adapter = env.session.adapter  # type: ignore[union-attr]  # the Audacity GUI session's own adapter
        assert [track.name for track in adapter.project_data().tracks] == ["Vocals", "Click", "Piano"]
        assert env.evaluate().success
    finally:
        env.close()
