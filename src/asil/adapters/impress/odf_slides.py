"""Slides of an ``.odp`` held as XML (lxml), for the Impress file path: pages, their shapes and roles,
text boxes, geometry, notes and transitions, read and written as the dispatch engine reports them."""

from __future__ import annotations

import copy
import re
from typing import Any

from lxml import etree

from asil.adapters.odf.package import OdfPackage, q
from asil.adapters.odf.text import AutomaticStyles
from asil.adapters.odf.text import set_text as write_paragraph
from asil.adapters.odf.text import text_of as paragraph_text
from asil.protocol import ActionFailed

UNSUPPORTED = "unsupported_on_file_path"
PAGE, NOTES, FRAME, TEXT_BOX = (q("draw", "page"), q("presentation", "notes"), q("draw", "frame"),
                                q("draw", "text-box"))
P = q("text", "p")
NAME, CLASS, LAYOUT_NAME = q("draw", "name"), q("presentation", "class"), q("presentation", "presentation-page-layout-name")
PLACEHOLDER = q("presentation", "placeholder")
NOT_SHAPES = {NOTES, q("office", "forms"), q("anim", "par"), q("presentation", "animations")}
CLASS_ROLES = {"title": "title", "outline": "body", "subtitle": "subtitle", "notes": "notes"}
TAG_ROLES = {q("draw", "rect"): "rect", q("draw", "ellipse"): "ellipse", q("draw", "custom-shape"): "shape"}
LAYOUTS = {"title_slide": 0, "title_content": 1, "title_two_content": 3, "title_only": 19, "blank": 20,
           "centered_text": 32}
# ODF's names (smil:type, smil:subtype) of the transitions the dispatch path sets through UNO constants.
TRANSITIONS = {"fade": ("fade", "crossfade"), "push": ("pushWipe", "fromLeft"), "wipe": ("barWipe", "leftToRight"),
               "cover": ("slideWipe", "fromRight")}
GEOMETRY = {"x_mm": "x", "y_mm": "y", "width_mm": "width", "height_mm": "height"}
MM_PER = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96}


class OdpPackage(OdfPackage):
    """An ``.odp``: content.xml (slides) and styles.xml (page size, layouts) parsed."""

    EDITABLE = ("content.xml", "styles.xml")

    def presentation(self) -> etree._Element:
        found = self.content.find(f"{q('office', 'body')}/{q('office', 'presentation')}")
        if found is None:
            raise ActionFailed("content.xml holds no presentation.", code="bad_document")
        return found

    def pages(self) -> list[etree._Element]:
        return self.presentation().findall(PAGE)


def length_mm(value: str | None) -> float:
    found = re.fullmatch(r"\s*(-?[0-9.]+)\s*([a-z]+)\s*", value or "0cm")
    if found is None or found[2] not in MM_PER:
        raise ActionFailed(f"The file-backed path cannot read the length {value!r}.", code=UNSUPPORTED)
    return float(found[1]) * MM_PER[found[2]]


def shapes_of(page: etree._Element) -> list[etree._Element]:
    return [el for el in page if isinstance(el.tag, str) and el.tag not in NOT_SHAPES]


def role(shape: etree._Element) -> str:
    """The dispatch engine's kind of a shape: its placeholder role, or what it draws."""
    if shape.get(CLASS) in CLASS_ROLES:
        return CLASS_ROLES[shape.get(CLASS, "")]
    if shape.tag == FRAME:
        if shape.find(q("draw", "image")) is not None:
            return "image"
        return "text" if shape.find(TEXT_BOX) is not None else "shape"
    return TAG_ROLES.get(shape.tag, "shape")


def text_holder(shape: etree._Element) -> etree._Element | None:
    """Where a shape's paragraphs live (its text box, or the shape itself), or None if it holds no text."""
    if shape.tag == FRAME:
        return shape.find(TEXT_BOX)
    return shape if shape.tag in TAG_ROLES else None


def text_of(shape: etree._Element) -> str | None:
    holder = text_holder(shape)
    if holder is None:
        return None
    return "\n".join(paragraph_text(p) for p in holder.iter(P, q("text", "h")))


def set_text(shape: etree._Element, text: str) -> None:
    """One paragraph per line (the first paragraph's style carries over), as setString does."""
    holder = text_holder(shape)
    if holder is None:
        raise ActionFailed(f"Shape {shape.get(NAME)} cannot hold text.", hint="Pick a text box or placeholder.",
                           code="no_text")
    first = holder.find(f".//{P}")
    style = first.get(q("text", "style-name")) if first is not None else None
    for child in [c for c in holder if c.tag in (P, q("text", "h"), q("text", "list"))]:
        holder.remove(child)
    anchor = 0
    for line in text.split("\n") if text else []:
        paragraph = etree.Element(P)
        if style:
            paragraph.set(q("text", "style-name"), style)
        write_paragraph(paragraph, line)
        holder.insert(anchor, paragraph)
        anchor += 1
    if text and PLACEHOLDER in shape.attrib:
        del shape.attrib[PLACEHOLDER]  # a placeholder with text is no longer an empty placeholder


