"""The independent raw validator for Impress tasks: judges checkpoints from the saved .odp's XML,
sharing no read path with the adapter. It fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asil.adapters.impress import checkpoints as cps
from asil.adapters.impress.raw import read_slides
from asil.adapters.odf.xml import RawReadError
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the raw files; False when in doubt."""
    try:
        actual = _read(cp, read_slides(Path(workspace.root, str(cp.document))))
    except (RawReadError, CheckpointUnreadable, KeyError, ValueError, TypeError, OSError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, slides: list[dict[str, Any]]) -> Any:
    if cp.type == "slide_count":
        return len(slides)
    if cp.type == "slide_titles":
        return [s["title"] for s in slides]
    if cp.type == "shape_geometry":
        position, name = cps.split_shape_target(cp.target)
        shape = cps.shape_of(cps.pick_slide(slides, position), name)
        return [float(shape[k]) for k in cps.GEOMETRY]
    slide = cps.pick_slide(slides, cp.target)
    if cp.type == "slide_title":
        return slide["title"]
    if cp.type == "slide_text":
        return cps.slide_text_of(slide)
    if cp.type == "slide_notes":
        return slide["notes"]
    if cp.type == "slide_transition":
        return slide["transition"]
    raise RawReadError(f"unknown checkpoint type {cp.type!r}")
