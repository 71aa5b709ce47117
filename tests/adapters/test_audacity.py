"""The Audacity adapter against a real, scripted Audacity 3.2 (mod-script-pipe under Xvfb + bubblewrap)."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.audacity.adapter import AudacityAdapter
from asil.adapters.audacity.audio import format_labels, peak_db, read_labels, read_wav, synthesize
from asil.apps.audacity import AudacityCrashed, missing_parts
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace
from tests import png

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing_parts()), reason="needs audacity, bwrap and Xvfb (scripts/install-system.sh)"),
]
SPEC = {"rate": 22050, "duration": 3.0, "parts": [{"kind": "sine", "frequency": 440, "amplitude": 0.25}]}


def call(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def new_document(ws: Workspace, name: str = "clip.wav", labels: list[tuple[float, float, str]] | None = None) -> str:
    ws.write_bytes(name, synthesize(SPEC))
    if labels:
        ws.write_bytes(name.replace(".wav", ".labels.txt"), format_labels(labels).encode())
    return name


def exported_peak(adapter: AudacityAdapter, name: str = "check.wav") -> float:
    result = adapter.execute(call("export", path=name), observe=False)
    assert result.ok, result.error
    return peak_db(read_wav(adapter.workspace.resolve(name)).samples)


def open_adapter(ws: Workspace) -> AudacityAdapter:
    return AudacityAdapter(ws, new_document(ws, labels=[(0.5, 0.5, "Start"), (1.0, 2.0, "Middle")]))


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AudacityAdapter]:
    """One warm Audacity shared by the tests that assert only relative to the state they find
    (pytest-xdist may run this module's tests on different workers, in any order)."""
    adapter = open_adapter(Workspace(tmp_path_factory.mktemp("audacity")))
    yield adapter
    adapter.close()


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[AudacityAdapter]:
    """An adapter on the untouched document, for tests that assert absolute values."""
    adapter = open_adapter(Workspace(tmp_path / "fresh"))
    yield adapter
    adapter.close()


def test_observation_shows_tracks_labels_and_project(fresh: AudacityAdapter) -> None:
    session = fresh
    obs = session.observe()
    ids = [e.id for e in obs.elements]
    assert ids[:2] == ["@project", "clip"]
    project = obs.elements[0].value
    assert project["rate"] == 22050 and project["audio_tracks"] == 1
    assert abs(project["length_s"] - 3.0) < 1e-3
    labels = {e.id: e.value for e in obs.elements if e.type == "label"}
    assert labels == {"label:0": {"start": 0.5, "end": 0.5, "text": "Start"},
                      "label:1": {"start": 1.0, "end": 2.0, "text": "Middle"}}
    assert obs.metadata.source == "script" and "2 label(s)" in obs.summary
    page = session.observe(offset=1, limit=1)
    assert [e.id for e in page.elements] == ["@project", "label:0"]
    assert page.navigation.paging is not None and page.navigation.paging.total == 3
    session.observe(offset=0, limit=40)


def test_edits_land_in_the_saved_file_and_labels(fresh: AudacityAdapter) -> None:
    session = fresh
    before = exported_peak(session)
    assert abs(before - (-12.04)) < 0.2
    assert session.execute(call("amplify", gain_db=6.0), observe=False).ok
    result = session.execute(call("add_label", text="Added", start=2.5))
    assert result.ok and result.changed == ["label:2"]
    assert abs(exported_peak(session) - (-6.02)) < 0.2
    document = session.workspace.resolve("clip.wav")
    assert document.read_bytes() == synthesize(SPEC)  # nothing is written before save
    session.save()
    assert abs(peak_db(read_wav(document).samples) - (-6.02)) < 0.2
    assert read_labels(document.with_name("clip.labels.txt"))[-1] == [2.5, 2.5, "Added"]


def test_selection_is_used_by_later_edits(fresh: AudacityAdapter) -> None:
    session = fresh
    assert session.execute(call("select", start=0.0, end=1.0)).ok
    assert session.observe().elements[0].value["selection"] == {"start": 0.0, "end": 1.0, "tracks": None}
    assert session.execute(call("fade_in"), observe=False).ok
    assert session.execute(call("select"), observe=False).ok  # back to the whole project
    samples = read_wav(session.workspace.resolve("clip.wav")).samples  # the document: before the fade
    assert session.execute(call("export", path="faded.wav"), observe=False).ok
    faded = read_wav(session.workspace.resolve("faded.wav")).samples
    assert peak_db(faded[:1000]) < peak_db(samples[:1000]) - 10
    assert abs(peak_db(faded[30000:40000]) - peak_db(samples[30000:40000])) < 0.1



class CountingAdapter(AudacityAdapter):
    """Counts the Select commands sent to Audacity."""

    def __init__(self, workspace: Workspace, document: str) -> None:
        super().__init__(workspace, document)
        self.selects = 0

    def _command(self, line: str) -> str:
        self.selects += line.startswith("Select:")
        return super()._command(line)


class ReselectingAdapter(CountingAdapter):
    """Sends every edit's Select, as if Audacity held no selection."""

    def _run(self, name: str, params: Any) -> list[str]:
        self._selected = None
        return super()._run(name, params)


def test_edits_of_a_held_selection_match_edits_that_select_again(tmp_path: Path) -> None:
    """Level edits keep Audacity's selection, so the adapter does not send the same Select again."""
    edits = [call("generate_tone", frequency=220, amplitude=0.3, duration=3.0, name="Tone"),
             call("select", start=0.5, end=1.5, tracks=["Tone"]), call("fade_in"), call("normalize", peak_db=-3.0),
             call("fade_out"), call("amplify", gain_db=-4.0), call("amplify", start=0.5, end=1.5, tracks=["Tone"],
                                                                  gain_db=2.0)]
    saved, selects = [], []
    for cls in (CountingAdapter, ReselectingAdapter):
        ws = Workspace(tmp_path / cls.__name__)
        adapter = cls(ws, new_document(ws))
        try:
            for edit in edits:
                result = adapter.execute(edit, observe=False)
                assert result.ok, result.error
            adapter.save()
            saved.append(read_wav(ws.resolve("clip.wav")).samples)
            selects.append(adapter.selects)
        finally:
            adapter.close()
    assert selects[0] < selects[1]  # Select commands were really skipped
    assert saved[0] == saved[1]  # and the audio is the same as when every edit selects again
    untouched = read_wav_samples(synthesize(SPEC), tmp_path)
    assert saved[0] != untouched


def test_invalid_actions_change_nothing(session: AudacityAdapter) -> None:
    before = session.observe().model_dump(exclude={"metadata"})
    bad = [
        call("amplify", gain_db="loud"),
        call("amplify", gain_db=3.0, tracks=["No Such Track"]),
        call("fade_out", start=2.0, end=1.0),
        call("fade_out", start=1.0, end=99.0),
        call("import_audio", path="../outside.wav"),
        call("import_audio", path="missing.wav"),
        call("edit_label", label=40, text="x"),
        call("export", path="clip.wav"),
        call("export", path="out.mp4"),
        call("rename_track", track="clip", name='bad"name'),
        Action(action_type="set_value", target="clip", params={"value": 1}),
    ]
    for action in bad:
        result = session.execute(action)
        assert result.status == "invalid", action
        assert result.error is not None and result.error.message.endswith(".") and result.error.hint
    assert session.observe().model_dump(exclude={"metadata"}) == before


def test_a_failing_batch_leaves_the_project_as_before(session: AudacityAdapter) -> None:
    peak = exported_peak(session)
    labels = len(session.project_data().labels)
    batch = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": -20.0}},
        {"action_type": "invoke_function", "target": "add_label", "params": {"text": "Gone", "start": 0.1}},
        {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": 1.0, "tracks": ["ghost"]}}]})
    result = session.execute(batch)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 3:")
    assert len(session.project_data().labels) == labels
    assert abs(exported_peak(session) - peak) < 0.01
    first = session.project_data().audio[0].name
    renamed = f"{first} v2"
    good = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "rename_track", "params": {"track": first, "name": renamed}},
        {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": -1.0, "tracks": [renamed]}}]})
    assert session.execute(good).ok
    assert [t.name for t in session.project_data().audio] == [renamed]


def test_a_batch_refused_before_any_command_does_not_restart_audacity(session: AudacityAdapter) -> None:
    # found by tests/fuzz: a batch whose first member was refused while planning restarted Audacity
    # (visible as environment.audacity.restarts) although nothing had been sent to it
    before = session.observe().model_dump(exclude={"metadata"})
    restarts = session.restarts
    batch = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": 1.0, "tracks": ["ghost"]}}]})
    result = session.execute(batch)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 1: There is no audio track named 'ghost'.")
    assert session.restarts == restarts
    assert session.observe().model_dump(exclude={"metadata"}) == before


def test_render_draws_a_waveform(session: AudacityAdapter, tmp_path: Path) -> None:
    out = session.render(tmp_path / "wave.png")
    assert png.size(out) == (480, 120)


def test_a_killed_audacity_restarts_with_the_edits_replayed(session: AudacityAdapter) -> None:
    assert session.execute(call("amplify", gain_db=-3.0), observe=False).ok
    peak = exported_peak(session)
    labels = session.project_data().labels
    assert session.session is not None
    restarts = session.restarts
    os.killpg(session.session.process.pid, signal.SIGKILL)
    session.session.process.process.wait(timeout=10)
    obs = session.observe()
    assert obs.environment["audacity"]["restarts"] == restarts + 1
    assert session.project_data().labels == labels
    assert abs(exported_peak(session) - peak) < 0.01


def test_a_hung_audacity_times_out_and_is_replaced(session: AudacityAdapter) -> None:
    assert session.session is not None
    process = session.session.process
    os.killpg(process.pid, signal.SIGSTOP)  # Audacity stops answering
    with pytest.raises(AudacityCrashed, match="did not answer"):
        session.session.command("GetInfo: Type=Tracks Format=JSON", timeout_s=1.0)
    assert not process.alive
    result = session.execute(call("normalize", peak_db=-2.0))
    assert result.ok and result.observation is not None
    assert abs(exported_peak(session) - (-2.0)) < 0.2


def test_two_sessions_run_side_by_side(session: AudacityAdapter, tmp_path: Path) -> None:
    """Each Audacity has its own /tmp, so the fixed-name pipes of two sessions never meet."""
    names = [t.name for t in session.project_data().audio]
    ws = Workspace(tmp_path / "second")
    other = AudacityAdapter(ws, new_document(ws, "other.wav"))
    try:
        assert other.execute(call("rename_track", track="other", name="Second")).ok
        assert [t.name for t in other.project_data().audio] == ["Second"]
        assert [t.name for t in session.project_data().audio] == names
        assert other.session is not None
        group = other.session.process.pid
    finally:
        other.close()
    assert not _group_alive(group, wait_s=5.0)  # close() leaves no process of that session behind


def _group_alive(group: int, wait_s: float) -> bool:
    """True while any process of the group exists (a killed child may stay a zombie until init reaps it)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.parametrize("content", [b"", b"RIFF\x00\x00\x00\x00WAVEjunk", b"not audio at all\n" * 20])
def test_bad_documents_are_refused_and_left_unchanged(tmp_path: Path, content: bytes) -> None:
    ws = Workspace(tmp_path)
    path = ws.write_bytes("broken.wav", content)
    with pytest.raises(DocumentError) as info:
        AudacityAdapter(ws, "broken.wav")
    assert info.value.hint and info.value.message.endswith(".")
    assert path.read_bytes() == content
    with pytest.raises(DocumentError, match="does not exist"):
        AudacityAdapter(ws, "absent.wav")


def test_a_bad_label_file_is_refused_at_open(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    new_document(ws)
    labels = ws.write_bytes("clip.labels.txt", b"one\ttwo\tthree\n")
    with pytest.raises(DocumentError, match="not an Audacity label file"):
        AudacityAdapter(ws, "clip.wav")
    assert labels.read_bytes() == b"one\ttwo\tthree\n"


def test_readiness_names_what_is_missing() -> None:
    assert AudacityAdapter.readiness().ready
    assert shutil.which("bwrap") is not None


def read_wav_samples(data: bytes, folder: Path) -> list[float]:
    path = folder / "untouched.wav"
    path.write_bytes(data)
    return read_wav(path).samples
