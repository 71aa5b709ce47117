"""Real multi-track Audacity projects (.aup3): tracks, label tracks, their edits, saves and reopening.

Every project here is built and saved by a real Audacity 3.2 (``make_project``), edited through the
adapter (mod-script-pipe) and read back twice: by the Python .aup3 reader the checkpoints use, and
by the raw validator, which has a fresh Audacity open the saved file.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import asil.adapters.audacity.checkpoints  # noqa: F401  (registers the checkpoint types)
from asil.adapters.audacity.adapter import AudacityAdapter
from asil.adapters.audacity.aup3 import ProjectUnreadable, read_tracks
from asil.adapters.audacity.builders import make_project
from asil.adapters.audacity.validator import raw_judge
from asil.apps.audacity import missing_parts
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, CheckpointUnreadable, EvalContext
from asil.evaluate.compare import compare
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing_parts()), reason="needs audacity, bwrap and Xvfb (scripts/install-system.sh)"),
]


def tone(frequency: float, channels: int = 1) -> dict[str, Any]:
    return {"rate": 22050, "channels": channels, "duration": 3.0,
            "parts": [{"kind": "sine", "frequency": frequency, "amplitude": 0.3}]}


SPEC = {"tracks": [{"name": "Drums", "audio": tone(110)},
                   {"name": "Keys", "audio": tone(330, channels=2), "gain_db": -4.5, "pan": 0.3, "mute": True},
                   {"name": "Vocals", "audio": tone(220), "solo": True}],
        "label_tracks": [{"name": "Sections", "labels": [[0.0, 0.0, "Intro"], [1.0, 2.0, "Verse"], [2.5, 2.5, "Cut"]]},
                         {"name": "Notes", "labels": [[0.5, 0.5, "breath"]]}]}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project that a real Audacity built and saved; tests copy it."""
    path = tmp_path_factory.mktemp("aup3") / "band.aup3"
    make_project(SPEC, path)
    return path


def workspace_with(built: Path, tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path / "ws")
    ws.root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, ws.root / "band.aup3")
    return ws


@pytest.fixture
def adapter(built: Path, tmp_path: Path) -> Iterator[AudacityAdapter]:
    opened = AudacityAdapter(workspace_with(built, tmp_path), "band.aup3")
    yield opened
    opened.close()


