"""Named styles of an ``.odt`` on the Writer file path: finding a paragraph, character or list style by the
names the dispatch path accepts, and adding LibreOffice's own definition of a built-in style the file
does not hold yet.

A saved document holds only the styles it uses; LibreOffice has the others built in and does not
recognise a reference to one that the file does not define (a paragraph styled ``Heading_20_2`` without
its definition opens as Standard). ``pool_styles.xml`` is LibreOffice's definitions of every built-in
paragraph, character and list style, saved once by LibreOffice 7.x from a document that used them all.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lxml import etree

from asil.adapters.odf.package import PARSER, OdfPackage, q
from asil.adapters.odf.text import decode_style_name
from asil.protocol import ActionFailed

CATALOGUE = Path(__file__).with_name("pool_styles.xml")
STYLE, LIST_STYLE = q("style", "style"), q("text", "list-style")
# LibreOffice's UI names of built-in styles whose programmatic name differs (the dispatch path accepts both).
UI_NAMES = {
    "paragraph": {"default paragraph style": "Standard", "complimentary close": "Salutation"},
    "text": {"no character style": "Standard", "footnote characters": "Footnote Symbol",
             "bullets": "Bullet Symbols", "endnote characters": "Endnote Symbol", "quotation": "Citation"},
    "list": {"bullet •": "List 1", "bullet –": "List 2"},
}
EXAMPLES = {"paragraph": "Styles include Standard, Text body, Heading 1, Heading 2, Title, Quotations.",
            "text": "Character styles include Emphasis, Strong Emphasis, Source Text, Quotation.",
            "list": "List styles include List 1 (bullets) and Numbering 123."}
KIND = {"paragraph": "paragraph", "text": "character", "list": "list"}


@cache
def _catalogue() -> etree._Element:
    root = etree.fromstring(CATALOGUE.read_bytes(), PARSER)
    found = root.find(q("office", "styles"))
    assert found is not None
    return root


def display_name(style: etree._Element) -> str:
    """A style's programmatic name (what the dispatch path reports), e.g. 'Text body'."""
    return style.get(q("style", "display-name")) or decode_style_name(style.get(q("style", "name"), ""))


def _family_of(style: etree._Element) -> str:
    return "list" if style.tag == LIST_STYLE else style.get(q("style", "family"), "")


def _find(container: etree._Element | None, family: str, name: str) -> etree._Element | None:
    if container is None:
        return None
    wanted = UI_NAMES[family].get(name.casefold(), name).casefold()
    for style in container:
        if style.tag in (STYLE, LIST_STYLE) and _family_of(style) == family and (
                display_name(style).casefold() == wanted or style.get(q("style", "name"), "").casefold() == wanted):
            return style
    return None


class StyleBook:
    """The named styles of one document (``styles.xml``'s ``office:styles``)."""

    def __init__(self, package: OdfPackage):
        root = package.parts["styles.xml"]
        styles = root.find(q("office", "styles"))
        if styles is None:
            styles = etree.SubElement(root, q("office", "styles"))
        self.root, self.styles = root, styles

    def named(self, family: str, odf_name: str) -> etree._Element | None:
        """The style with this ODF name in the document, or LibreOffice's built-in one."""
        for container in (self.styles, _catalogue().find(q("office", "styles"))):
            for style in container if container is not None else []:
                if _family_of(style) == family and style.get(q("style", "name")) == odf_name:
                    return style
        return None

    def use(self, family: str, name: str) -> str:
        """The ODF name of the ``family`` style called ``name`` (programmatic or UI name, any case), adding
        LibreOffice's definition to the document when it is a built-in style the file lacks."""
        own = _find(self.styles, family, name)
        if own is not None:
            return str(own.get(q("style", "name")))
        built_in = _find(_catalogue().find(q("office", "styles")), family, name)
        if built_in is None:
            raise ActionFailed(f"There is no {KIND[family]} style named {name!r}.", hint=EXAMPLES[family],
                               code="no_style")
        self._add(built_in)
        return str(built_in.get(q("style", "name")))

    def _add(self, style: etree._Element) -> None:
        """Copy a built-in style with what it refers to (its parent, its list style, its fonts)."""
        family, odf_name = _family_of(style), style.get(q("style", "name"), "")
        if self.named_here(family, odf_name):
            return
        self.styles.append(etree.fromstring(etree.tostring(style), PARSER))
        parent = style.get(q("style", "parent-style-name"))
        if parent and (found := self._built_in(family, parent)) is not None:
            self._add(found)
        listed = style.get(q("style", "list-style-name"))
        if listed and (found := self._built_in("list", listed)) is not None:
            self._add(found)
        for el in style.iter():
            font = el.get(q("style", "font-name"))
            if font:
                self._add_font(font)

    def named_here(self, family: str, odf_name: str) -> bool:
        return any(_family_of(s) == family and s.get(q("style", "name")) == odf_name for s in self.styles)

    def _built_in(self, family: str, odf_name: str) -> etree._Element | None:
        styles = _catalogue().find(q("office", "styles"))
        return next((s for s in styles if _family_of(s) == family and s.get(q("style", "name")) == odf_name), None) \
            if styles is not None else None

    def _add_font(self, font: str) -> None:
        decls = self.root.find(q("office", "font-face-decls"))
        if decls is None:
            decls = etree.Element(q("office", "font-face-decls"))
            self.root.insert(0, decls)
        if any(d.get(q("style", "name")) == font for d in decls):
            return
        known = _catalogue().find(q("office", "font-face-decls"))
        found = next((d for d in known if d.get(q("style", "name")) == font), None) if known is not None else None
        if found is not None:
            decls.append(etree.fromstring(etree.tostring(found), PARSER))

    def outline_level(self, odf_name: str) -> int:
        """The outline level a paragraph of this style has (Heading N -> N, others 0)."""
        style = self.named("paragraph", odf_name)
        level = style.get(q("style", "default-outline-level")) if style is not None else None
        return int(level) if level and level.isdigit() else 0

    def paragraph_name(self, odf_name: str) -> str:
        style = self.named("paragraph", odf_name)
        return display_name(style) if style is not None else decode_style_name(odf_name)

    def text_name(self, odf_name: str) -> str:
        style = self.named("text", odf_name)
        return display_name(style) if style is not None else decode_style_name(odf_name)

    def list_name(self, odf_name: str) -> str:
        style = self.named("list", odf_name)
        return display_name(style) if style is not None else decode_style_name(odf_name)


__all__ = ["StyleBook", "display_name"]
