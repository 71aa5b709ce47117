"""Checkpoint types that read a presentation through the Impress adapter (LibreOffice's view)."""

from __future__ import annotations

from typing import Any

from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require

GEOMETRY = ("x_mm", "y_mm", "width_mm", "height_mm")


def _slides(ctx: EvalContext, cp: Checkpoint) -> list[dict[str, Any]]:
    from asil.adapters.impress.adapter import ImpressAdapter

    adapter = ctx.adapter("impress", require(cp.document, "document (.odp path)"))
    assert isinstance(adapter, ImpressAdapter)
    return adapter.read()


def pick_slide(slides: list[dict[str, Any]], target: str | None) -> dict[str, Any]:
    """``target`` is a 1-based slide position ('3')."""
    text = require(target, "slide position like '3'")
    if not text.isdigit() or not 1 <= int(text) <= len(slides):
        raise CheckpointUnreadable(f"there is no slide at position {text!r} ({len(slides)} slides)")
    slide: dict[str, Any] = slides[int(text) - 1]
    return slide


def slide_text_of(slide: dict[str, Any]) -> str:
    return "\n".join(s["text"] for s in slide["shapes"] if s.get("text"))


def shape_of(slide: dict[str, Any], name: str) -> dict[str, Any]:
    shapes: list[dict[str, Any]] = slide["shapes"]
    for shape in shapes:
        if shape["id"] == name:
            return shape
    raise CheckpointUnreadable(f"slide has no shape named {name!r}")


def split_shape_target(target: str | None) -> tuple[str, str]:
    position, _, shape = require(target, "target like '2/title'").partition("/")
    if not shape:
        raise CheckpointUnreadable(f"bad shape target {target!r} (use '<slide position>/<shape name>')")
    return position, shape


@checkpoint_type("slide_count")
def slide_count(ctx: EvalContext, cp: Checkpoint) -> int:
    return len(_slides(ctx, cp))


@checkpoint_type("slide_titles", default_compare="normalized")
def slide_titles(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """Every slide's title, in slide order (so it also checks the order)."""
    return [s["title"] for s in _slides(ctx, cp)]


@checkpoint_type("slide_title", default_compare="normalized")
def slide_title(ctx: EvalContext, cp: Checkpoint) -> str:
    return str(pick_slide(_slides(ctx, cp), cp.target)["title"])


@checkpoint_type("slide_text", default_compare="regex")
def slide_text(ctx: EvalContext, cp: Checkpoint) -> str:
    """All text of the slide's shapes, one shape per line (regex by default)."""
    return slide_text_of(pick_slide(_slides(ctx, cp), cp.target))


@checkpoint_type("slide_notes", default_compare="normalized")
def slide_notes(ctx: EvalContext, cp: Checkpoint) -> str:
    return str(pick_slide(_slides(ctx, cp), cp.target)["notes"])


@checkpoint_type("slide_transition")
def slide_transition(ctx: EvalContext, cp: Checkpoint) -> str | None:
    """The slide's transition: fade, push, wipe, cover, or None."""
    value = pick_slide(_slides(ctx, cp), cp.target)["transition"]
    return None if value is None else str(value)


@checkpoint_type("shape_geometry", default_compare="approx")
def shape_geometry(ctx: EvalContext, cp: Checkpoint) -> list[float]:
    """[x_mm, y_mm, width_mm, height_mm] of shape ``<slide position>/<shape name>`` (use a tolerance)."""
    position, name = split_shape_target(cp.target)
    shape = shape_of(pick_slide(_slides(ctx, cp), position), name)
    return [float(shape[k]) for k in GEOMETRY]
