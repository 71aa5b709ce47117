"""An independent reader of saved .odp files (standard library only, no LibreOffice)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from asil.adapters.odf.xml import NS, Package, RawReadError, block_text, length_mm, q

SMIL_TRANSITIONS = {"fade": "fade", "pushWipe": "push", "barWipe": "wipe", "slideWipe": "cover"}
SHAPE_TAGS = ("draw:frame", "draw:custom-shape", "draw:rect", "draw:ellipse", "draw:line", "draw:g", "draw:polygon")


def read_slides(path: Path) -> list[dict[str, Any]]:
    """Every slide: name, title, shapes (name, text, geometry in mm), notes, transition."""
    package = Package.load(path)
    presentation = package.content.find("office:body/office:presentation", NS)
    if presentation is None:
        raise RawReadError("content.xml has no office:presentation body")
    auto = {s.get(q("style:name")): s for s in package.content.iter(q("style:style"))}
    slides = []
    for page in presentation.findall("draw:page", NS):
        shapes = [_shape(e) for e in page if e.tag in {q(t) for t in SHAPE_TAGS}]
        title = next((s["text"] for s in shapes if s["class"] == "title"), "")
        slides.append({"id": page.get(q("draw:name")), "title": title, "shapes": shapes,
                       "notes": _notes(page), "transition": _transition(auto.get(page.get(q("draw:style-name"))))})
    return slides


def _shape(element: Element) -> dict[str, Any]:
    box = element.find("draw:text-box", NS) if element.tag == q("draw:frame") else element
    shape: dict[str, Any] = {"id": element.get(q("draw:name")), "class": element.get(q("presentation:class")),
             "text": block_text(box) if box is not None else ""}
    for key, attr in (("x_mm", "svg:x"), ("y_mm", "svg:y"), ("width_mm", "svg:width"), ("height_mm", "svg:height")):
        value = element.get(q(attr))
        shape[key] = round(length_mm(value), 1) if value is not None else None
    return shape


def _notes(page: Element) -> str:
    notes = page.find("presentation:notes", NS)
    if notes is None:
        return ""
    for frame in notes.findall("draw:frame", NS):
        if frame.get(q("presentation:class")) == "notes":
            box = frame.find("draw:text-box", NS)
            return block_text(box) if box is not None else ""
    return ""


def _transition(style: Element | None) -> str | None:
    if style is None:
        return None
    props = style.find("style:drawing-page-properties", NS)
    kind = props.get(q("smil:type")) if props is not None else None
    if kind is None:
        return None
    return SMIL_TRANSITIONS.get(kind, f"other:{kind}")