def call(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def both(ws: Workspace, kind: str, target: str | None, expected: Any, tolerance: float = 0.01) -> tuple[bool, bool]:
    """(evaluator verdict, raw validator verdict) of one checkpoint on band.aup3."""
    cp = Checkpoint(type=kind, app="audacity", document="band.aup3", target=target, expected=expected,
                    tolerance=tolerance)
    spec = CHECKPOINT_TYPES[kind]
    try:
        evaluated = compare(spec.default_compare, spec.read(EvalContext(ws), cp), expected, tolerance)
    except CheckpointUnreadable:
        evaluated = False
    return evaluated, raw_judge(cp, ws)


def test_the_reader_decodes_what_audacity_saved(built: Path) -> None:
    rate, tracks = read_tracks(built)
    assert rate == 22050
    assert [(t["name"], t["kind"]) for t in tracks] == [("Drums", "wave"), ("Keys", "wave"), ("Vocals", "wave"),
                                                       ("Sections", "label"), ("Notes", "label")]
    drums, keys, vocals, sections, notes = tracks
    assert (drums["gain_db"], drums["pan"], drums["mute"], drums["solo"], drums["channels"]) == (0.0, 0.0, False,
                                                                                                False, 1)
    assert keys["channels"] == 2  # two linked <wavetrack> channels are one stereo track
    assert keys["gain_db"] == pytest.approx(-4.5, abs=0.01) and keys["pan"] == pytest.approx(0.3, abs=1e-4)
    assert keys["mute"] is True and vocals["solo"] is True
    assert drums["clips"] == [[0.0, 3.0]]
    assert sections["labels"] == [[0.0, 0.0, "Intro"], [1.0, 2.0, "Verse"], [2.5, 2.5, "Cut"]]
    assert notes["labels"] == [[0.5, 0.5, "breath"]]


def test_checkpoints_and_the_reopening_validator_agree(built: Path, tmp_path: Path) -> None:
    ws = workspace_with(built, tmp_path)
    assert both(ws, "audacity_track", "Keys:gain_db", -4.5) == (True, True)
    assert both(ws, "audacity_track", "Keys:gain_db", 0.0) == (False, False)
    assert both(ws, "audacity_track", "Keys:pan", 0.3) == (True, True)
    assert both(ws, "audacity_track", "Keys:channels", 2) == (True, True)
    assert both(ws, "audacity_track", "Keys:mute", True) == (True, True)
    assert both(ws, "audacity_track", "Drums:mute", True) == (False, False)
    assert both(ws, "audacity_track", "Vocals:solo", True) == (True, True)
    assert both(ws, "audacity_track", "Drums:clips", [[0.0, 3.0]]) == (True, True)
    assert both(ws, "audacity_track", "Sections:gain_db", 0.0) == (False, False)  # a label track has no gain
    assert both(ws, "audacity_track", "Ghost:mute", False) == (False, False)
    assert both(ws, "audacity_tracks", None, ["Drums", "Keys", "Vocals", "Sections", "Notes"]) == (True, True)
    assert both(ws, "audacity_project_labels", "Notes", [[0.5, 0.5, "breath"]]) == (True, True)
    assert both(ws, "audacity_project_labels", None,
                [[0.0, 0.0, "Intro"], [0.5, 0.5, "breath"], [1.0, 2.0, "Verse"], [2.5, 2.5, "Cut"]]) == (True, True)
    assert both(ws, "audacity_project_labels", "Sections", [[0.0, 0.0, "Intro"]]) == (False, False)


def test_the_observation_shows_tracks_settings_and_label_tracks(adapter: AudacityAdapter) -> None:
    elements = {e.id: e for e in adapter.observe().elements}
    keys = elements["Keys"]
    assert keys.type == "audio_track" and keys.value is not None
    assert (keys.value["gain_db"], keys.value["pan"], keys.value["mute"], keys.value["channels"]) == (-4.5, 0.3,
                                                                                                    True, 2)
    assert elements["Vocals"].value["solo"] is True  # type: ignore[index]
    assert elements["Sections"].type == "label_track" and elements["Sections"].value == {"labels": 3}
    # labels are numbered as SetLabel counts them: label track by label track, in time order within each
    assert elements["label:1"].value == {"start": 1.0, "end": 2.0, "text": "Verse", "track": "Sections"}
    assert elements["label:3"].value == {"start": 0.5, "end": 0.5, "text": "breath", "track": "Notes"}


def test_track_and_label_edits_are_saved_by_audacity_and_reopen(adapter: AudacityAdapter) -> None:
    edits = [call("set_track", track="Drums", gain_db=-6.0, pan=-0.5, solo=True),
             call("set_track", track="Keys", mute=False, name="Piano"),
             call("remove_label", label=2),  # 'Cut'
             call("edit_label", label=1, start=1.5, end=2.5),  # 'Verse'

             call("add_label", text="Outro", start=2.8, track="Notes"),
             call("set_track", track="Notes", name="Comments")]
    for edit in edits:
        result = adapter.execute(edit, observe=False)
        assert result.ok, (edit, result.error)
    assert adapter.execute(call("save"), observe=False).ok
    document = adapter.workspace.resolve("band.aup3")
    drums, piano, _vocals, sections, comments = read_tracks(document)[1]
    assert (drums["gain_db"], drums["pan"], drums["solo"]) == (-6.0, -0.5, True)
    assert (piano["name"], piano["mute"], piano["gain_db"]) == ("Piano", False, -4.5)
    assert sections["labels"] == [[0.0, 0.0, "Intro"], [1.5, 2.5, "Verse"]]
    assert (comments["name"], comments["labels"]) == ("Comments", [[0.5, 0.5, "breath"], [2.8, 2.8, "Outro"]])
    adapter.close()
    reopened = AudacityAdapter(adapter.workspace, "band.aup3")  # a new Audacity opens the saved project
    try:
        seen = {e.id: e.value for e in reopened.observe().elements}
        assert seen["Drums"]["gain_db"] == -6.0 and seen["Drums"]["solo"] is True  # type: ignore[index]
        assert seen["Piano"]["mute"] is False and "Keys" not in seen  # type: ignore[index]
        assert seen["Comments"] == {"labels": 2}
    finally:
        reopened.close()
    assert sorted(p.name for p in adapter.workspace.root.iterdir()) == [".asil", "band.aup3"]


def test_bad_track_and_label_edits_are_refused_and_change_nothing(adapter: AudacityAdapter) -> None:
    document = adapter.workspace.resolve("band.aup3")
    before_bytes = document.read_bytes()
    before = adapter.observe().model_dump(exclude={"metadata"})
    bad = [
        (call("set_track", track="Sections", gain_db=-3.0), "'Sections' is a label track, which has no gain_db."),
        (call("set_track", track="Ghost", mute=True), "There is no track named 'Ghost'."),
        (call("remove_label", label=9), "There is no label 9; the project has 4."),
        (call("add_label", text="x", start=1.0, track="Drums"), "'Drums' is an audio track, not a label track."),
        (call("set_track", track="Drums"), None),
        (call("set_track", track="Drums", pan=1.5), None),
        (call("set_track", track="Drums", gain_db=80), None),
        (call("set_track", track="Drums", name='say "hi"'), None),
    ]
    for action, sentence in bad:
        result = adapter.execute(action)
        assert result.status == "invalid", action
        assert result.error is not None and result.error.message.endswith(".") and result.error.hint
        assert result.error.message.count(". ") == 0, result.error.message  # one sentence
        if sentence is not None:
            assert result.error.message == sentence
    assert adapter.observe().model_dump(exclude={"metadata"}) == before
    assert adapter.restarts == 0  # every refusal came before a command was sent
    batch = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "set_track", "params": {"track": "Drums", "gain_db": -12}},
        {"action_type": "invoke_function", "target": "remove_label", "params": {"label": 0}},
        {"action_type": "invoke_function", "target": "set_track", "params": {"track": "Ghost", "solo": True}}]})
    result = adapter.execute(batch)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 3:")
    # the batch had sent commands: Audacity was replaced (restarts 1) and reopened the project as it was
    after = adapter.observe().model_dump(exclude={"metadata", "environment"})
    assert after == {k: v for k, v in before.items() if k != "environment"}
    assert document.read_bytes() == before_bytes


