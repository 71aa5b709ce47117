"""Paragraph text and character formatting of an ODF document held as XML (lxml), for the file-backed
access paths (Writer paragraphs, Impress text boxes).

A paragraph is read as *atoms*: one per character, each with the chain of ``text:span`` styles around
it. Edits work on atoms and write the paragraph back, so formatting stays on the characters it was on
(as in LibreOffice). Spaces are written as ODF wants them (``text:s`` for runs, ``text:tab``), since a
reader collapses plain runs of white space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

from asil.adapters.odf.package import OdfPackage, attributes, q
from asil.protocol import ActionFailed

UNSUPPORTED = "unsupported_on_file_path"
SPAN, SPACE, TAB, LINE_BREAK = q("text", "span"), q("text", "s"), q("text", "tab"), q("text", "line-break")
SKIPPED = {q("text", "soft-page-break"), q("text", "bookmark"), q("text", "bookmark-start"), q("text", "bookmark-end")}
NOT_TEXT = SKIPPED | {q("text", "note")}
STYLE = q("style", "style")
TEXT_PROPS = q("style", "text-properties")
MARKS = ("bold", "italic", "underline")
Chain = tuple[str, ...]  # text:span style names from the outermost inwards


@dataclass
class Atom:
    char: str
    chain: Chain


def decode_style_name(name: str) -> str:
    """ODF encodes spaces and symbols in style names as _xx_ hex ('Heading_20_1' -> 'Heading 1')."""
    return re.sub(r"_([0-9a-fA-F]{2})_", lambda m: chr(int(m[1], 16)), name)


def encode_style_name(name: str) -> str:
    """The ODF spelling of a style's name ('Heading 1' -> 'Heading_20_1'), as LibreOffice writes it."""
    return "".join(ch if ch.isalnum() or ch in "-." else f"_{ord(ch):x}_" for ch in name)


def atoms_of(paragraph: etree._Element) -> list[Atom]:
    """The paragraph's characters with their span chains; content the file path cannot rewrite is refused."""
    atoms: list[Atom] = []
    _collect(paragraph, (), atoms)
    return atoms


def _collect(el: etree._Element, chain: Chain, atoms: list[Atom]) -> None:
    atoms += [Atom(ch, chain) for ch in el.text or ""]
    for child in el:
        if child.tag == SPAN:
            name = child.get(q("text", "style-name"))
            _collect(child, chain + ((name,) if name else ()), atoms)
        elif child.tag == SPACE:
            atoms += [Atom(" ", chain)] * int(child.get(q("text", "c"), "1"))
        elif child.tag == TAB:
            atoms.append(Atom("\t", chain))
        elif child.tag == LINE_BREAK:
            atoms.append(Atom("\n", chain))
        elif child.tag not in SKIPPED:
            raise ActionFailed(f"This paragraph holds {etree.QName(child).localname!r} content (a field, note, frame "
                               "or link) that the file-backed access path cannot rewrite.",
                               hint='Use the dispatch access path (access_path "dispatch") for this edit.',
                               code=UNSUPPORTED)
        atoms += [Atom(ch, chain) for ch in child.tail or ""]


def text_of(paragraph: etree._Element) -> str:
    """The paragraph's text as LibreOffice's getString gives it (notes, frames and annotations read as nothing)."""
    parts = [paragraph.text or ""]
    for child in paragraph:
        if child.tag == SPACE:
            parts.append(" " * int(child.get(q("text", "c"), "1")))
        elif child.tag == TAB:
            parts.append("\t")
        elif child.tag == LINE_BREAK:
            parts.append("\n")
        elif isinstance(child.tag, str) and child.tag.startswith(q("text", "")) and child.tag not in NOT_TEXT:
            parts.append(text_of(child))  # spans, links and fields show their text
        parts.append(child.tail or "")
    return "".join(parts)


def write_atoms(paragraph: etree._Element, atoms: list[Atom]) -> None:
    """Replace the paragraph's content by ``atoms`` (its attributes, style and id stay)."""
    for child in list(paragraph):
        paragraph.remove(child)
    paragraph.text = None
    start = 0
    while start < len(atoms):
        end = start
        while end < len(atoms) and atoms[end].chain == atoms[start].chain:
            end += 1
        target = paragraph
        for name in atoms[start].chain:
            target = etree.SubElement(target, SPAN)
            target.set(q("text", "style-name"), name)
        previous = atoms[start - 1].char if start else ""
        _append_text(target, "".join(a.char for a in atoms[start:end]), previous)
        start = end


def _append_text(parent: etree._Element, text: str, previous: str) -> None:
    """Append ``text`` at the end of ``parent``, spelling tabs and breaks as elements and every space a reader
    would collapse (at the paragraph's start, after a space, tab or break) as ``text:s``.

    ``previous`` is the paragraph's character before ``text`` ("" at its start)."""
    for char in text:
        if char in ("\t", "\n"):
            etree.SubElement(parent, TAB if char == "\t" else LINE_BREAK)
        elif char == " " and previous in ("", " ", "\t", "\n"):
            last = parent[-1] if len(parent) else None
            if last is not None and last.tag == SPACE and not last.tail:
                last.set(q("text", "c"), str(int(last.get(q("text", "c"), "1")) + 1))
            else:
                etree.SubElement(parent, SPACE)
        else:
            _plain(parent, char)
        previous = char


