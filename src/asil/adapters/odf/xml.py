"""Reading ODF XML with the standard library: namespaces, text content, lengths, style names."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element

from asil.adapters.odf.safety import check_sizes, parse_member

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
    "smil": "urn:oasis:names:tc:opendocument:xmlns:smil-compatible:1.0",
    "xml": "http://www.w3.org/XML/1998/namespace",
}
MM_PER = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96}


class RawReadError(Exception):
    """The raw reader could not read what a checkpoint needs (the checkpoint fails)."""


def q(name: str) -> str:
    """'text:p' -> '{urn:...text:1.0}p'."""
    prefix, _, local = name.partition(":")
    return f"{{{NS[prefix]}}}{local}"


@dataclass
class Package:
    content: Element
    styles: Element

    @classmethod
    def load(cls, path: Path) -> Package:
        """Parse content.xml and styles.xml after size and DTD checks (nothing is expanded)."""
        try:
            with zipfile.ZipFile(path) as archive:
                check_sizes(archive, path.name)
                return cls(parse_member(archive, "content.xml", path.name), parse_member(archive, "styles.xml", path.name))
        except Exception as exc:  # fail closed on anything: bad zip, hostile XML, parse errors
            raise RawReadError(f"cannot read {path.name}: {exc}") from None


def text_of(element: Element) -> str:
    """The text of a paragraph-like element, as LibreOffice's getString gives it."""
    parts: list[str] = [element.text or ""]
    for child in element:
        if child.tag == q("text:s"):
            parts.append(" " * int(child.get(q("text:c"), "1")))
        elif child.tag == q("text:tab"):
            parts.append("\t")
        elif child.tag == q("text:line-break"):
            parts.append("\n")
        elif child.tag in (q("text:note"), q("office:annotation"), q("text:bookmark-start"), q("text:bookmark-end")):
            pass
        else:
            parts.append(text_of(child))
        parts.append(child.tail or "")
    return "".join(parts)


def paragraphs_in(element: Element) -> list[Element]:
    """text:p/text:h inside an element, descending through lists (document order)."""
    found: list[Element] = []
    for child in element:
        if child.tag in (q("text:p"), q("text:h")):
            found.append(child)
        elif child.tag in (q("text:list"), q("text:list-item"), q("text:list-header")):
            found += paragraphs_in(child)
    return found


def block_text(element: Element) -> str:
    return "\n".join(text_of(p) for p in paragraphs_in(element))


def length_mm(value: str | None) -> float:
    match = re.fullmatch(r"\s*(-?[0-9.]+)\s*([a-z]+)\s*", value or "")
    if match is None or match[2] not in MM_PER:
        raise RawReadError(f"bad length {value!r}")
    return float(match[1]) * MM_PER[match[2]]


def decode_style_name(name: str) -> str:
    """ODF style names encode spaces and symbols as _xx_ hex ('Heading_20_1' -> 'Heading 1')."""
    return re.sub(r"_([0-9a-fA-F]{2})_", lambda m: chr(int(m[1], 16)), name)
