"""The draw.io adapter: a ``.drawio`` file (plain or compressed mxGraph XML) seen as pages of cells.

File-backed (Pattern A): the file is parsed once, edited in memory through semantic actions,
and written back atomically — in the form it came in — when saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.drawio import actions as act
from asil.adapters.drawio.codec import UnsafeDocument
from asil.adapters.drawio.model import Document, Page
from asil.adapters.drawio.observe import DEFAULT_LIMIT, counts, listed_cells, window
from asil.adapters.drawio.ops import Plan, find_page, page_key, set_value
from asil.adapters.drawio.structure import FUNCTIONS  # the table the cell, page and layer planners are declared in
from asil.protocol import (
    Action,
    AppState,
    DocumentError,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace, atomic_write

SAMPLE = """<mxfile host="asil" agent="ASIL sample"><diagram id="flow" name="Flow"><mxGraphModel dx="800" dy="600" grid="1"
 gridSize="10" guides="1" page="1" pageWidth="827" pageHeight="1169"><root><mxCell id="0"/><mxCell id="1" parent="0"/>
<mxCell id="start" value="Start" style="ellipse;whiteSpace=wrap;html=1;" vertex="1" parent="1"><mxGeometry x="40" y="40"
 width="120" height="60" as="geometry"/></mxCell></root></mxGraphModel></diagram></mxfile>
"""


class DrawioAdapter(Adapter):
    """A diagram: pages are views; layers, vertices and edges are elements with their mxCell ids."""

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT, **options: Any):
        super().__init__(workspace, document)
        self.path, document = self._open_document("a .drawio document")
        self.doc = load_document(self.path, document)
        self.view = page_key(self.doc.pages[0])
        self.offset, self.limit, self.find = 0, limit, ""
        self.dirty = False

    # ------------------------------------------------------------ observe
    def page(self) -> Page:
        page = self.doc.page(self.view)
        if page is None:  # the page in view was deleted
            page = self.doc.pages[0]
            self.view, self.offset = page_key(page), 0
        return page

    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._go(view)
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), act.MAX_LIMIT)
        page = self.page()
        cells = listed_cells(page, self.find)
        self.offset = min(self.offset, max(0, len(cells) - 1))
        elements = window(cells, page, self.offset, self.limit)
        tally = counts(page)
        layers = [{"id": c.id, "name": c.label} for c in page.layers()[:20]]
        return Observation(
            metadata=Metadata(app="drawio", source="file", step=self.step),
            app_state=AppState(view=page.name, active_document=self.path.name, document_path=self.document,
                               dirty=self.dirty, details={"page_id": page.id, "form": _form(page), "layers": layers,
                                                          "cells": tally, "find": self.find or None}),
            elements=elements,
            environment={"format": "draw.io mxGraph XML (.drawio)", "pages": len(self.doc.pages)},
            navigation=Navigation(views=[p.name for p in self.doc.pages],
                                  paging=Paging(offset=self.offset, limit=len(elements), total=len(cells))),
            summary=self._summary(page, tally, len(cells), len(elements)),
        )

    def _summary(self, page: Page, tally: dict[str, int], total: int, shown: int) -> str:
        names = ", ".join(repr(p.name) for p in self.doc.pages[:10]) + (" ..." if len(self.doc.pages) > 10 else "")
        text = (f"Page {page.name!r} ({len(self.doc.pages)} page{'s' if len(self.doc.pages) > 1 else ''}: {names}); "
                f"{tally['vertex']} vertices, {tally['edge']} edges, {tally['layer']} layer{'s' if tally['layer'] != 1 else ''}.")
        if self.find:
            text += f" Filter find={self.find!r}."
        if total:
            text += f" Showing cells {self.offset + 1}-{self.offset + shown} of {total}."
        end = self.offset + shown
        if end < total:
            text += f" {total - end} more: navigate with params {{\"offset\": {end}}}."
        return text

    def _go(self, ref: str) -> None:
        page = find_page(self.doc, ref, self.view)
        if page_key(page) != self.view:
            self.offset, self.find = 0, ""
        self.view = page_key(page)

    # ------------------------------------------------------------ actions
    vocabulary = act.VOCABULARY
    functions = FUNCTIONS
    doomed_operation = {"op": "relabel", "params": {"cell": "no-such-cell", "label": "x"}}
    sample = SAMPLE

    def _check(self, action: Action) -> None:
        if action.action_type == "batch":
            self._run_batch(action, self.doc.copy())
        elif action.action_type == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target:
                find_page(self.doc, action.target, self.view)
        else:
            self._plan(action, self.doc)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            return self._navigate(action)
        if action.action_type == "invoke_function" and action.target == "save":
            self.save()
            return []
        if action.action_type == "batch":
            trial = self.doc.copy()
            changed = self._run_batch(action, trial)
            self.doc = trial
        else:
            plan = self._plan(action, self.doc)
            plan.apply()
            changed = plan.changed
        self.dirty = True
        return changed

    def _plan(self, action: Action, doc: Document) -> Plan:
        self.vocabulary.require_type(action)
        if action.action_type == "set_value":
            return set_value(doc, self.view, action.target, action.params)
        function, params = self.functions.parse(action.target, action.params)
        return function.require_handler()(doc, self.view, params)

    def _run_batch(self, action: Action, doc: Document) -> list[str]:
        """Plan and apply every sub-action on ``doc`` (a copy): the caller keeps it only if all succeed."""
        changed: list[str] = []
        for index, sub in enumerate(self.vocabulary.batch(action, self.functions), start=1):
            try:
                plan = self._plan(sub, doc)
            except InvalidAction as exc:
                raise in_batch(exc, index) from None
            plan.apply()
            changed += [c for c in plan.changed if c not in changed]
        return changed

    def _navigate(self, action: Action) -> list[str]:
        params = self.vocabulary.parse_navigate(action)
        if action.target:
            self._go(action.target)
        if params.find is not None:
            self.find, self.offset = params.find, 0
        if params.offset is not None:
            self.offset = params.offset
        if params.limit is not None:
            self.limit = params.limit
        return []

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the file atomically, in the form it came in, if anything changed."""
        if not self.dirty:
            return
        atomic_write(self.path, self.doc.to_bytes())
        self.dirty = False

    def pages(self) -> list[Page]:
        return self.doc.pages

    def render(self, path: Path) -> Path:
        from asil.adapters.drawio.render import render_page

        return render_page(self.page(), path)

    @classmethod
    def readiness(cls) -> Readiness:
        return Readiness(True, "pure Python; rendering needs chromium and the mxgraph npm package "
                               "(scripts/install-drawio-renderer.sh)")



def load_document(path: Path, shown: str) -> Document:
    """Read a .drawio file, refusing unsafe or broken ones with one sentence."""
    valid = "Give a .drawio file saved by draw.io: <mxfile> with <diagram> pages, plain or compressed."
    if path.suffix.lower() not in (".drawio", ".dio"):
        raise DocumentError(f"{shown!r} is not a .drawio file.", hint=valid)
    if not path.is_file():
        raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=valid)
    try:
        return Document.parse(path.read_bytes())
    except UnsafeDocument as exc:
        raise DocumentError(f"{shown!r} cannot be opened: {exc}.", hint=valid) from None


def _form(page: Page) -> str:
    return "compressed" if page.compressed else "plain"


__all__ = ["DrawioAdapter", "load_document"]