def geometry(shape: etree._Element) -> dict[str, float]:
    if shape.get(q("draw", "transform")):
        raise ActionFailed(f"Shape {shape.get(NAME)} is rotated or skewed, which the file-backed access path "
                           "does not measure.", hint='Use the dispatch access path (access_path "dispatch").',
                           code=UNSUPPORTED)
    return {key: round(length_mm(shape.get(q("svg", attr))), 1) for key, attr in GEOMETRY.items()}


def set_geometry(shape: etree._Element, changes: dict[str, float]) -> None:
    geometry(shape)  # refuses what it cannot measure
    for key, value in changes.items():  # LibreOffice keeps lengths in 1/100 mm
        shape.set(q("svg", GEOMETRY[key]), f"{round(value * 100) / 1000:g}cm")


def notes_frame(page: etree._Element) -> etree._Element:
    notes = page.find(NOTES)
    frame = next((f for f in notes.iter(FRAME) if f.get(CLASS) == "notes"), None) if notes is not None else None
    if frame is None:
        raise ActionFailed(f"Slide {page.get(NAME)} has no notes area.", hint="", code="no_notes")
    if frame.find(TEXT_BOX) is None:
        etree.SubElement(frame, TEXT_BOX)
    return frame


def layout_of(page: etree._Element) -> str:
    found = re.fullmatch(r"AL\d+T(\d+)", page.get(LAYOUT_NAME, ""))
    number = int(found[1]) if found else 20  # no layout: LibreOffice's AUTOLAYOUT_NONE
    return next((name for name, value in LAYOUTS.items() if value == number), f"layout-{number}")


def transition_of(page: etree._Element, package: OdfPackage) -> str | None:
    props = _page_properties(page, package)
    kind = props.get(q("smil", "type")) if props is not None else None
    if not kind:
        return None
    subtype = props.get(q("smil", "subtype")) if props is not None else None
    found = next((name for name, (t, s) in TRANSITIONS.items() if t == kind and (s == subtype or subtype is None)), None)
    return found or f"other:{kind}"


def _page_properties(page: etree._Element, package: OdfPackage) -> etree._Element | None:
    name = page.get(q("draw", "style-name"))
    style = next((s for s in package.automatic_styles().iter(q("style", "style"))
                  if s.get(q("style", "name")) == name), None) if name else None
    return style.find(q("style", "drawing-page-properties")) if style is not None else None


def set_transition(page: etree._Element, package: OdfPackage, effect: str) -> None:
    """Give the slide its own page style with the transition (other slides sharing its style keep theirs)."""
    autos = AutomaticStyles(package)
    old = autos.get(page.get(q("draw", "style-name")))
    found = old.find(q("style", "drawing-page-properties")) if old is not None else None
    props = copy.deepcopy(found) if found is not None else etree.Element(q("style", "drawing-page-properties"))
    for attr in (q("smil", "type"), q("smil", "subtype"), q("smil", "direction"), q("presentation", "transition-type"),
                 q("presentation", "transition-style")):
        if attr in props.attrib:
            del props.attrib[attr]
    if effect != "none":
        kind, subtype = TRANSITIONS[effect]
        props.set(q("smil", "type"), kind)
        props.set(q("smil", "subtype"), subtype)
    page.set(q("draw", "style-name"), autos.add("dp", "drawing-page", {}, [props]))


def slide_info(index: int, page: etree._Element, package: OdfPackage, full: bool, max_text: int) -> dict[str, Any]:
    shapes = []
    for shape in shapes_of(page):
        info: dict[str, Any] = {"id": shape.get(NAME, ""), "kind": role(shape), **geometry(shape)}
        text = text_of(shape)
        if text is not None:
            info["text"] = text if full else text[:max_text]
        shapes.append(info)
    try:
        notes = text_of(notes_frame(page)) or ""
    except ActionFailed:
        notes = ""
    title = next((text_of(s) or "" for s in shapes_of(page) if role(s) == "title"), "")
    return {"id": page.get(NAME, ""), "index": index, "layout": layout_of(page), "title": title, "shapes": shapes,
            "notes": notes if full else notes[:max_text], "transition": transition_of(page, package)}


__all__ = ["LAYOUTS", "OdpPackage", "role", "shapes_of", "slide_info"]
