"""The Impress adapter: an .odp file, opened in a warm headless LibreOffice, seen as slides.

Slide ids are slide names (ASIL names unnamed slides ``slide-N`` once; the names stay in
the file), shape ids are ``<slide>/<shape name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from asil.adapters.impress import actions as act
from asil.adapters.lo_document import OfficeDocumentAdapter, Plan, create_with_engine
from asil.adapters.odf.access import AccessPaths
from asil.apps.libreoffice import Office
from asil.protocol import (
    Action,
    AppState,
    Element,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace

ENGINE = "asil_impress"
# The two access paths of the path-restriction study (docs/path_restriction.md).
ACCESS_PATHS = {
    "dispatch": "LibreOffice Impress (headless)",
    "file": "none: the ODF package's XML is read and written directly (lxml); no autolayout or rendering",
}


class ImpressAdapter(AccessPaths, OfficeDocumentAdapter):
    """A presentation: slides with their shapes, notes and transitions, windowed for long decks."""

    ENGINE = ENGINE
    KIND = "presentation"
    CREATING = ("add_slide", "duplicate_slide")
    DEFAULT_LIMIT, MAX_LIMIT = 6, 20
    MIMETYPE = b"application/vnd.oasis.opendocument.presentation"
    PDF_FILTER = "impress_pdf_Export"
    vocabulary = act.VOCABULARY
    functions = act.FUNCTIONS
    doomed_operation = {"op": "set_title", "params": {"slide": "slide-99", "text": "x"}}
    FILE_ENGINE = "asil.adapters.impress.file_engine:OdpFileEngine"
    ENGINE_NAMES = ACCESS_PATHS
    FILE_PATH_TIP = ("there is no autolayout or rendering: set_layout, add_slide with a layout no slide has yet, "
                     "and export_pdf are refused.")
    _ids: list[tuple[str, list[str]]] | None = None  # (slide id, shape names), read once per change

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 limit: int | None = None, access_path: str = "dispatch", **options: Any):
        self.choose_path(access_path)
        super().__init__(workspace, document, office=office, limit=limit, **options)

    _simulating = False  # planning a batch against a copy of _ids

    # ------------------------------------------------------------ state
    def slide_ids(self) -> list[tuple[str, list[str]]]:
        """(slide id, shape names) of every slide in order."""
        if self._ids is None:
            self._ids = [(s, list(shapes)) for s, shapes in self._call("ids")]
        return self._ids

    def read(self) -> list[dict[str, Any]]:
        """Every slide in full, for checkpoints."""
        result: list[dict[str, Any]] = self._call("read")
        return result

    def current_page(self) -> int:
        return self.offset + 1

    # ------------------------------------------------------------ observe
    def _observation(self, data: dict[str, Any]) -> Observation:
        elements: list[Element] = []
        for slide in data["slides"]:
            elements += slide_elements(slide)
        total, shown_to = data["total"], self.offset + len(data["slides"])
        summary = (f"Presentation: {total} slides. Showing slides {self.offset + 1}..{shown_to} in detail.")
        if shown_to < total:
            summary += f" {total - shown_to} more: navigate with params.offset={shown_to}."
        return Observation(
            metadata=Metadata(app="impress", source="file", step=self.step),
            app_state=AppState(view="slides", active_document=self.path.name, document_path=self.document,
                               dirty=data["dirty"], details={"slide_size_mm": data["slide_size_mm"]}),
            elements=elements,
            environment={**self.path_environment(), "units": "millimetres"},
            navigation=Navigation(views=["slides"], paging=Paging(offset=self.offset, limit=self.limit, total=total),
                                  meta={"slides": data["titles"]}),
            summary=summary,
        )

    def _goto(self, slide: str) -> None:
        names = [s for s, _ in self.slide_ids()]
        if slide not in names:
            raise InvalidAction(f"There is no slide with id {slide!r}.", hint="Use a slide id from the observation.",
                                code="no_slide")
        index = names.index(slide)
        if not self.offset <= index < self.offset + self.limit:
            self.offset = index

    # ------------------------------------------------------------ actions
    def _forget(self) -> None:
        self._ids = None

    def _find(self, ident: str) -> None:
        self.slide(ident)

    def _plan_set_value(self, action: Action) -> Plan:
        slide, shape = self.shape(action.target or "")
        text = self.vocabulary.parse_set_value(action).text
        return [{"op": "set_shape_text", "slide": slide, "shape": shape, "text": text}], [action.target or ""]

    def _plan_batch(self, action: Action, plan: Callable[[Action], Plan]) -> Plan:
        """Plan against a simulated slide list, so later actions may address slides added earlier."""
        saved = self._ids
        self._ids, self._simulating = [(s, list(shapes)) for s, shapes in self.slide_ids()], True
        try:
            return super()._plan_batch(action, plan)
        finally:
            self._ids, self._simulating = saved, False

    def predict_slide(self, position: int, shapes: list[str]) -> str:
        """The id the engine will give a new slide (next free slide-N); recorded while simulating a batch."""
        numbers = [int(s[6:]) for s, _ in self.slide_ids() if s.startswith("slide-") and s[6:].isdigit()]
        fresh = f"slide-{max(numbers, default=0) + 1}"
        if self._simulating:
            self.slide_ids().insert(position, (fresh, list(shapes)))
        return fresh

    def predict_removal(self, slide: str) -> None:
        """While simulating a batch, later members no longer see ``slide``."""
        if self._simulating:
            self._ids = [(s, shapes) for s, shapes in self.slide_ids() if s != slide]

    def predict_shape(self, slide: str, name: str) -> None:
        """While simulating a batch, later members see the shape ``name`` on ``slide``."""
        if self._simulating:
            self.slide(slide).append(name)

    def slide(self, slide: str) -> list[str]:
        """The shape names of ``slide``; InvalidAction (no_slide) when there is no such slide."""
        for name, shapes in self.slide_ids():
            if name == slide:
                return shapes
        raise InvalidAction(f"There is no slide with id {slide!r}.",
                            hint="Slide ids: " + ", ".join(s for s, _ in self.slide_ids()[:20]) + ".", code="no_slide")

    def shape(self, target: str) -> tuple[str, str]:
        """``(slide, shape)`` of a shape id ``<slide>/<shape>``; InvalidAction (no_shape, no_slide) otherwise."""
        slide, _, shape = target.rpartition("/")
        if not slide:
            raise InvalidAction(f"{target!r} is not a shape id.", hint="Shape ids look like slide-2/title.",
                                code="no_shape")
        shapes = self.slide(slide)
        if shape not in shapes:
            raise InvalidAction(f"Slide {slide} has no shape named {shape!r}.",
                                hint=f"Its shapes: {', '.join(shapes) or 'none'}.", code="no_shape")
        return slide, shape

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        create_presentation(workspace.resolve("sample.odp"), {"slides": [
            {"layout": "title_content", "title": "Roadmap", "body": ["Where we are", "Where we go"]},
        ]})
        return "sample.odp"


def create_presentation(path: Path, spec: dict[str, Any], office: Office | None = None) -> None:
    """Build an .odp with LibreOffice from ``{"slides": [...]}`` (atomic)."""
    create_with_engine(ENGINE, path, office, spec=spec)


def slide_elements(slide: dict[str, Any]) -> list[Element]:
    shapes = [shape_element(slide["id"], shape) for shape in slide["shapes"]]
    meta = {"index": slide["index"], "position": slide["index"] + 1, "layout": slide["layout"]}
    if slide["notes"]:
        meta["notes"] = slide["notes"]
    if slide["transition"]:
        meta["transition"] = slide["transition"]
    head = Element(id=slide["id"], type="slide", label=f"slide {slide['index'] + 1}", value=slide["title"],
                   data_type="text", children=[s.id for s in shapes],
                   actions=["set_title", "set_body", "set_notes", "move_slide", "duplicate_slide", "delete_slide",
                            "set_transition", "set_layout"], meta=meta)
    return [head, *shapes]


def shape_element(slide: str, shape: dict[str, Any]) -> Element:
    geometry = {k: shape[k] for k in ("x_mm", "y_mm", "width_mm", "height_mm")}
    has_text = "text" in shape
    return Element(id=f"{slide}/{shape['id']}", type=shape["kind"], value=shape.get("text"),
                   data_type="text" if has_text else None, constraints={"units": "mm"},
                   actions=(["set_value"] if has_text else []) + ["set_geometry", "delete_shape"], meta=geometry)


__all__ = ["ImpressAdapter", "create_presentation", "slide_elements"]
