"""The GUI path against the real GIMP 2.10 in a private Xvfb: recorded demonstrations (real clicks and
keystrokes) replayed through GuiEnv end in evaluator success, judged by the task's unchanged evaluator and the
GIMP raw validator, after this same GIMP wrote the image with its own file procedures (XCF save or PNG export,
run through its Script-Fu server); the untouched program fails and writes nothing. (That synced work survives a
restart is tested on Inkscape and LibreOffice; a GIMP launch costs 5-12 s on the shared machine, so it is not
repeated here to keep these tests inside CI's time.)"""

from __future__ import annotations

import hashlib

import pytest

from asil.gui.environment import GuiEnv
from asil.tasks import get_task
from tests.gui.demos import demos_of, disagreements, solved

pytestmark = [pytest.mark.gui, pytest.mark.slow]

APP = "gimp"
DEMOS = demos_of(APP)


def test_demonstrations_cover_gimp_twice() -> None:
    assert len(DEMOS) >= 2, DEMOS


@pytest.mark.parametrize("task_id", DEMOS)
def test_recorded_demonstration_solves_its_task_and_the_raw_validator_agrees(task_id: str) -> None:
    note = solved(task_id).sync_note
    assert note is not None and note.startswith(f"stored {get_task(task_id).document_for(APP)} through GIMP"), note


def test_the_untouched_program_fails_its_task_and_writes_nothing() -> None:
    env = GuiEnv(get_task("gimp-invert-colors"))
    try:
        env.reset()
        assert env.workspace is not None
        before = hashlib.sha256((env.workspace.root / "photo.png").read_bytes()).hexdigest()
        evaluation = env.evaluate()
        assert not evaluation.success and disagreements(env, evaluation) == []
        assert env.sync_note is not None and env.sync_note.startswith("GIMP had no unsaved change")
        assert hashlib.sha256((env.workspace.root / "photo.png").read_bytes()).hexdigest() == before
    finally:
        env.close()

