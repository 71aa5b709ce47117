"""Checkpoint types for images, read from the saved files (no GIMP needed at evaluation).

PNG and JPEG files are decoded with Pillow; XCF structure is read by ``asil.adapters.gimp.xcf``.
Pixel checkpoints read PNG and JPEG alike (give JPEG files tolerances for compression loss).
Targets: an image path (``gimp_image_size``, ``gimp_file_format``), ``Layer.property`` on an
XCF document (``gimp_layer_value``), a statistic with an optional channel and region (``mean``,
``max:red@0,0,10,10``, ``chroma``) on a PNG, JPEG or XCF document (``gimp_pixel_stats``; an XCF is
flattened as GIMP composites its visible layers, ``xcfpixels.flatten``), or a reference image path
(``gimp_similarity``, structural similarity 0..1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asil.adapters.gimp.imagemath import image_stat, ssim
from asil.adapters.gimp.xcf import XcfError, XcfImage, is_xcf, read_xcf
from asil.adapters.gimp.xcfpixels import flatten, layer_color
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

LAYER_FIELDS = ("width", "height", "offset_x", "offset_y", "opacity", "visible", "text", "position", "parent", "mode",
                "font", "font_size", "color", "fill")


def _path(ctx: EvalContext, relative: str | None, what: str) -> Path:
    path = ctx.workspace.resolve(require(relative, what))
    if not path.is_file():
        raise CheckpointUnreadable(f"{relative!r} does not exist")
    return path


def _xcf(ctx: EvalContext, cp: Checkpoint) -> XcfImage:
    try:
        return read_xcf(_path(ctx, cp.document, "document (.xcf path)"))
    except XcfError as exc:
        raise CheckpointUnreadable(str(exc)) from None


def _pixels(path: Path) -> Any:
    Image, UnidentifiedImageError = _pillow()
    if is_xcf(path):
        try:
            composite = flatten(read_xcf(path))
        except XcfError as exc:
            raise CheckpointUnreadable(f"cannot flatten {path.name}: {exc}") from None
        return Image.frombytes("RGBA", (composite.width, composite.height), composite.samples).convert("RGB")
    try:
        with Image.open(path) as image:
            return image.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise CheckpointUnreadable(f"cannot decode {path.name}: {exc}") from None


def _pillow() -> Any:
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        raise CheckpointUnreadable("reading PNG/JPEG needs Pillow: pip install 'asil[gimp]'") from None
    return Image, UnidentifiedImageError


def _planes(image: Any) -> list[list[int]]:
    return [list(band.tobytes()) for band in image.split()]


@checkpoint_type("gimp_image_size")
def image_size(ctx: EvalContext, cp: Checkpoint) -> list[int]:
    """[width, height] of the image (.xcf, .png, .jpg) at workspace path ``target``."""
    path = _path(ctx, cp.target, "image path")
    if is_xcf(path):
        try:
            image = read_xcf(path)
        except XcfError as exc:
            raise CheckpointUnreadable(str(exc)) from None
        return [image.width, image.height]
    return list(_pixels(path).size)


@checkpoint_type("gimp_file_format")
def file_format(ctx: EvalContext, cp: Checkpoint) -> str:
    """'PNG', 'JPEG' or 'XCF': what the file at ``target`` really is (decoded, not by its name)."""
    Image, UnidentifiedImageError = _pillow()
    path = _path(ctx, cp.target, "image path")
    if is_xcf(path):
        try:
            read_xcf(path)
        except XcfError as exc:
            raise CheckpointUnreadable(str(exc)) from None
        return "XCF"
    try:
        with Image.open(path) as image:
            image.load()
            return str(image.format)
    except (UnidentifiedImageError, OSError) as exc:
        raise CheckpointUnreadable(f"cannot decode {path.name}: {exc}") from None


@checkpoint_type("gimp_layer_names")
def layer_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """The layer names of the .xcf ``document``, top first; a group's children follow the group."""
    return [layer.name for layer in _xcf(ctx, cp).layers]


@checkpoint_type("gimp_layer_value", default_compare="approx")
def layer_value(ctx: EvalContext, cp: Checkpoint) -> Any:
    """``Layer.field`` of the .xcf document: width, height, offset_x, offset_y, opacity, visible, mode ('normal',
    'multiply', ...), position (among its siblings, 0 = top), parent (the name of its layer group, None at the top
    level), fill (mean R, G, B of its pixels weighted by alpha: its color when it is filled with one), and for a
    text layer text, font, font_size (in its unit, pixels for ASIL's) and color ([r, g, b]); None elsewhere."""
    name, _, prop = require(cp.target, "target").rpartition(".")
    if prop not in LAYER_FIELDS:
        raise CheckpointUnreadable(f"{prop!r} is not a layer field ({', '.join(LAYER_FIELDS)})")
    image = _xcf(ctx, cp)
    layer = image.layer(name)
    if layer is None:
        raise CheckpointUnreadable(f"there is no layer {name!r}")
    if prop != "fill":
        return getattr(layer, prop)
    try:
        return layer_color(image, layer)
    except XcfError as exc:
        raise CheckpointUnreadable(str(exc)) from None


@checkpoint_type("gimp_pixel_stats", default_compare="approx")
def pixel_stats(ctx: EvalContext, cp: Checkpoint) -> float | list[float]:
    """A statistic of the PNG, JPEG or XCF (flattened) ``document``: ``stat[:channel][@x,y,w,h]`` (see
    ``imagemath.image_stat``)."""
    image = _pixels(_path(ctx, cp.document, "document (image path)"))
    try:
        return image_stat(_planes(image), image.width, image.height, require(cp.target, "statistic"))
    except ValueError as exc:
        raise CheckpointUnreadable(str(exc)) from None


@checkpoint_type("gimp_similarity", default_compare="range")
def similarity(ctx: EvalContext, cp: Checkpoint) -> float:
    """Structural similarity (0..1) of the ``document`` image to the reference image at ``target``; 0 if sizes differ."""
    image = _pixels(_path(ctx, cp.document, "document (image path)"))
    reference = _pixels(_path(ctx, cp.target, "reference image path"))
    if image.size != reference.size:
        return 0.0
    return ssim(_planes(image), _planes(reference), image.width, image.height)
