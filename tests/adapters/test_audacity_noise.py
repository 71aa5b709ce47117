"""reduce_noise: Audacity's own Noise Reduction (profile region, then reduction) driven through the pipe."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.audacity.adapter import AudacityAdapter
from asil.adapters.audacity.audio import read_wav, rms_db, synthesize
from asil.apps.audacity import missing_parts
from asil.protocol import Action
from asil.workspace import Workspace

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(missing_parts()), reason="needs audacity, bwrap and Xvfb (scripts/install-system.sh)"),
]
# A steady hiss (uniform, RMS about -24.8 dBFS) everywhere; a 440 Hz tone from 1 s to 3 s.
NOISY = {"rate": 22050, "duration": 3.0, "parts": [
    {"kind": "noise", "amplitude": 0.1, "seed": 5},
    {"kind": "sine", "frequency": 440, "amplitude": 0.4, "start": 1.0, "end": 3.0}]}
PURE_TONE_DB = rms_db([0.4, -0.4]) - 3.0103  # RMS of a sine of amplitude 0.4
NOISE_SPAN, TONE_SPAN = (0.1, 0.9), (1.2, 2.8)


def call(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def levels(adapter: AudacityAdapter, name: str = "check.wav") -> tuple[float, float]:
    """(RMS of the noise-only span, RMS of the tone span) of the project's mix now, in dBFS."""
    result = adapter.execute(call("export", path=name), observe=False)
    assert result.ok, result.error
    audio = read_wav(adapter.workspace.resolve(name))
    return rms_db(audio.window(*NOISE_SPAN)), rms_db(audio.window(*TONE_SPAN))


@pytest.fixture
def noisy(tmp_path: Path) -> Iterator[AudacityAdapter]:
    ws = Workspace(tmp_path / "noisy")
    ws.write_bytes("take.wav", synthesize(NOISY))
    adapter = AudacityAdapter(ws, "take.wav")
    yield adapter
    adapter.close()


def test_reduce_noise_lowers_the_hiss_keeps_the_tone_and_survives_a_restart(noisy: AudacityAdapter) -> None:
    noise_before, tone_before = levels(noisy)
    assert noise_before == pytest.approx(-24.8, abs=0.5)
    result = noisy.execute(call("reduce_noise", noise_start=0.0, noise_end=1.0, reduction_db=18.0), observe=False)
    assert result.ok, result.error
    noise_after, tone_after = levels(noisy)
    assert noise_after < noise_before - 15  # the hiss went down by about the 18 dB asked for
    assert tone_after == pytest.approx(PURE_TONE_DB, abs=0.5) and tone_before > PURE_TONE_DB
    noisy.save()
    saved = read_wav(noisy.workspace.resolve("take.wav"))
    assert rms_db(saved.window(*NOISE_SPAN)) == pytest.approx(noise_after, abs=0.1)

    # Audacity keeps its profile: the same values reduce again; other values are refused, nothing changes.
    again = noisy.execute(call("reduce_noise", noise_start=0.0, noise_end=1.0, reduction_db=18.0, start=0.0,
                               end=1.0), observe=False)
    assert again.ok, again.error
    twice, _ = levels(noisy)
    assert twice < noise_after - 10
    other = noisy.execute(call("reduce_noise", noise_start=0.0, noise_end=0.5), observe=False)
    assert other.status == "invalid" and other.error is not None
    assert "one noise profile" in other.error.message and "noise_start=0" in other.error.message
    assert levels(noisy)[0] == pytest.approx(twice, abs=0.01)

    # A killed Audacity comes back with both reductions replayed (the replay takes the profile again).
    assert noisy.session is not None
    os.killpg(noisy.session.process.pid, signal.SIGKILL)
    noisy.session.process.process.wait(timeout=10)
    noisy.observe()
    assert levels(noisy)[0] == pytest.approx(twice, abs=0.5)


def test_bad_noise_parameters_are_refused_and_change_nothing(noisy: AudacityAdapter) -> None:
    document = noisy.workspace.resolve("take.wav").read_bytes()
    before = levels(noisy)
    bad = {
        "too short": call("reduce_noise", noise_start=0.0, noise_end=0.05),  # Audacity would block on a message box
        "outside": call("reduce_noise", noise_start=2.5, noise_end=3.5),
        "reversed": call("reduce_noise", noise_start=1.0, noise_end=0.5),
        "too strong": call("reduce_noise", noise_start=0.0, noise_end=1.0, reduction_db=100),
        "no region": call("reduce_noise", reduction_db=12),
        "bad range": call("reduce_noise", noise_start=0.0, noise_end=1.0, start=2.0, end=9.0),
    }
    for what, action in bad.items():
        result = noisy.execute(action, observe=False)
        assert result.status == "invalid", what
        assert result.error is not None and result.error.message.endswith(".") and result.error.hint, what
    assert levels(noisy) == pytest.approx(before, abs=0.01)  # exports are dithered: not bit-exact
    assert noisy.workspace.resolve("take.wav").read_bytes() == document

    # A failed batch throws its Audacity away, profile included: a new profile can be taken after it.
    batch = Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "reduce_noise", "params": {"noise_start": 0.0, "noise_end": 1.0}},
        {"action_type": "invoke_function", "target": "amplify", "params": {"gain_db": 1.0, "tracks": ["ghost"]}}]})
    failed = noisy.execute(batch, observe=False)
    assert failed.status == "invalid" and failed.error is not None
    assert levels(noisy) == pytest.approx(before, abs=0.01)
    result = noisy.execute(call("reduce_noise", noise_start=0.2, noise_end=0.8, reduction_db=6.0), observe=False)
    assert result.ok, result.error
    assert levels(noisy)[0] == pytest.approx(before[0] - 6.0, abs=1.5)