def _plain(parent: etree._Element, text: str) -> None:
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def set_text(paragraph: etree._Element, text: str) -> None:
    """The paragraph's whole text, without character formatting (as the dispatch path's set_text)."""
    write_atoms(paragraph, [Atom(ch, ()) for ch in text])


# ---------------------------------------------------------------- character formatting


def marks_of(props: etree._Element | None) -> dict[str, Any]:
    """Bold / italic / underline set by a ``style:text-properties`` element."""
    if props is None:
        return {}
    marks: dict[str, Any] = {}
    weight = props.get(q("fo", "font-weight"))
    if weight is not None:
        marks["bold"] = weight == "bold" or (weight.isdigit() and int(weight) >= 600)
    posture = props.get(q("fo", "font-style"))
    if posture is not None:
        marks["italic"] = posture in ("italic", "oblique")
    underline = props.get(q("style", "text-underline-style"))
    if underline is not None:
        marks["underline"] = underline != "none"
    return marks


def mark_properties(marks: dict[str, Any]) -> dict[str, str]:
    """The ``style:text-properties`` attributes LibreOffice writes for these marks."""
    out: dict[str, str] = {}
    if marks.get("bold") is not None:
        weight = "bold" if marks["bold"] else "normal"
        out.update({q("fo", "font-weight"): weight, q("style", "font-weight-asian"): weight,
                    q("style", "font-weight-complex"): weight})
    if marks.get("italic") is not None:
        posture = "italic" if marks["italic"] else "normal"
        out.update({q("fo", "font-style"): posture, q("style", "font-style-asian"): posture,
                    q("style", "font-style-complex"): posture})
    if marks.get("underline") is not None:
        if marks["underline"]:
            out.update({q("style", "text-underline-style"): "solid", q("style", "text-underline-width"): "auto",
                        q("style", "text-underline-color"): "font-color"})
        else:
            out[q("style", "text-underline-style")] = "none"
    return out


class AutomaticStyles:
    """The automatic styles of content.xml: finding them by name, adding new ones with free names."""

    def __init__(self, package: OdfPackage):
        self.root = package.automatic_styles()

    def get(self, name: str | None) -> etree._Element | None:
        if not name:
            return None
        return next((s for s in self.root.iter(STYLE) if s.get(q("style", "name")) == name), None)

    def is_automatic(self, name: str) -> bool:
        return self.get(name) is not None

    def free_name(self, prefix: str) -> str:
        taken = {s.get(q("style", "name")) for s in self.root}
        number = 1
        while f"{prefix}{number}" in taken:
            number += 1
        return f"{prefix}{number}"

    def add(self, prefix: str, family: str, attributes: dict[str, str],
            children: list[etree._Element] | None = None) -> str:
        name = self.free_name(prefix)
        style = etree.SubElement(self.root, STYLE)
        style.set(q("style", "name"), name)
        style.set(q("style", "family"), family)
        for key, value in attributes.items():
            style.set(key, value)
        for child in children or []:
            style.append(child)
        return name

    def text_style(self, marks: dict[str, Any]) -> str:
        """An automatic text style with exactly these marks (reused when one exists)."""
        wanted = mark_properties(marks)
        for style in self.root.iter(STYLE):
            props = style.find(TEXT_PROPS)
            if style.get(q("style", "family")) == "text" and props is not None and attributes(props) == wanted \
                    and len(style) == 1:
                return str(style.get(q("style", "name")))
        props = etree.Element(TEXT_PROPS)
        for key, value in wanted.items():
            props.set(key, value)
        return self.add("T", "text", {}, [props])


def chain_marks(chain: Chain, autos: AutomaticStyles) -> tuple[dict[str, Any], str | None]:
    """The direct marks of a span chain, and the character style it names (a span that is not automatic)."""
    marks: dict[str, Any] = {}
    char_style = None
    for name in chain:
        style = autos.get(name)
        if style is None:
            char_style = name
        else:
            marks.update(marks_of(style.find(TEXT_PROPS)))
            parent = style.get(q("style", "parent-style-name"))
            char_style = parent or char_style
    return marks, char_style


def restyle(atoms: list[Atom], start: int, end: int, marks: dict[str, Any], autos: AutomaticStyles,
            char_style: Any = ...) -> None:
    """Give atoms ``start..end`` the marks (merged over theirs) and, when given, the character style."""
    for atom in atoms[start:end]:
        old, old_char = chain_marks(atom.chain, autos)
        merged = {**old, **{k: v for k, v in marks.items() if k in MARKS}}
        style = old_char if char_style is ... else char_style
        chain: Chain = (style,) if style else ()
        if merged:
            chain += (autos.text_style(merged),)
        atom.chain = chain


__all__ = ["Atom", "AutomaticStyles", "atoms_of", "chain_marks", "decode_style_name", "encode_style_name",
           "marks_of", "restyle", "set_text", "text_of", "write_atoms"]
