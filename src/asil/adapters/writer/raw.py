"""An independent reader of saved .odt files (standard library only, no LibreOffice)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from asil.adapters.odf.xml import NS, Package, RawReadError, block_text, decode_style_name, length_mm, q, text_of


class RawTextDocument:
    """Blocks (paragraphs, tables) and first-page properties read from content.xml and styles.xml."""

    def __init__(self, package: Package):
        self.package = package
        self.auto = {s.get(q("style:name")): s for s in package.content.iter(q("style:style"))}
        self.display = {s.get(q("style:name")): s.get(q("style:display-name")) for s in package.styles.iter(q("style:style"))}
        self.blocks: list[dict[str, Any]] = []
        body = package.content.find("office:body/office:text", NS)
        if body is None:
            raise RawReadError("content.xml has no office:text body")
        self._walk(body, in_list=False)

    @classmethod
    def load(cls, path: Path) -> RawTextDocument:
        return cls(Package.load(path))

    def _walk(self, element: Element, in_list: bool) -> None:
        for child in element:
            if child.tag in (q("text:p"), q("text:h")):
                self.blocks.append(self._paragraph(child, in_list))
            elif child.tag in (q("text:list"), q("text:list-item")):
                self._walk(child, in_list=True)
            elif child.tag == q("text:list-header"):
                self._walk(child, in_list=False)
            elif child.tag == q("text:section"):
                self._walk(child, in_list)
            elif child.tag == q("table:table"):
                self.blocks.append(self._table(child))

    def _paragraph(self, element: Element, in_list: bool) -> dict[str, Any]:
        level = int(element.get(q("text:outline-level"), "1")) if element.tag == q("text:h") else 0
        block = {"kind": "paragraph", "text": text_of(element), "style": self.style_of(element), "level": level,
                 "auto_style": element.get(q("text:style-name"))}
        if in_list:
            block["list"] = True
        return block

    def style_of(self, element: Element) -> str:
        name = element.get(q("text:style-name")) or "Standard"
        automatic = self.auto.get(name)
        if automatic is not None and automatic.get(q("style:parent-style-name")):
            name = automatic.get(q("style:parent-style-name"), name)
        return self.display.get(name) or decode_style_name(name)

    def _table(self, element: Element) -> dict[str, Any]:
        rows: list[list[str]] = []
        for row in element.iter(q("table:table-row")):
            cells: list[str] = []
            for cell in row:
                repeat = int(cell.get(q("table:number-columns-repeated"), "1"))
                if cell.tag == q("table:table-cell"):
                    cells += [block_text(cell)] * repeat
                elif cell.tag == q("table:covered-table-cell"):
                    cells += [""] * repeat
            rows.append(cells)
        return {"kind": "table", "name": element.get(q("table:name")), "cells": rows}

    def page(self) -> dict[str, Any]:
        """Properties of the master page the first paragraph uses (Standard by default)."""
        master_name = "Standard"
        first = next((b for b in self.blocks if b["kind"] == "paragraph"), None)
        if first and first["auto_style"] in self.auto:
            master_name = self.auto[first["auto_style"]].get(q("style:master-page-name")) or master_name
        master = next((m for m in self.package.styles.iter(q("style:master-page"))
                       if m.get(q("style:name")) == master_name), None)
        if master is None:
            raise RawReadError(f"no master page {master_name!r}")
        layout = next(p for p in self.package.styles.iter(q("style:page-layout"))
                      if p.get(q("style:name")) == master.get(q("style:page-layout-name")))
        props = layout.find("style:page-layout-properties", NS)
        if props is None:
            raise RawReadError("page layout without properties")
        info: dict[str, Any] = {"orientation": props.get(q("style:print-orientation")) or "portrait",
                                "width_mm": round(length_mm(props.get(q("fo:page-width"))), 1),
                                "height_mm": round(length_mm(props.get(q("fo:page-height"))), 1)}
        for side in ("top", "bottom", "left", "right"):
            info[f"margin_{side}_mm"] = round(length_mm(props.get(q(f"fo:margin-{side}"), "0cm")), 1)
        for part in ("header", "footer"):
            found = master.find(f"style:{part}", NS)
            shown = found is not None and found.get(q("style:display"), "true") != "false"
            info[part] = block_text(found) if shown and found is not None else None
        return info
