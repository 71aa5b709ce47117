"""The file-backed access path of the Writer adapter: the engine ops of ``lo_scripts/asil_writer.py``,
done on the ``.odt`` package's XML with lxml and no LibreOffice (docs/path_restriction.md).

It answers the same requests with the same JSON shapes, so the adapter's planner, observation builder
and function table serve both paths. What needs LibreOffice's layout it cannot do, and says so:

* the page count (observed as ``pages: null``), PDF export and renders are refused
  (``unsupported_on_file_path``), and the file stays as it was;
* document-wide ``find_replace`` uses Python regular expressions, not ICU's (``$1``/``&`` in the
  replacement are translated); a paragraph holding fields, notes or frames is not rewritten.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lxml import etree

from asil.adapters.odf.engine import FileEngineOps, needs_libreoffice
from asil.adapters.odf.package import attributes, q, remove
from asil.adapters.odf.text import (
    TEXT_PROPS,
    Atom,
    AutomaticStyles,
    atoms_of,
    chain_marks,
    marks_of,
    restyle,
    set_text,
    text_of,
    write_atoms,
)
from asil.adapters.writer import odf_blocks as body
from asil.adapters.writer.odf_blocks import XML_ID, Block, H, OdtPackage, P, blocks_of, table_info
from asil.adapters.writer.odf_page import page_info, set_margin_text, set_page
from asil.adapters.writer.odf_styles import StyleBook
from asil.adapters.writer.odf_tables import add_rows, delete_rows, new_table, set_cells
from asil.protocol import ActionFailed

MAX_TEXT = 400  # characters of a paragraph shown in an observation (as on the dispatch path)
HEADING_LIMIT = 60
LISTS = {"bullet": "List 1", "number": "Numbering 123"}
LIST_KINDS = {"List 1": "bullet", "Numbering 123": "number"}
BREAKS = re.compile("\r\n?|\u2029")  # paragraph breaks; "\n" (and U+2028) stay line breaks, as in LibreOffice
_READ_ONLY = {"ids", "observe", "read", "dirty", "save"}


class OdtFileEngine(FileEngineOps[OdtPackage]):
    """One ``.odt`` open as XML: the engine ops the Writer adapter calls (``call(op, **args)``)."""

    def __init__(self, path: Path):
        self.package = OdtPackage.load(path)
        self.dirty = False
        self._blocks: list[Block] | None = None

    def call(self, op: str, **args: Any) -> Any:
        """Run one engine request; a change that fails part-way is undone whole (as on the dispatch path)."""
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise needs_libreoffice(op, "PDF export and page renders", "layout")
        if op in _READ_ONLY:
            return handler(**args)
        saved, was_dirty = self.package.snapshot(), self.dirty
        try:
            result = handler(**args)
        except Exception:
            self.package.restore(saved)
            self.dirty, self._blocks = was_dirty, None
            raise
        self.dirty, self._blocks = True, None
        return result

    # ------------------------------------------------------------ reading
    def blocks(self) -> list[Block]:
        if self._blocks is None:
            self._blocks = blocks_of(self.package.body())
        return self._blocks

    def find(self, ident: str, kind: str | None = None) -> tuple[int, Block]:
        for index, block in enumerate(self.blocks()):
            if block.id == ident and (kind is None or block.kind == kind):
                return index, block
        raise ActionFailed(f"There is no {kind or 'paragraph or table'} with id {ident!r}.",
                           hint="Use an id from the observation, e.g. p3 or Table1.", code="no_element")

    def _styles(self) -> StyleBook:
        return StyleBook(self.package)

    def style_of(self, paragraph: etree._Element) -> str:
        """The paragraph's named style (an automatic style's parent), as the dispatch path names it."""
        name = paragraph.get(body.STYLE_NAME) or "Standard"
        auto = AutomaticStyles(self.package).get(name)
        if auto is not None:
            name = auto.get(q("style", "parent-style-name")) or "Standard"
        return self._styles().paragraph_name(name)

    def paragraph(self, el: etree._Element, full: bool = False) -> dict[str, Any]:
        text = text_of(el)
        level = int(el.get(q("text", "outline-level"), "1")) if el.tag == H else 0
        out: dict[str, Any] = {"text": text if full else text[:MAX_TEXT], "length": len(text),
                               "style": self.style_of(el), "level": level}
        listed = body.list_of(el)
        if listed is not None:
            outer, depth = listed
            style = self._styles().list_name(outer.get(body.STYLE_NAME, ""))
            kind = LIST_KINDS.get(style, "other")
            label = f"{body.number_in_list(el, outer)}." if kind == "number" else ""  # a bullet has no label text in LibreOffice
            out["list"] = {"kind": kind, "label": label, "level": depth}
        spans = self.spans(el)
        if spans:
            out["spans"] = spans
        return out

    def spans(self, el: etree._Element) -> list[dict[str, Any]]:
        """Runs of directly formatted text (bold, italic, underline, character style), as on the dispatch path."""
        autos = AutomaticStyles(self.package)
        base = self._paragraph_marks(el, autos)
        try:
            atoms = atoms_of(el)
        except ActionFailed:
            return []
        runs: list[tuple[str, dict[str, Any]]] = []
        for atom in atoms:
            marks, char_style = chain_marks(atom.chain, autos)
            merged = {k: v for k, v in {**base, **marks}.items() if v}
            if char_style:
                merged["char_style"] = self._styles().text_name(char_style)
            if runs and runs[-1][1] == merged:
                runs[-1] = (runs[-1][0] + atom.char, merged)
            else:
                runs.append((atom.char, merged))
        return [{"text": text[:MAX_TEXT], **marks} for text, marks in runs if marks and text]

    def _paragraph_marks(self, el: etree._Element, autos: AutomaticStyles) -> dict[str, Any]:
        auto = autos.get(el.get(body.STYLE_NAME))
        return marks_of(auto.find(TEXT_PROPS)) if auto is not None else {}

    def op_dirty(self) -> bool:
        return self.dirty

    def op_ids(self) -> list[list[str]]:
        return [[b.kind, b.id] for b in self.blocks()]

    def _block(self, index: int, block: Block, full: bool, table_rows: int | None) -> dict[str, Any]:
        item: dict[str, Any] = {"id": block.id, "kind": block.kind}
        if not full:
            item["index"] = index
        item.update(self.paragraph(block.el, full) if block.kind == "paragraph" else table_info(block.el, table_rows))
        return item

    def op_observe(self, offset: int, limit: int, table_rows: int = 20) -> dict[str, Any]:
        blocks = self.blocks()
        window = [self._block(i, blocks[i], False, table_rows) for i in range(offset, min(offset + limit, len(blocks)))]
        levels = [int(b.el.get(q("text", "outline-level"), "1")) if b.el.tag == H else 0 for b in blocks]
        headings = [i for i, level in enumerate(levels) if level]
        outline = [{"id": blocks[i].id, "index": i, "level": levels[i], "text": text_of(blocks[i].el)[:80]}
                   for i in headings[:HEADING_LIMIT]]
        styles: list[str] = []
        for block in blocks:
            if block.kind == "paragraph" and (style := self.style_of(block.el)) not in styles:
                styles.append(style)
        return {"total": len(blocks), "blocks": window, "outline": outline, "headings": len(headings),
                "page": page_info(self.package, blocks), "dirty": self.dirty,
                "pages": None,  # a page count needs LibreOffice's layout
                "paragraph_styles": styles}

    def op_read(self) -> dict[str, Any]:
        blocks = self.blocks()
        return {"blocks": [self._block(i, b, True, None) for i, b in enumerate(blocks)],
                "page": page_info(self.package, blocks)}

    # ------------------------------------------------------------ paragraphs
    def op_set_text(self, paragraph: str, text: str) -> bool:
        _, block = self.find(paragraph, "paragraph")
        self._write_text(block.el, text)
        return True

    def _write_text(self, el: etree._Element, text: str) -> None:
        """Set a paragraph's text; a paragraph break in it starts new paragraphs of the same style."""
        first, *rest = BREAKS.split(text.replace("\u2028", "\n"))
        set_text(el, first)
        anchor = el
        for piece in rest:
            twin = etree.Element(el.tag, {k: v for k, v in attributes(el).items() if k != XML_ID})
            set_text(twin, piece)
            anchor = _insert_next(anchor, twin)
        blocks_of(self.package.body())  # the new paragraphs get ids now

    def op_insert_paragraph(self, anchor: str, position: str, text: str, style: str | None = None,
                            list_kind: str | None = None) -> str:
        _, block = self.find(anchor)
        if style:
            odf_style = self._styles().use("paragraph", style)
        elif block.kind == "paragraph":
            odf_style = self._named_style(block.el)
        else:
            odf_style = "Standard"
        fresh = etree.Element(P)
        self._give_style(fresh, odf_style)
        taken = {int(m[1]) for b in self.blocks() if (m := re.fullmatch(r"p(\d+)", b.id))}
        ident = f"p{max(taken, default=0) + 1}"
        fresh.set(XML_ID, ident)
        set_text(fresh, "")
        self._place(fresh, block.el, position, list_kind)
        self._write_text(fresh, text)
        return ident

    def _place(self, fresh: etree._Element, anchor: etree._Element, position: str, list_kind: str | None) -> None:
        """Put a new paragraph before/after ``anchor``: into the anchor's list when it is a list item of the
        wanted kind, otherwise outside any list (the anchor's list is split around it)."""
        listed = body.list_of(anchor) if anchor.tag in (P, H) else None
        list_style = self._styles().use("list", LISTS[list_kind]) if list_kind else None
        side = "addprevious" if position == "before" else "addnext"
        if listed is not None:
            item = anchor.getparent()
            assert item is not None
            twin = etree.Element(body.ITEM)
            twin.append(fresh)
            getattr(item, side)(twin)
            if list_style and listed[0].get(body.STYLE_NAME) == list_style:
                return
            body.detach_from_list(fresh)
        else:
            getattr(anchor, side)(fresh)
        if list_style:
            body.wrap_in_list(fresh, list_style)

    def op_delete_block(self, block: str) -> bool:
        _, found = self.find(block)
        if len(self.blocks()) == 1:
            raise ActionFailed("The last paragraph of a document cannot be deleted.",
                               hint="Replace its text with set_value instead.", code="last_block")
        if found.kind == "table":
            remove(found.el)
        else:
            body.delete_paragraph(found.el)
        return True

    def _named_style(self, el: etree._Element) -> str:
        name = el.get(body.STYLE_NAME) or "Standard"
        auto = AutomaticStyles(self.package).get(name)
        return (auto.get(q("style", "parent-style-name")) or "Standard") if auto is not None else name

    def _give_style(self, el: etree._Element, odf_style: str) -> None:
        """Set a paragraph's named style; it becomes a heading (text:h) exactly when the style has an outline
        level. Direct paragraph formatting stays (its automatic style is copied with the new parent)."""
        autos = AutomaticStyles(self.package)
        auto = autos.get(el.get(body.STYLE_NAME))
        if auto is not None:
            kept = {k: v for k, v in attributes(auto).items() if k not in (q("style", "name"), q("style", "family"))}
            kept[q("style", "parent-style-name")] = odf_style
            name = autos.add("P", "paragraph", kept, [etree.fromstring(etree.tostring(c)) for c in auto])
            el.set(body.STYLE_NAME, name)
        else:
            el.set(body.STYLE_NAME, odf_style)
        level = self._styles().outline_level(odf_style)
        el.tag = H if level else P
        if level:
            el.set(q("text", "outline-level"), str(level))
        elif q("text", "outline-level") in el.attrib:
            del el.attrib[q("text", "outline-level")]

    def op_set_style(self, paragraphs: list[str], style: str) -> bool:
        odf_style = self._styles().use("paragraph", style)
        for ident in paragraphs:
            self._give_style(self.find(ident, "paragraph")[1].el, odf_style)
        return True

    def op_set_list(self, paragraphs: list[str], kind: str) -> bool:
        list_style = self._styles().use("list", LISTS[kind]) if kind in LISTS else None
        for ident in paragraphs:
            el = self.find(ident, "paragraph")[1].el
            body.detach_from_list(el)
            self._drop_list_style(el)
            if list_style:
                body.wrap_in_list(el, list_style)
        return True

    def _drop_list_style(self, el: etree._Element) -> None:
        """A paragraph taken out of a list loses the list style its automatic style may name."""
        autos = AutomaticStyles(self.package)
        auto = autos.get(el.get(body.STYLE_NAME))
        if auto is not None and auto.get(q("style", "list-style-name")) is not None:
            self._give_style(el, self._named_style(el))
            copy = autos.get(el.get(body.STYLE_NAME))
            if copy is not None:
                del copy.attrib[q("style", "list-style-name")]

    def op_format_text(self, paragraph: str, text: str | None, marks: dict[str, Any]) -> bool:
        el = self.find(paragraph, "paragraph")[1].el
        atoms = atoms_of(el)
        content = "".join(a.char for a in atoms)
        start = 0 if text is None else content.find(text)
        if start < 0 or text == "":
            raise ActionFailed(f"Paragraph {paragraph} does not contain the text {text!r}.",
                               hint="Give a piece of text copied exactly from the paragraph, or omit text to format "
                                    "all of it.", code="no_match")
        end = len(content) if text is None else start + len(text)
        char_style: Any = ...
        if "char_style" in marks:
            char_style = self._styles().use("text", marks["char_style"]) if marks["char_style"] else None
        restyle(atoms, start, end, marks, AutomaticStyles(self.package), char_style)
        write_atoms(el, atoms)
        return True

    def op_find_replace(self, find: str, replace: str, regex: bool = False, match_case: bool = False,
                        paragraph: str | None = None) -> int:
        flags = 0 if match_case else re.IGNORECASE
        try:
            pattern = re.compile(find if regex else re.escape(find), flags)
        except re.error as exc:
            raise ActionFailed(f"The regular expression {find!r} is not valid ({exc}).",
                               hint="Use Python regular expression syntax, or set regex to false.",
                               code="bad_regex") from None
        if paragraph is not None:  # as the dispatch path: the paragraph's text is replaced whole
            el = self.find(paragraph, "paragraph")[1].el
            new, count = pattern.subn(replace if regex else replace.replace("\\", "\\\\"), text_of(el))
            if count:
                self._write_text(el, new)
            return count
        template = _icu_template(replace) if regex else None
        count = 0
        for el in list(self.package.body().iter(P, H)):
            count += _replace_in(el, pattern, replace, template)
        return count

    # ------------------------------------------------------------ tables and page
    def op_insert_table(self, anchor: str, rows: list[list[str]], name: str | None = None) -> str:
        _, block = self.find(anchor)
        if block.kind != "paragraph":
            raise ActionFailed("A table can only be inserted after a paragraph.", hint="Give a paragraph id as 'after'.",
                               code="bad_anchor")
        taken = {el.get(q("table", "name"), "") for el in self.package.body().iter(body.TABLE)}
        if name and name in taken:
            raise ActionFailed(f"A table named {name!r} already exists.", hint="Pick another name.", code="table_exists")
        table = new_table(self.package, self._styles(), name or _free_table_name(taken), rows)
        listed = body.list_of(block.el)
        (listed[0] if listed is not None else block.el).addnext(table)
        return str(table.get(q("table", "name")))

    def op_set_cells(self, table: str, col: int, row: int, rows: list[list[str]]) -> bool:
        set_cells(self.find(table, "table")[1].el, table, col, row, rows)
        return True

    def op_add_table_rows(self, table: str, count: int, position: int | None = None) -> bool:
        add_rows(self.find(table, "table")[1].el, count, position)
        return True

    def op_delete_table_rows(self, table: str, position: int, count: int) -> bool:
        delete_rows(self.find(table, "table")[1].el, table, position, count)
        return True

    def op_set_page(self, page: dict[str, Any]) -> bool:
        set_page(self.package, self.blocks(), page)
        return True

    def op_set_margin_text(self, part: str, text: str | None) -> bool:
        set_margin_text(self.package, self._styles(), self.blocks(), part, text)
        return True



