"""GIMP adapter pieces that need no GIMP: escaping, the XCF reader, image statistics, the raw validator's pixel path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asil.adapters.gimp.adapter import scheme_to_json
from asil.adapters.gimp.imagemath import image_stat, ssim
from asil.adapters.gimp.operations import FUNCTIONS, Canvas
from asil.adapters.gimp.rawpixels import RawImageError, decode, statistic, structural_similarity
from asil.adapters.gimp.xcf import XcfError, read_xcf
from asil.apps.gimp import scheme_string
from asil.protocol import InvalidAction


def test_scheme_strings_escape_quotes_and_backslashes_and_refuse_control_characters() -> None:
    assert scheme_string('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert scheme_string("two\nlines") == '"two\\nlines"'
    with pytest.raises(ValueError):
        scheme_string("bell\x07")


def test_tinyscheme_control_escapes_become_json() -> None:
    written = '"a\\x01b \\\\x41 \\\\\\x02"'  # what TinyScheme's write prints for a\x01b \x41 \<0x02>
    assert json.loads(scheme_to_json(written)) == "a\x01b \\x41 \\\x02"


def test_the_xcf_reader_refuses_other_and_cut_files(tmp_path: Path) -> None:
    (tmp_path / "a.xcf").write_bytes(b"not an xcf at all")
    with pytest.raises(XcfError, match="not an XCF"):
        read_xcf(tmp_path / "a.xcf")
    (tmp_path / "b.xcf").write_bytes(b"gimp xcf v011\x00" + b"\x00\x00\x00\x40")
    with pytest.raises(XcfError, match="cut short"):
        read_xcf(tmp_path / "b.xcf")


def test_statistics_regions_edges_and_chroma() -> None:
    width, height = 4, 2
    red = [0, 0, 200, 200, 0, 0, 200, 200]
    gray = [50] * 8
    planes = [red, gray, gray]
    assert image_stat(planes, width, height, "mean") == [100.0, 50.0, 50.0]
    assert image_stat(planes, width, height, "max:red@2,0,2,2") == 200.0
    assert image_stat(planes, width, height, "edge:red") == 200.0
    assert image_stat([gray, gray, gray], width, height, "chroma") == 0.0
    with pytest.raises(ValueError, match="not inside"):
        image_stat(planes, width, height, "mean@3,0,2,2")
    with pytest.raises(ValueError, match="unknown statistic"):
        image_stat(planes, width, height, "median")
    assert ssim(planes, planes, width, height) == 1.0


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg (scripts/install-system.sh)")
def test_the_raw_validators_ffmpeg_pixels_and_own_arithmetic_agree_with_the_checkpoints(tmp_path: Path) -> None:
    from PIL import Image

    image = Image.new("RGBA", (37, 23))
    image.putdata([((x * 7) % 256, (y * 11) % 256, (x * y) % 256, 255) for y in range(23) for x in range(37)])
    image.save(tmp_path / "p.png", optimize=True)  # Pillow picks filters per row
    decoded = decode(tmp_path / "p.png")
    rgb = image.convert("RGB")
    assert (decoded.width, decoded.height) == (37, 23) and decoded.rgb == rgb.tobytes()  # PNG: exact
    planes = [list(band.tobytes()) for band in rgb.split()]
    for target in ("mean", "std", "min:green", "max@3,4,10,7", "edge", "edge:blue@1,1,30,20", "chroma@0,0,9,9"):
        assert statistic(decoded, target) == pytest.approx(image_stat(planes, 37, 23, target), abs=0.002), target
    other = decode(tmp_path / "p.png")
    assert structural_similarity(decoded, other) == ssim(planes, planes, 37, 23) == 1.0
    rgb.save(tmp_path / "p.jpg", quality=90)
    jpeg = decode(tmp_path / "p.jpg")  # another decoder than Pillow's: close, not equal
    pillow = Image.open(tmp_path / "p.jpg").convert("RGB")
    pillow_planes = [list(band.tobytes()) for band in pillow.split()]
    assert (jpeg.width, jpeg.height) == (37, 23)
    assert structural_similarity(jpeg, decoded) == pytest.approx(ssim(pillow_planes, planes, 37, 23), abs=0.03)
    (tmp_path / "cut.png").write_bytes((tmp_path / "p.png").read_bytes()[:60])
    with pytest.raises(RawImageError):
        decode(tmp_path / "cut.png")
    with pytest.raises(RawImageError, match="unreadable statistic"):
        statistic(decoded, "median")
    with pytest.raises(RawImageError, match="outside"):
        statistic(decoded, "mean@30,0,10,10")


@pytest.mark.parametrize(("function", "params"), [
    ("add_group", {"name": "@image"}),
    ("add_layer", {"name": "@selection"}),
    ("rename_layer", {"layer": "Background", "name": "@image"}),
    ("add_text_layer", {"text": "@image"}),  # GIMP would name the layer after its text
])
def test_layers_cannot_take_the_ids_of_the_image_or_the_selection(function: str, params: dict[str, object]) -> None:
    # found by tests/fuzz: a group named '@image' gave the observation two elements with one id
    canvas = Canvas(image=1, width=8, height=8, names=["Background"], ids=[2], parents=[0])
    spec, parsed = FUNCTIONS.parse(function, params)
    with pytest.raises(InvalidAction, match="not a free layer name"):
        spec.require_handler()(parsed, canvas)
    text, parsed = FUNCTIONS.parse("add_text_layer", {"text": "@ home"})
    assert text.require_handler()(parsed, canvas).changed == ["@image"]  # other text still names its layer
