"""How reduce_noise is planned (no Audacity needed): profile first, then reuse, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.adapters.audacity import actions as act
from asil.adapters.audacity.project import NoiseProfile, Project, Track, plan
from asil.protocol import InvalidAction

PROJECT = Project([Track(index=0, name="take", kind="wave", start=0.0, end=3.0)], [], 22050)


def planned(kept: NoiseProfile | None = None, **params: object) -> list[str]:
    parsed = act.parse_params(act.ReduceNoise, {"noise_start": 0.0, "noise_end": 1.0, **params}, "reduce_noise")
    return plan("reduce_noise", parsed, PROJECT, None, Path, kept).lines


def test_the_first_call_sets_the_preferences_then_profiles_then_reduces() -> None:
    lines = planned(reduction_db=18)
    assert lines[0] == "SetPreference: Name=/Effects/NoiseReduction/Gain Value=18"
    assert [line for line in lines if line.startswith(("Select", "NoiseReduction"))] == [
        "Select: Start=0 End=1 Track=0 TrackCount=1 Mode=Set", "NoiseReduction:",
        "Select: Start=0 End=3 Track=0 TrackCount=1 Mode=Set", "NoiseReduction:"]


def test_a_kept_profile_is_reused_and_a_different_one_refused() -> None:
    kept = NoiseProfile(0.0, 1.0, 12.0, 6.0, 0)
    assert planned(kept, start=1.0, end=2.0) == ["Select: Start=1 End=2 Track=0 TrackCount=1 Mode=Set",
                                                 "NoiseReduction:"]
    with pytest.raises(InvalidAction, match="one noise profile") as refused:
        planned(kept, reduction_db=20)
    assert "reduction_db=12" in refused.value.message


@pytest.mark.parametrize(("start", "end", "words"), [(0.0, 0.1, "too short"), (2.5, 3.5, "not inside")])
def test_profile_regions_audacity_would_block_on_are_refused(start: float, end: float, words: str) -> None:
    with pytest.raises(InvalidAction, match=words):
        planned(noise_start=start, noise_end=end)
