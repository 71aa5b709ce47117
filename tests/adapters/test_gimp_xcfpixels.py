"""The XCF tile decoding and linear-light compositing, on bytes written by hand (no GIMP needed).

Files GIMP wrote are checked against GIMP's own projection in tests/adapters/test_gimp_layers.py.
"""

from __future__ import annotations

import pytest

from asil.adapters.gimp.xcf import XcfError
from asil.adapters.gimp.xcfpixels import TO_LINEAR, _rle_plane, to_srgb


def test_rle_decodes_the_four_opcodes_of_the_xcf_specification() -> None:
    chunk = bytes([2, 7,            # short run: 3 x 7
                   127, 0, 4, 9,    # long run: 4 x 9
                   254, 1, 2,       # short literal: 2 bytes
                   128, 0, 3, 5, 6, 8])  # long literal: 3 bytes
    plane, end = _rle_plane(chunk, 0, 12)
    assert list(plane) == [7, 7, 7, 9, 9, 9, 9, 1, 2, 5, 6, 8] and end == len(chunk)


def test_a_run_past_the_tile_is_refused() -> None:
    with pytest.raises(XcfError, match="overruns"):
        _rle_plane(bytes([9, 1]), 0, 4)  # 10 samples where the tile holds 4


def test_srgb_levels_survive_the_trip_through_linear_light() -> None:
    assert [to_srgb(TO_LINEAR[level]) for level in range(256)] == list(range(256))
    half = to_srgb(0.5 * TO_LINEAR[255] + 0.5 * TO_LINEAR[0])
    assert half == 188  # 50% white over black in linear light, as GIMP 2.10 composites (not 128)
