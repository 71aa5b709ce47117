"""The Inkscape adapter: an .svg file parsed with lxml, seen as shapes, texts, groups and layers.

Every successful change is written back to the file atomically; exports and renders run the
real Inkscape command line on a copy of the current state.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.inkscape import actions as act
from asil.adapters.inkscape.observe import describe, element_of
from asil.adapters.inkscape.ops import FILE, FUNCTIONS, Commit, Editor
from asil.adapters.inkscape.svgdoc import LABEL, SvgDocument, parse_svg_bytes
from asil.protocol import (
    Action,
    ActionFailed,
    AppState,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace, atomic_write

if TYPE_CHECKING:
    from lxml.etree import _Element

DEFAULT_LIMIT = 40
DOCUMENT_VIEW = "document"
SAMPLE = """<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"
     width="400" height="200" viewBox="0 0 400 200">
  <g inkscape:groupmode="layer" id="layer1" inkscape:label="Layer 1">
    <rect id="box" x="20" y="20" width="100" height="60" style="fill:#3366cc;stroke:none"/>
    <circle cx="200" cy="100" r="30" fill="#ff9900"/>
    <text id="title" x="20" y="150" style="font-size:20px">Hello</text>
  </g>
</svg>
"""


class InkscapeAdapter(Adapter):
    """A vector drawing: elements are SVG items with stable ids; layers are views."""

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 **options: Any):
        super().__init__(workspace, document)
        self.path, document = self._open_document("an .svg document")
        self.doc = SvgDocument.load(self.path, document)
        self.view = DOCUMENT_VIEW
        self.offset, self.limit = 0, max(1, min(limit, act.MAX_LIMIT))
        self.editor = Editor(self.doc, lambda: None if self.view == DOCUMENT_VIEW else self.view, self)

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._set_view(view)
        if self.view != DOCUMENT_VIEW and self.doc.get(self.view) is None:
            self.view = DOCUMENT_VIEW  # the layer in view was deleted
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), act.MAX_LIMIT)
        scope = None if self.view == DOCUMENT_VIEW else self.doc.get(self.view)
        items = list(self.doc.items(scope))
        self.offset = min(self.offset, max(0, len(items) - 1))
        window = items[self.offset:self.offset + self.limit]
        elements = [element_of(self.doc, el) for el in window]
        layers = self.doc.layers()
        details = {"canvas": self.doc.canvas(), "elements_total": len(items),
                   "layers": [{"id": layer.get("id"), "label": layer.get(LABEL),
                               "hidden": self.doc.hidden(layer)} for layer in layers],
                   "new_shapes_go_to": self.editor.container(None).get("id")}
        return Observation(
            metadata=Metadata(app="inkscape", source="file", step=self.step),
            app_state=AppState(view=self.view, active_document=self.path.name, document_path=self.document,
                               dirty=bool(self.doc.assigned), details=details),
            elements=elements,
            environment={"engine": "lxml (SVG XML); Inkscape CLI for export and render",
                         "units": "document user units; y grows downwards"},
            navigation=Navigation(views=[DOCUMENT_VIEW, *(str(layer.get("id")) for layer in layers)],
                                  paging=Paging(offset=self.offset, limit=self.limit, total=len(items))),
            summary=describe(self.doc, self.view, self.offset, len(window), len(items), layers),
        )

    def _set_view(self, view: str) -> None:
        if view != DOCUMENT_VIEW:
            self.editor.layer(view)
        if view != self.view:
            self.view, self.offset = view, 0

    # ------------------------------------------------------------ actions
    vocabulary = act.VOCABULARY
    functions = FUNCTIONS
    doomed_operation = {"op": "restyle", "params": {"ids": ["no-such-element"], "style": {"fill": "#000000"}}}
    sample = SAMPLE

    def _check(self, action: Action) -> None:
        kind = action.action_type
        if kind == "batch":
            self._batch_actions(action)
        elif kind == "navigate":
            self.vocabulary.parse_navigate(action)
            if action.target and action.target != DOCUMENT_VIEW:
                self.editor.layer(action.target)
        else:
            self._plan(action)

    def _apply(self, action: Action) -> list[str]:
        kind = action.action_type
        if kind == "navigate":
            params = self.vocabulary.parse_navigate(action)
            self._set_view(action.target or self.view)
            self.offset = params.offset if params.offset is not None else self.offset
            self.limit = params.limit or self.limit
            return []
        if kind == "batch":
            return self._apply_batch(action)
        changed = self._plan(action)()
        if kind == "set_value" or self.functions[str(action.target)].acts_on != FILE:  # an edit: write it back
            self._write()
        return changed

    def _plan(self, action: Action) -> Commit:
        """Check one non-batch action and return its commit function."""
        self.vocabulary.require_type(action)
        if action.action_type == "set_value":
            params = self.vocabulary.parse_set_value(action)
            return self.editor.plan_set_text(act.SetText(id=action.target or "", text=params.value)
                                             if action.target else _no_target())
        function, params = self.functions.parse(action.target, action.params)
        return function.require_handler()(self.editor, params)

    def _batch_actions(self, action: Action) -> list[Action]:
        """The batch's members, each function's params checked (the state they act on comes only as they apply)."""
        subs = self.vocabulary.batch(action, self.functions)
        for index, sub in enumerate(subs, start=1):
            if sub.action_type == "invoke_function":
                try:
                    self.functions.parse(sub.target, sub.params)
                except InvalidAction as exc:
                    raise in_batch(exc, index) from None
        return subs

    def _apply_batch(self, action: Action) -> list[str]:
        subs = self._batch_actions(action)
        snapshot, assigned = self.doc.serialize(), set(self.doc.assigned)
        changed: list[str] = []
        for index, sub in enumerate(subs, start=1):
            try:
                changed += [c for c in self._plan(sub)() if c not in changed]
            except (InvalidAction, ActionFailed) as exc:
                self._restore(snapshot, assigned)
                raise in_batch(exc, index, "Nothing in the batch was applied.") from None
        self._write()
        return changed

    def _restore(self, snapshot: bytes, assigned: set[str]) -> None:
        self.doc = SvgDocument(parse_svg_bytes(snapshot, self.document or "document"))
        self.doc.assigned = assigned
        self.editor.doc = self.doc

    # ------------------------------------------------------------ files
    def _write(self) -> None:
        atomic_write(self.path, self.doc.serialize())
        self.doc.assigned.clear()  # the assigned ids are in the file now

    def save(self) -> None:
        """Write the document (changes are already written; this also persists assigned ids)."""
        if self.doc.assigned:
            self._write()

    def export_png(self, p: act.ExportPng) -> None:
        """Export the current state to PNG with the Inkscape command line (the export_png function)."""
        from asil.apps.inkscape import export_png

        target = self.workspace.resolve(p.path)
        with self._snapshot_file() as svg:
            export_png(svg, target, dpi=p.dpi, width=p.width, height=p.height, area=p.area, object_id=p.id)

    @contextmanager
    def _snapshot_file(self) -> Iterator[Path]:
        # outside the user's folder, so an export leaves nothing beside the document
        with tempfile.TemporaryDirectory(prefix="asil-ink-") as scratch:
            copy = Path(scratch) / self.path.name
            copy.write_bytes(self.doc.serialize())
            yield copy

    def render(self, path: Path) -> Path:
        """A PNG of the page as Inkscape draws the current state."""
        from asil.apps.inkscape import export_png

        with self._snapshot_file() as svg:
            export_png(svg, Path(path), area="page")
        return Path(path)

    # ------------------------------------------------------------ reading for checkpoints
    @contextmanager
    def as_saved(self) -> Iterator[_Element]:
        """The root with only the ids the file holds (ids assigned on open are hidden meanwhile)."""
        hidden = [(el, i) for i in self.doc.assigned if (el := self.doc.get(i)) is not None]
        for el, _ in hidden:
            del el.attrib["id"]
        try:
            yield self.doc.root
        finally:
            for el, element_id in hidden:
                el.set("id", element_id)

    @classmethod
    def readiness(cls) -> Readiness:
        from asil.apps.inkscape import inkscape_path

        try:
            import lxml  # noqa: F401
        except ImportError:
            return Readiness(False, "the Python package lxml is not installed (pip install 'asil[inkscape]')")
        if inkscape_path() is None:
            return Readiness(False, "Inkscape is not installed (apt-get install inkscape); editing works, export does not")
        return Readiness(True, "SVG through lxml; Inkscape CLI for export and render")



def _no_target() -> act.SetText:
    raise InvalidAction("set_value needs a target: the id of a text element.", hint='e.g. "target": "title"',
                        code="no_target")


__all__ = ["InkscapeAdapter"]
