"""The page of an ``.odt`` held as XML (Writer file path): size, orientation, margins, header and footer
of the master page the first paragraph uses, in ``styles.xml``."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from asil.adapters.odf.package import OdfPackage, q, remove
from asil.adapters.odf.text import AutomaticStyles, set_text, text_of
from asil.adapters.writer.odf_blocks import STYLE_NAME, Block, P
from asil.adapters.writer.odf_styles import StyleBook
from asil.protocol import ActionFailed

MM_PER = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96}
PROPS = {"width_mm": "page-width", "height_mm": "page-height", "margin_top_mm": "margin-top",
         "margin_bottom_mm": "margin-bottom", "margin_left_mm": "margin-left", "margin_right_mm": "margin-right"}


def length_mm(value: str | None) -> float:
    found = re.fullmatch(r"\s*(-?[0-9.]+)\s*([a-z]+)\s*", value or "0mm")
    if found is None or found[2] not in MM_PER:
        raise ActionFailed(f"The file-backed path cannot read the length {value!r}.",
                           code="unsupported_on_file_path")
    return float(found[1]) * MM_PER[found[2]]


def master_page(package: OdfPackage, blocks: list[Block]) -> etree._Element:
    """The master page of the first paragraph (Standard unless its automatic style names another)."""
    name = "Standard"
    first = next((b for b in blocks if b.kind == "paragraph"), None)
    if first is not None:
        auto = AutomaticStyles(package).get(first.el.get(STYLE_NAME))
        if auto is not None and auto.get(q("style", "master-page-name")):
            name = auto.get(q("style", "master-page-name"), name)
    styles = package.parts["styles.xml"]
    found = next((m for m in styles.iter(q("style", "master-page")) if m.get(q("style", "name")) == name), None)
    if found is None:
        raise ActionFailed(f"The document has no master page {name!r}.", code="bad_document")
    return found


def layout_properties(package: OdfPackage, master: etree._Element) -> etree._Element:
    layout_name = master.get(q("style", "page-layout-name"))
    layout = next((p for p in package.parts["styles.xml"].iter(q("style", "page-layout"))
                   if p.get(q("style", "name")) == layout_name), None)
    props = layout.find(q("style", "page-layout-properties")) if layout is not None else None
    if props is None:
        raise ActionFailed("The master page has no page layout.", code="bad_document")
    return props


def page_info(package: OdfPackage, blocks: list[Block]) -> dict[str, Any]:
    """What the dispatch path reports as ``page``: the style, size, orientation, margins, header, footer."""
    master = master_page(package, blocks)
    props = layout_properties(package, master)
    info: dict[str, Any] = {"style": master.get(q("style", "display-name")) or master.get(q("style", "name"))}
    for key in ("width_mm", "height_mm"):
        info[key] = round(length_mm(props.get(q("fo", PROPS[key]))), 1)
    info["orientation"] = props.get(q("style", "print-orientation")) or "portrait"
    for key in ("margin_top_mm", "margin_bottom_mm", "margin_left_mm", "margin_right_mm"):
        info[key] = round(length_mm(props.get(q("fo", PROPS[key]))), 1)
    for part in ("header", "footer"):
        found = master.find(q("style", part))
        shown = found is not None and found.get(q("style", "display"), "true") != "false"
        info[part] = "\n".join(text_of(p) for p in found.iter(P, q("text", "h"))) if shown and found is not None else None
    return info


def set_page(package: OdfPackage, blocks: list[Block], page: dict[str, Any]) -> None:
    props = layout_properties(package, master_page(package, blocks))
    if "orientation" in page:
        landscape = page["orientation"] == "landscape"
        width, height = (props.get(q("fo", "page-width")), props.get(q("fo", "page-height")))
        if landscape != (length_mm(width) > length_mm(height)):
            props.set(q("fo", "page-width"), height or "297mm")
            props.set(q("fo", "page-height"), width or "210mm")
        props.set(q("style", "print-orientation"), page["orientation"])
    for key, attr in PROPS.items():
        if key in page:  # LibreOffice keeps lengths in 1/100 mm
            props.set(q("fo", attr), f"{round(page[key] * 100) / 100:g}mm")


def set_margin_text(package: OdfPackage, styles: StyleBook, blocks: list[Block], part: str, text: str | None) -> None:
    """Turn the header/footer on with ``text`` (one paragraph per line), or off (None)."""
    master = master_page(package, blocks)
    found = master.find(q("style", part))
    if text is None:
        if found is not None:
            remove(found)
        return
    if found is None:
        found = etree.Element(q("style", part))
        if part == "header":
            master.insert(0, found)
        else:
            header = [c for c in master if etree.QName(c).localname.startswith("header")]
            (header[-1].addnext(found) if header else master.insert(0, found))
    for child in list(found):
        found.remove(child)
    style = styles.use("paragraph", part.capitalize())
    for line in text.split("\n"):
        paragraph = etree.SubElement(found, P)
        paragraph.set(q("text", "style-name"), style)
        set_text(paragraph, line)
    _ensure_spacing(package, master, part)


def _ensure_spacing(package: OdfPackage, master: etree._Element, part: str) -> None:
    """The page layout says how far header/footer sit from the text (LibreOffice writes this when it is on)."""
    props = layout_properties(package, master)
    layout = props.getparent()
    assert layout is not None
    holder = layout.find(q("style", f"{part}-style"))
    if holder is None:
        holder = etree.SubElement(layout, q("style", f"{part}-style"))
    if holder.find(q("style", "header-footer-properties")) is None:
        spacing = etree.SubElement(holder, q("style", "header-footer-properties"))
        spacing.set(q("fo", "min-height"), "0mm")
        spacing.set(q("fo", "margin-bottom" if part == "header" else "margin-top"), "5mm")


__all__ = ["page_info", "set_margin_text", "set_page"]