def _insert_next(anchor: etree._Element, el: etree._Element) -> etree._Element:
    """Put ``el`` right after ``anchor`` (after its list item when the anchor is one)."""
    parent = anchor.getparent()
    if parent is not None and parent.tag == body.ITEM:
        item = etree.Element(body.ITEM)
        item.append(el)
        parent.addnext(item)
    else:
        anchor.addnext(el)
    return el


def _free_table_name(taken: set[str]) -> str:
    number = 1
    while f"Table{number}" in taken:
        number += 1
    return f"Table{number}"


def _icu_template(replace: str) -> str:
    """LibreOffice's regex replacement ($1 for a group, & for the match) in Python's spelling."""
    escaped = replace.replace("\\", "\\\\")
    escaped = re.sub(r"\$(\d)", r"\\g<\1>", escaped)
    return re.sub(r"(?<!\\)&", r"\\g<0>", escaped)


def _replace_in(el: etree._Element, pattern: re.Pattern[str], replace: str, template: str | None) -> int:
    """Replace every match inside one paragraph, keeping formatting: new text takes the match's first
    character's formatting (as LibreOffice's replaceAll)."""
    text = text_of(el)
    matches = list(pattern.finditer(text))
    if not matches:
        return 0
    atoms = atoms_of(el)
    for match in reversed(matches):
        new = match.expand(template) if template is not None else replace
        chain = atoms[match.start()].chain if match.start() < len(atoms) else ()
        atoms[match.start():match.end()] = [Atom(ch, chain) for ch in new]
    write_atoms(el, atoms)
    return len(matches)


__all__ = ["OdtFileEngine"]
