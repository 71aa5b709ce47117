"""An ODF package (``.ods``, ``.odt``, ``.odp``) held in memory: its zip entries and the XML parts an
editor changes, parsed with lxml. The file-backed access paths of the LibreOffice adapters edit these
parts directly (docs/path_restriction.md); every other entry is written back byte for byte.
"""

from __future__ import annotations

import copy
import io
import zipfile
from pathlib import Path
from typing import TypeVar

from lxml import etree

from asil.protocol import ActionFailed

_URI = "urn:oasis:names:tc:opendocument:xmlns:"
NS = {"office": _URI + "office:1.0", "table": _URI + "table:1.0", "text": _URI + "text:1.0",
      "style": _URI + "style:1.0", "number": _URI + "datastyle:1.0", "fo": _URI + "xsl-fo-compatible:1.0",
      "draw": _URI + "drawing:1.0", "presentation": _URI + "presentation:1.0", "svg": _URI + "svg-compatible:1.0",
      "smil": _URI + "smil-compatible:1.0", "anim": _URI + "animation:1.0",
      "xlink": "http://www.w3.org/1999/xlink", "xml": "http://www.w3.org/XML/1998/namespace",
      "calcext": "urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0",
      "loext": "urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0"}
# Parsing never resolves entities or fetches anything: the file may be hostile.
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def q(prefix: str, name: str) -> str:
    """The lxml ``{uri}name`` spelling of ``prefix:name``."""
    return f"{{{NS[prefix]}}}{name}"


Snapshot = dict[str, etree._Element]
P = TypeVar("P", bound="OdfPackage")


class OdfPackage:
    """The zip entries of an ODF document and its parsed, editable XML parts."""

    EDITABLE: tuple[str, ...] = ("content.xml",)  # the parts a subclass edits (parsed on load)

    def __init__(self, entries: list[tuple[zipfile.ZipInfo, bytes]], parts: Snapshot):
        self.entries = entries
        self.parts = parts

    @classmethod
    def load(cls: type[P], path: Path) -> P:
        with zipfile.ZipFile(path) as archive:
            entries = [(info, archive.read(info)) for info in archive.infolist()]
        stored = {info.filename: data for info, data in entries}
        parts = {}
        for name in cls.EDITABLE:
            if name not in stored:
                raise ActionFailed(f"{path.name} has no {name}.", code="bad_document")
            parts[name] = etree.fromstring(stored[name], PARSER)
        return cls(entries, parts)

    @property
    def content(self) -> etree._Element:
        return self.parts["content.xml"]

    @content.setter
    def content(self, root: etree._Element) -> None:
        self.parts["content.xml"] = root

    def raw(self, name: str) -> bytes | None:
        """A part's bytes as they stand (the edited XML for a parsed part, the stored bytes otherwise)."""
        if name in self.parts:
            return bytes(etree.tostring(self.parts[name], xml_declaration=True, encoding="UTF-8"))
        return next((data for info, data in self.entries if info.filename == name), None)

    def styles_xml(self) -> bytes | None:
        return self.raw("styles.xml")

    def content_xml(self) -> bytes:
        return self.raw("content.xml") or b""

    def snapshot(self) -> Snapshot:
        """A copy of every editable part, for undoing a change that failed part-way."""
        return {name: copy.deepcopy(root) for name, root in self.parts.items()}

    def restore(self, snapshot: Snapshot) -> None:
        self.parts = snapshot

    def to_bytes(self) -> bytes:
        """The package with the edited parts; ``mimetype`` stays first and stored, as ODF requires."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for info, data in self.entries:
                archive.writestr(info, self.raw(info.filename) or data)
        return buffer.getvalue()

    def automatic_styles(self, part: str = "content.xml") -> etree._Element:
        """The part's ``office:automatic-styles`` (created first in the part when it has none)."""
        root = self.parts[part]
        found = root.find(q("office", "automatic-styles"))
        if found is None:
            found = etree.Element(q("office", "automatic-styles"))
            root.insert(0, found)
        return found


def attributes(el: etree._Element) -> dict[str, str]:
    """An element's attributes as a plain ``{"{uri}name": value}`` dict."""
    return {str(k): str(v) for k, v in el.attrib.items()}


def drop_attribute(el: etree._Element, attr: str) -> None:
    if attr in el.attrib:
        del el.attrib[attr]


def remove(el: etree._Element) -> None:
    parent = el.getparent()
    if parent is not None:
        parent.remove(el)



__all__ = ["NS", "OdfPackage", "attributes", "drop_attribute", "q", "remove"]
