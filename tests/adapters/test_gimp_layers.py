"""Issue 14 in a real GIMP: layer properties and composites read from the .xcf, and placing an image file.

The Python XCF reader (checkpoints) and the raw validator's one-shot GIMP (its own dump and GIMP's
own projection of the visible layers) read the same saved files and must agree; place_image is
driven through the warm adapter, and its refusals must leave the document byte for byte as it was.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.gimp.adapter import GimpAdapter
from asil.adapters.gimp.builders import build_image
from asil.adapters.gimp.validator import dump_xcf, layer_field, pixels
from asil.adapters.gimp.xcf import XcfError, read_xcf
from asil.adapters.gimp.xcfpixels import flatten, layer_color
from asil.apps.gimp import one_shot, scheme_string
from asil.evaluate.checkpoints import Checkpoint
from asil.evaluate.evaluator import evaluate_paths
from asil.protocol import Action
from asil.tasks.loader import builtin_root
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("gimp-console") is None, reason="needs gimp (scripts/install-system.sh)")]

PHOTOS = builtin_root() / "core" / "gimp" / "assets"
LAYERED: dict[str, Any] = {  # photo, half-transparent and off-canvas layers, a hidden one, a group with opacity, text
    "width": 90, "height": 60, "photo": "coffee.jpg",
    "layers": [
        {"name": "Veil", "x": -10, "y": 30, "width": 60, "height": 40, "color": [20, 200, 90], "opacity": 45},
        {"name": "Hidden", "x": 0, "y": 0, "width": 90, "height": 60, "color": [255, 0, 255], "visible": False},
        {"name": "Badges", "opacity": 70, "group": [
            {"name": "Dot", "shape": "ellipse", "x": 60, "y": 4, "width": 24, "height": 24, "color": [250, 210, 40]},
            {"name": "Bar", "x": 50, "y": 20, "width": 50, "height": 8, "color": [10, 10, 120], "opacity": 80}]},
        {"name": "Caption", "text": "Cup", "x": 4, "y": 4, "size": 14, "color": [255, 255, 255]}]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def layered(folder: Path) -> Path:
    target = folder / "cup.xcf"
    build_image(target, {k: v for k, v in LAYERED.items() if k != "photo"}, PHOTOS / LAYERED["photo"])
    return target


def test_python_flattening_matches_gimps_own_projection(tmp_path: Path) -> None:
    path = layered(tmp_path)
    ours, gimps = flatten(read_xcf(path)), pixels(path)
    assert (ours.width, ours.height) == (gimps.width, gimps.height) == (90, 60)
    worst = max(abs(ours.samples[i * 4 + c] - gimps.rgb[i * 3 + c]) for i in range(90 * 60) for c in range(3))
    assert worst <= 1  # linear-light compositing as GIMP 2.10 does it; 8-bit rounding at most one level apart
    assert ours.samples[(5 * 90 + 5) * 4:(5 * 90 + 5) * 4 + 3] != bytes([255, 0, 255])  # the hidden layer stays out


def test_layer_properties_read_in_python_agree_with_gimps_dump(tmp_path: Path) -> None:
    path = layered(tmp_path)
    image, dumped = read_xcf(path), {layer["name"]: layer for layer in dump_xcf(path)["layers"]}
    for layer in image.layers:
        for field in ("mode", "text", "font", "font_size", "color", "opacity", "visible", "offset_x"):
            assert getattr(layer, field) == pytest.approx(layer_field(dumped[layer.name], field), abs=0.01), field
        if not layer.group:
            assert layer_color(image, layer) == pytest.approx(layer_field(dumped[layer.name], "fill"), abs=0.05)
    caption = image.layer("Caption")
    assert caption is not None
    assert (caption.text, caption.font, caption.font_size, caption.color) == ("Cup", "Sans-serif", 14.0, [255, 255, 255])
    badges = image.layer("Badges")
    assert badges is not None and badges.group and badges.mode == "normal"  # the PDB's new groups are normal


def test_an_xcf_pixel_checkpoint_reads_the_composite_and_a_non_normal_mode_is_unreadable(tmp_path: Path) -> None:
    layered(tmp_path)
    workspace = Workspace(tmp_path)
    veil = Checkpoint(type="gimp_pixel_stats", app="gimp", document="cup.xcf", target="mean@0,50,40,10",
                      expected=[0, 0, 0], tolerance=255)
    verdict = evaluate_paths([[veil]], workspace).paths[0].checkpoints[0]
    assert verdict.passed and verdict.actual[1] > verdict.actual[0]  # the green veil shows over the brown photo
    with GimpAdapter(workspace, "cup.xcf") as adapter:
        assert adapter.execute(fn("set_layer", layer="Veil", mode="multiply"), observe=False).ok
        adapter.save()
    verdict = evaluate_paths([[veil]], workspace).paths[0].checkpoints[0]
    assert not verdict.passed and "'multiply' mode" in (verdict.detail or "")
    assert read_xcf(tmp_path / "cup.xcf").layer("Veil").mode == "multiply"  # type: ignore[union-attr]


def test_a_scaled_text_layer_is_no_longer_text_to_the_reader_the_dump_and_the_observation(tmp_path: Path) -> None:
    """GIMP marks a text layer whose pixels another tool changed as modified (PROP_TEXT_LAYER_FLAGS): it keeps
    the old text in a parasite for re-editing but no longer reports it as text. Every reader now says so."""
    layered(tmp_path)
    with GimpAdapter(Workspace(tmp_path), "cup.xcf") as adapter:
        result = adapter.execute(fn("scale_image", width=45, height=30))
        adapter.save()
    assert result.observation is not None
    caption = next(e for e in result.observation.elements if e.id == "Caption")
    assert caption.meta.get("text") is None
    assert read_xcf(tmp_path / "cup.xcf").layer("Caption").text is None  # type: ignore[union-attr]
    assert {layer["name"]: layer["text"] for layer in dump_xcf(tmp_path / "cup.xcf")["layers"]}["Caption"] is None


def test_place_image_scales_and_groups_the_layer_and_it_survives_a_gimp_restart(tmp_path: Path) -> None:
    layered(tmp_path)
    shutil.copyfile(PHOTOS / "chelsea.jpg", tmp_path / "cat.jpg")
    with GimpAdapter(Workspace(tmp_path), "cup.xcf") as adapter:
        placed = adapter.execute(fn("place_image", path="cat.jpg", name="Cat", x=-5, y=10, width=36, height=24,
                                    opacity=75, group="Badges", position=1))
        assert placed.ok and placed.changed == ["Cat"]
        shown = next(e for e in placed.observation.elements if e.id == "Cat")  # type: ignore[union-attr]
        assert shown.meta["parent"] == "Badges" and shown.meta["position"] == 1
        adapter.session.kill()  # type: ignore[union-attr]  # GIMP dies: it restarts from the last good state
        again = {e.id: e for e in adapter.observe().elements}
        assert adapter.restarts == 1 and again["Cat"].value == shown.value
        unnamed = adapter.execute(fn("place_image", path="cat.jpg"), observe=False)
        assert unnamed.ok and unnamed.changed == ["cat.jpg"]  # GIMP names it after the file, as Open as Layers does
        adapter.save()
    cat = read_xcf(tmp_path / "cup.xcf").layer("Cat")  # reopened from the saved file by both readers
    assert cat is not None and (cat.width, cat.height, cat.offset_x, cat.offset_y) == (36, 24, -5, 10)
    assert (cat.parent, cat.position, cat.opacity) == ("Badges", 1, 75.0)
    dumped = {layer["name"]: layer for layer in dump_xcf(tmp_path / "cup.xcf")["layers"]}["Cat"]
    assert (dumped["width"], dumped["offset_x"], dumped["parent"]) == (36, -5, "Badges")


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GimpAdapter]:
    root = tmp_path_factory.mktemp("refusals")
    layered(root)
    shutil.copyfile(PHOTOS / "chelsea.jpg", root / "cat.jpg")
    (root / "fake.png").write_bytes(b"not a png at all")
    (root / "notes.txt").write_text("hello", encoding="utf-8")
    with GimpAdapter(Workspace(root), "cup.xcf") as adapter:
        yield adapter


@pytest.mark.parametrize(("params", "message"), [
    ({"path": "missing.png"}, "There is no image file 'missing.png' in the workspace."),
    ({"path": "fake.png"}, "'fake.png' is not a PNG image (its first bytes are wrong)."),
    ({"path": "../cat.jpg"}, "The path '../cat.jpg' climbs out of the workspace with '..'."),
    ({"path": "notes.txt"}, "'notes.txt' is not a .png, .jpg or .jpeg file, the kinds of image place_image reads"),
    ({"path": "cat.jpg", "width": 20}, "give width and height together, or neither to keep the image's own size"),
    ({"path": "cat.jpg", "name": "Veil"}, "A layer named 'Veil' already exists (names are unique across all groups)."),
    ({"path": "cat.jpg", "group": "Veil"}, "'Veil' is not a layer group."),
    ({"path": "cat.jpg", "position": 9}, "Position 9 is past the bottom of the stack."),
    ({"path": "cat.jpg", "group": "Badges", "position": 3}, "Position 3 is past the bottom of the group 'Badges'."),
])
def test_place_image_refusals_name_the_problem_and_change_nothing(refusing: GimpAdapter, params: dict[str, Any],
                                                                   message: str) -> None:
    document = refusing.workspace.root / "cup.xcf"
    before, work = document.read_bytes(), refusing.work.read_bytes() if refusing.work.is_file() else b""
    names = [e.id for e in refusing.observe().elements]
    result = refusing.execute(fn("place_image", **params))
    assert result.status == "invalid" and result.error is not None and result.error.hint
    assert message in result.error.message and result.error.message.count(". ") == 0  # one sentence
    assert [e.id for e in refusing.observe().elements] == names and not refusing.dirty
    assert document.read_bytes() == before and (refusing.work.read_bytes() if refusing.work.is_file() else b"") == work


def test_a_layer_mode_persists_and_pass_through_is_only_for_groups(tmp_path: Path) -> None:
    layered(tmp_path)
    with GimpAdapter(Workspace(tmp_path), "cup.xcf") as adapter:
        refused = adapter.execute(fn("set_layer", layer="Veil", mode="pass-through"), observe=False)
        assert refused.status == "invalid" and refused.error is not None
        assert refused.error.message == "'Veil' is not a layer group; only a group can pass its layers through."
        assert adapter.execute(fn("set_layer", layer="Veil", mode="screen"), observe=False).ok
        assert adapter.execute(fn("set_layer", layer="Badges", mode="pass-through"), observe=False).ok
        adapter.save()
        assert adapter.execute(fn("set_layer", layer="Veil", mode="normal"), observe=False).ok
        adapter.render(tmp_path / "normal.png")
    with GimpAdapter(Workspace(tmp_path), "cup.xcf") as reopened:  # a new GIMP reads them back from the file
        shown = {e.id: e.meta for e in reopened.observe().elements}
    assert shown["Veil"]["blend_mode"] == "screen" and shown["Badges"]["blend_mode"] == "pass-through"
    assert "blend_mode" not in shown["Dot"]  # normal, the mode of every new layer, is not shown
    assert shown["Caption"] | {"stats": None} == {"position": 0, "text": "Cup", "font": "Sans-serif", "font_size": 14,
                                                  "text_color": [255, 255, 255], "stats": None}
    image = read_xcf(tmp_path / "cup.xcf")
    assert [image.layer(n).mode for n in ("Veil", "Badges")] == ["screen", "pass-through"]  # type: ignore[union-attr]
    with pytest.raises(XcfError, match="'screen' mode"):
        flatten(image)
    image.layer("Veil").mode = "normal"  # type: ignore[union-attr]  # as the adapter's render saw it
    ours, gimps = flatten(image), pixels(tmp_path / "normal.png")  # a pass-through group of normal layers
    assert max(abs(ours.samples[i * 4 + c] - gimps.rgb[i * 3 + c]) for i in range(90 * 60) for c in range(3)) <= 1


def test_a_visible_layer_with_a_mask_is_refused_by_the_flattening_not_guessed(tmp_path: Path) -> None:
    path = layered(tmp_path)
    target = scheme_string(str(path))
    one_shot(f"(let* ((img (car (gimp-xcf-load 0 {target} {target}))) "
             f"(veil (car (gimp-image-get-layer-by-name img \"Veil\"))) "
             f"(mask (car (gimp-layer-create-mask veil ADD-MASK-BLACK)))) "
             f"(gimp-layer-add-mask veil mask) (gimp-xcf-save 0 img veil {target} {target}))")
    image = read_xcf(path)
    assert image.layer("Veil").masked  # type: ignore[union-attr]
    with pytest.raises(XcfError, match="'Veil' has a layer mask"):
        flatten(image)
    image.layer("Veil").visible = False  # type: ignore[union-attr]  # a hidden masked layer does not matter
    assert flatten(image).width == 90
