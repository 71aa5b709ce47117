"""The file-backed access path of the Impress adapter: the engine ops of ``lo_scripts/asil_impress.py``,
done on the ``.odp`` package's XML with lxml and no LibreOffice (docs/path_restriction.md).

Same requests, same JSON shapes, so the adapter's planner, observation builder and function table serve
both paths. What needs LibreOffice's autolayout or rendering it refuses (``unsupported_on_file_path``),
leaving the file as it was: ``set_layout``, ``add_slide`` with a layout no slide of the deck has yet,
PDF export and renders.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from lxml import etree

from asil.adapters.impress import odf_slides as odp
from asil.adapters.impress.odf_slides import NAME, OdpPackage, role, shapes_of, slide_info
from asil.adapters.odf.engine import FileEngineOps, needs_libreoffice
from asil.adapters.odf.package import q, remove
from asil.adapters.odf.text import AutomaticStyles
from asil.protocol import ActionFailed

MAX_TEXT = 300
TITLE_LIMIT = 100
AUTO_NAME = re.compile(r"^(page\d+)?$")
_READ_ONLY = {"ids", "observe", "read", "dirty", "save"}
_NEEDS_OFFICE = "needs LibreOffice's autolayout, which the file-backed access path does not run; " \
                'the dispatch access path (access_path "dispatch") does it.'


class OdpFileEngine(FileEngineOps[OdpPackage]):
    """One ``.odp`` open as XML: the engine ops the Impress adapter calls (``call(op, **args)``)."""

    def __init__(self, path: Path):
        self.package = OdpPackage.load(path)
        self.dirty = False
        _name_all(self.package.pages())  # as the dispatch engine does on open (not a change)

    def call(self, op: str, **args: Any) -> Any:
        """Run one engine request; a change that fails part-way is undone whole (as on the dispatch path)."""
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise needs_libreoffice(op, "PDF export and slide renders", "rendering")
        if op in _READ_ONLY:
            return handler(**args)
        saved, was_dirty = self.package.snapshot(), self.dirty
        try:
            result = handler(**args)
        except Exception:
            self.package.restore(saved)
            self.dirty = was_dirty
            raise
        self.dirty = True
        return result

    # ------------------------------------------------------------ reading
    def page(self, name: str) -> tuple[int, etree._Element]:
        for index, page in enumerate(self.package.pages()):
            if page.get(NAME) == name:
                return index, page
        raise ActionFailed(f"There is no slide with id {name!r}.", hint="Use a slide id from the observation.",
                           code="no_slide")

    def op_dirty(self) -> bool:
        return self.dirty

    def op_ids(self) -> list[list[Any]]:
        return [[p.get(NAME), [s.get(NAME) for s in shapes_of(p)]] for p in self.package.pages()]

    def op_observe(self, offset: int, limit: int) -> dict[str, Any]:
        pages = self.package.pages()
        start = max(0, min(offset, len(pages) - TITLE_LIMIT // 2)) if len(pages) > TITLE_LIMIT else 0
        titles = [{"id": p.get(NAME), "index": start + i, "title": _title(p)[:60]}
                  for i, p in enumerate(pages[start:start + TITLE_LIMIT])]
        window = [slide_info(i, pages[i], self.package, False, MAX_TEXT)
                  for i in range(offset, min(offset + limit, len(pages)))]
        return {"total": len(pages), "slides": window, "titles": titles, "dirty": self.dirty,
                "slide_size_mm": self._slide_size()}

    def op_read(self) -> list[dict[str, Any]]:
        return [slide_info(i, p, self.package, True, MAX_TEXT) for i, p in enumerate(self.package.pages())]

    def _slide_size(self) -> list[float]:
        master = self.package.pages()[0].get(q("draw", "master-page-name"))
        styles = self.package.parts["styles.xml"]
        page = next((m for m in styles.iter(q("style", "master-page")) if m.get(q("style", "name")) == master), None)
        layout = next((p for p in styles.iter(q("style", "page-layout"))
                       if page is not None and p.get(q("style", "name")) == page.get(q("style", "page-layout-name"))), None)
        props = layout.find(q("style", "page-layout-properties")) if layout is not None else None
        if props is None:
            raise ActionFailed("The presentation has no page layout.", code="bad_document")
        return [round(odp.length_mm(props.get(q("fo", "page-width"))), 1),
                round(odp.length_mm(props.get(q("fo", "page-height"))), 1)]

    # ------------------------------------------------------------ slides
    def op_add_slide(self, position: int, layout: str, title: str | None = None, body: Any = None,
                     name: str | None = None) -> str:
        template = next((p for p in self.package.pages() if odp.layout_of(p) == layout), None)
        if template is None:
            raise ActionFailed(f"A first {layout!r} slide {_NEEDS_OFFICE}",
                               hint="Use a layout one of the deck's slides has, or the dispatch access path.",
                               code=odp.UNSUPPORTED)
        fresh = _empty_like(template, self.package)
        fresh.set(NAME, name or self._next_name())
        self._insert(fresh, position)
        if title is not None:
            odp.set_text(self._placeholder(fresh, "title"), title)
        if body is not None:
            odp.set_text(self._placeholder(fresh, "body", "subtitle"), _lines(body))
        return str(fresh.get(NAME))

    def _insert(self, page: etree._Element, position: int) -> None:
        pages = self.package.pages()
        if position < len(pages):
            pages[position].addprevious(page)
        else:
            pages[-1].addnext(page)

    def _next_name(self) -> str:
        numbers = [int(m[1]) for p in self.package.pages() if (m := re.fullmatch(r"slide-(\d+)", p.get(NAME, "")))]
        return f"slide-{max(numbers, default=0) + 1}"

    def op_delete_slide(self, slide: str) -> bool:
        _, page = self.page(slide)
        if len(self.package.pages()) == 1:
            raise ActionFailed("The last slide of a presentation cannot be deleted.", hint="Add another slide first.",
                               code="last_slide")
        remove(page)
        return True

    def op_duplicate_slide(self, slide: str) -> str:
        _, page = self.page(slide)
        twin = copy.deepcopy(page)
        twin.set(NAME, self._next_name())
        page.addnext(twin)
        return str(twin.get(NAME))

    def op_move_slide(self, slide: str, position: int) -> bool:
        _, page = self.page(slide)
        remove(page)
        self._insert(page, min(position, len(self.package.pages())))
        return True

    def op_set_layout(self, slide: str, layout: str) -> bool:
        raise ActionFailed(f"Changing a slide's layout {_NEEDS_OFFICE}", hint="Use the dispatch access path.",
                           code=odp.UNSUPPORTED)

    # ------------------------------------------------------------ shapes and text
    def _placeholder(self, page: etree._Element, *roles: str) -> etree._Element:
        found = next((s for s in shapes_of(page) if role(s) in roles), None)
        if found is None:
            raise ActionFailed(f"Slide {page.get(NAME)} has no {roles[0]} placeholder.",
                               hint="Change its layout with set_layout, or add a text shape.", code="no_placeholder")
        return found

    def _shape(self, page: etree._Element, name: str) -> etree._Element:
        found = next((s for s in shapes_of(page) if s.get(NAME) == name), None)
        if found is None:
            raise ActionFailed(f"Slide {page.get(NAME)} has no shape named {name!r}.",
                               hint="Use a shape id from the observation.", code="no_shape")
        return found

    def op_set_text(self, slide: str, role: str, text: Any) -> bool:
        page = self.page(slide)[1]
        odp.set_text(self._placeholder(page, *(("title",) if role == "title" else ("body", "subtitle"))), _lines(text))
        return True

    def op_set_shape_text(self, slide: str, shape: str, text: Any) -> bool:
        odp.set_text(self._shape(self.page(slide)[1], shape), _lines(text))
        return True

    def op_set_geometry(self, slide: str, shape: str, geometry: dict[str, float]) -> bool:
        odp.set_geometry(self._shape(self.page(slide)[1], shape), geometry)
        return True

    def op_add_shape(self, slide: str, spec: dict[str, Any]) -> bool:
        page = self.page(slide)[1]
        if any(s.get(NAME) == spec["name"] for s in shapes_of(page)):
            raise ActionFailed(f"Slide {slide} already has a shape named {spec['name']!r}.", hint="Pick another name.",
                               code="shape_exists")
        shape = _new_shape(self.package, spec)
        last = shapes_of(page)
        (last[-1].addnext if last else (lambda el: page.insert(0, el)))(shape)
        return True

    def op_delete_shape(self, slide: str, shape: str) -> bool:
        page = self.page(slide)[1]
        remove(self._shape(page, shape))
        return True

    def op_set_notes(self, slide: str, text: str) -> bool:
        odp.set_text(odp.notes_frame(self.page(slide)[1]), text)
        return True

    def op_set_transition(self, slides: list[str], effect: str) -> bool:
        for slide in slides:
            odp.set_transition(self.page(slide)[1], self.package, effect)
        return True



def _title(page: etree._Element) -> str:
    return next((odp.text_of(s) or "" for s in shapes_of(page) if role(s) == "title"), "")


def _lines(body: Any) -> str:
    return "\n".join(body) if isinstance(body, list) else str(body)


def _name_all(pages: list[etree._Element]) -> None:
    """Unnamed (or duplicate-named) slides become slide-N and unnamed shapes get a role name, as on open
    in the dispatch engine."""
    names = [p.get(NAME, "") for p in pages]
    taken = {n for n in names if not AUTO_NAME.match(n)}
    top = max([int(m[1]) for n in taken if (m := re.fullmatch(r"slide-(\d+)", n))] or [0])
    for index, page in enumerate(pages):
        name = page.get(NAME, "")
        if AUTO_NAME.match(name) or names.count(name) > 1 and names.index(name) != index:
            top += 1
            page.set(NAME, f"slide-{top}")
        _name_shapes(page)


def _name_shapes(page: etree._Element) -> None:
    shapes = shapes_of(page)
    taken = {s.get(NAME) for s in shapes if s.get(NAME)}
    counter = 0
    for shape in shapes:
        if shape.get(NAME):
            continue
        base = role(shape)
        name = base if base in ("title", "body", "subtitle") and base not in taken else None
        while name is None or name in taken:
            counter += 1
            name = f"shape-{counter}"
        shape.set(NAME, name)
        taken.add(name)


def _empty_like(template: etree._Element, package: OdpPackage) -> etree._Element:
    """A new slide with the template's layout: its placeholders, empty; no other shapes, notes empty, and a
    page style without a transition (LibreOffice's new slide)."""
    fresh = copy.deepcopy(template)
    for shape in shapes_of(fresh):
        if shape.get(odp.CLASS) not in ("title", "outline", "subtitle"):
            remove(shape)
            continue
        odp.set_text(shape, "")
        shape.set(odp.PLACEHOLDER, "true")
    for el in list(fresh):
        if el.tag in (q("anim", "par"), q("office", "forms")):
            remove(el)
    try:
        odp.set_text(odp.notes_frame(fresh), "")
    except ActionFailed:
        pass
    if odp.transition_of(fresh, package) is not None:
        odp.set_transition(fresh, package, "none")
    return fresh


def _new_shape(package: OdpPackage, spec: dict[str, Any]) -> etree._Element:
    """A rectangle, ellipse or text box like the dispatch engine's (default graphic style; a text box has no
    fill or line and grows with its text)."""
    kind = spec.get("kind", "rect")
    tag = {"rect": q("draw", "rect"), "ellipse": q("draw", "ellipse"), "text": odp.FRAME}[kind]
    shape = etree.Element(tag)
    shape.set(NAME, spec["name"])
    shape.set(q("draw", "layer"), "layout")
    if kind == "text":
        props = etree.Element(q("style", "graphic-properties"))
        for attr, value in (("stroke", "none"), ("fill", "none"), ("auto-grow-height", "true")):
            props.set(q("draw", attr), value)
        shape.set(q("draw", "style-name"), AutomaticStyles(package).add(
            "gr", "graphic", {q("style", "parent-style-name"): "standard"}, [props]))
        etree.SubElement(shape, odp.TEXT_BOX)
    odp.set_geometry(shape, {k: spec[k] for k in odp.GEOMETRY if spec.get(k) is not None})
    if spec.get("text"):
        odp.set_text(shape, spec["text"])
    return shape


__all__ = ["OdpFileEngine"]
