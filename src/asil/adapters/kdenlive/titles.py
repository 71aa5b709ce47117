"""Kdenlive title clips: ``kdenlivetitle`` producers whose ``xmldata`` is Kdenlive's title document.

The document is ``<kdenlivetitle>`` with ``<item type="QGraphicsTextItem">`` items whose ``<content>``
holds the text and its font, then the viewports and the background. melt's ``kdenlivetitle``
producer (MLT's Qt module) draws it; on this machine's melt 7.12 that needs an X display, without
one MLT substitutes a placeholder reading "INVALID".
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from asil.adapters.kdenlive.project import prop, set_prop

TITLE_SERVICE = "kdenlivetitle"
TITLE_ITEM = "QGraphicsTextItem"
MAX_TITLE_XML = 256 * 1024


def is_title(producer: ET.Element | None) -> bool:
    return producer is not None and prop(producer, "mlt_service") == TITLE_SERVICE


def title_document(producer: ET.Element) -> ET.Element | None:
    """The parsed ``<kdenlivetitle>`` of a title producer; None when absent, too large or unsafe."""
    text = prop(producer, "xmldata") or ""
    if not text or len(text) > MAX_TITLE_XML or "<!" in text:  # no DTDs, entities or comments to expand
        return None
    try:
        doc = ET.fromstring(text)
    except ET.ParseError:
        return None
    return doc if doc.tag == "kdenlivetitle" else None


def title_texts(producer: ET.Element) -> list[str]:
    """The text of each text item of a title, in document order."""
    doc = title_document(producer)
    if doc is None:
        return []
    return [content.text or "" for item in doc.iter("item") if item.get("type") == TITLE_ITEM
            for content in item.findall("content")]


def title_xml(text: str, width: int, height: int, duration: int, size: int, colour: tuple[int, int, int, int]) -> str:
    """Kdenlive's title document: one text item, left aligned at a tenth of the frame, no background."""
    doc = ET.Element("kdenlivetitle", {"duration": str(duration), "LC_NUMERIC": "C", "width": str(width),
                                        "height": str(height), "out": str(duration - 1)})
    item = ET.SubElement(doc, "item", {"type": TITLE_ITEM, "z-index": "0"})
    position = ET.SubElement(item, "position", {"x": str(width // 10), "y": str(max(0, height // 2 - size))})
    ET.SubElement(position, "transform").text = "1,0,0,0,1,0,0,0,1"
    content = ET.SubElement(item, "content", {
        "font": "DejaVu Sans", "font-pixel-size": str(size), "font-italic": "0", "font-underline": "0",
        "font-weight": "75", "font-color": ",".join(str(c) for c in colour), "font-outline": "0",
        "font-outline-color": "0,0,0,255", "alignment": "1", "box-width": str(width - width // 5),
        "box-height": str(size * 2 * (text.count("\n") + 1)), "letter-spacing": "0", "line-spacing": "0",
        "shadow": "0;#64000000;3;3;3", "typewriter": "0;2;1;0;0"})
    content.text = text
    for name in ("startviewport", "endviewport"):
        ET.SubElement(doc, name, {"rect": f"0,0,{width},{height}"})
    ET.SubElement(doc, "background", {"color": "0,0,0,0"})
    return ET.tostring(doc, encoding="unicode")


def set_title_text(producer: ET.Element, item: int, text: str) -> bool:
    """Replace the text of the title's ``item``-th text item; False when the title has no such item."""
    doc = title_document(producer)
    contents = [] if doc is None else [c for i in doc.iter("item") if i.get("type") == TITLE_ITEM
                                       for c in i.findall("content")]
    if doc is None or not 0 <= item < len(contents):
        return False
    contents[item].text = text
    set_prop(producer, "xmldata", ET.tostring(doc, encoding="unicode"))
    return True