def test_a_killed_audacity_reopens_the_project_and_replays_the_track_edits(adapter: AudacityAdapter) -> None:
    assert adapter.execute(call("set_track", track="Vocals", gain_db=-9.0, solo=False), observe=False).ok
    assert adapter.execute(call("remove_label", label=0), observe=False).ok
    expected = {e.id: e.value for e in adapter.observe().elements}
    assert adapter.session is not None
    os.killpg(adapter.session.process.pid, signal.SIGKILL)
    adapter.session.process.process.wait(timeout=10)
    observation = adapter.observe()
    assert observation.environment["audacity"]["restarts"] == 1
    assert {e.id: e.value for e in observation.elements} == expected


def test_a_file_that_is_not_a_project_is_refused_unchanged(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write_bytes("broken.aup3", b"SQLite format 3\x00 but not really")
    with pytest.raises(DocumentError, match="is not an Audacity 3 project"):
        AudacityAdapter(ws, "broken.aup3")
    assert ws.resolve("broken.aup3").read_bytes() == b"SQLite format 3\x00 but not really"
    with pytest.raises(ProjectUnreadable):
        read_tracks(ws.resolve("broken.aup3"))


def test_after_set_track_and_remove_label_the_kept_project_matches_a_fresh_read(adapter: AudacityAdapter) -> None:
    # set_track and remove_label update the project the adapter read before instead of asking Audacity again
    for edit in (call("set_track", track="Drums", gain_db=-4.37, pan=0.123, mute=True),
                 call("set_track", track="Keys", solo=True, gain_db=2.0), call("set_track", track="Notes", name="N"),
                 call("remove_label", label=1)):
        assert adapter.execute(edit, observe=False).ok
    kept = adapter.observe().model_dump(exclude={"metadata"})
    adapter._project = None
    assert adapter.observe().model_dump(exclude={"metadata"}) == kept
    assert kept["elements"][1]["value"]["gain_db"] == -4.37
