"""The Impress adapter: an .odp file, opened in a warm headless LibreOffice, seen as slides.

Slide ids are slide names (ASIL names unnamed slides ``slide-N`` once; the names stay in
the file), shape ids are ``<slide>/<shape name>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from asil.adapters.impress import actions as act
from asil.adapters.lo_document import OfficeDocumentAdapter, Plan, create_with_engine
from asil.adapters.params import NoParams, parse_params
from asil.apps.libreoffice import Office
from asil.protocol import (
    Action,
    ActionSchema,
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
DEFAULT_LIMIT = 6
# The placeholders each layout creates, so a batch can address slides it adds itself.
LAYOUT_SHAPES = {"title_slide": ["title", "subtitle"], "title_content": ["title", "body"],
                 "title_two_content": ["title", "body"], "title_only": ["title"], "blank": [],
                 "centered_text": ["subtitle"]}


class ImpressAdapter(OfficeDocumentAdapter):
    """A presentation: slides with their shapes, notes and transitions, windowed for long decks."""

    ENGINE = ENGINE
    KIND = "presentation"
    CREATING = ("add_slide", "duplicate_slide")
    NAVIGATE = act.Navigate
    BATCH = act.Batch
    MIMETYPE = b"application/vnd.oasis.opendocument.presentation"
    PDF_FILTER = "impress_pdf_Export"

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 limit: int = DEFAULT_LIMIT, **options: Any):
        super().__init__(workspace, document, office=office)
        self.offset, self.limit = 0, limit
        self._ids: list[tuple[str, list[str]]] | None = None
        self._simulating = False

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

    @property
    def dirty(self) -> bool:
        return bool(self._call("dirty"))

    def current_page(self) -> int:
        return self.offset + 1

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._goto(view)
        if offset is not None:
            self.offset = max(0, offset)
        if limit is not None:
            self.limit = max(1, min(limit, 20))
        data = self._call("observe", offset=self.offset, limit=self.limit)
        if self.offset >= data["total"] > 0:
            self.offset = max(0, data["total"] - self.limit)
            data = self._call("observe", offset=self.offset, limit=self.limit)
        return self._observation(data)

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
            environment={"engine": "LibreOffice Impress (headless)", "units": "millimetres"},
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
    @classmethod
    def action_schema(cls) -> ActionSchema:
        return act.build_schema()

    def _forget(self) -> None:
        self._ids = None

    def _find(self, ident: str) -> None:
        self._slide(ident)

    def _plan_set_value(self, action: Action) -> Plan:
        slide, shape = self._shape(action.target or "")
        text = parse_params(act.SetSlideText, action.params, "set_value").text
        return [{"op": "set_shape_text", "slide": slide, "shape": shape, "text": text}], [action.target or ""]

    def _plan_function(self, name: str | None, params: dict[str, Any]) -> Plan:
        if name not in act.FUNCTIONS:
            raise InvalidAction(f"Unknown impress function {name!r}.", hint=f"Functions: {', '.join(act.FUNCTIONS)}.",
                                code="unknown_function")
        parsed = parse_params(act.FUNCTIONS[name][0], params, name)
        plan: Plan = getattr(self, f"_fn_{name}")(parsed)
        return plan

    def _plan_batch(self, actions: list[dict[str, Any]]) -> Plan:
        """Plan against a simulated slide list, so later actions may address slides added earlier."""
        saved = self._ids
        self._ids, self._simulating = [(s, list(shapes)) for s, shapes in self.slide_ids()], True
        try:
            return super()._plan_batch(actions)
        finally:
            self._ids, self._simulating = saved, False

    def _predict(self, position: int, shapes: list[str]) -> str:
        """The id the engine will give a new slide (next free slide-N); recorded while simulating a batch."""
        numbers = [int(s[6:]) for s, _ in self.slide_ids() if s.startswith("slide-") and s[6:].isdigit()]
        fresh = f"slide-{max(numbers, default=0) + 1}"
        if self._simulating:
            self.slide_ids().insert(position, (fresh, list(shapes)))
        return fresh

    def _slide(self, slide: str) -> list[str]:
        for name, shapes in self.slide_ids():
            if name == slide:
                return shapes
        raise InvalidAction(f"There is no slide with id {slide!r}.",
                            hint="Slide ids: " + ", ".join(s for s, _ in self.slide_ids()[:20]) + ".", code="no_slide")

    def _shape(self, target: str) -> tuple[str, str]:
        slide, _, shape = target.rpartition("/")
        if not slide:
            raise InvalidAction(f"{target!r} is not a shape id.", hint="Shape ids look like slide-2/title.",
                                code="no_shape")
        shapes = self._slide(slide)
        if shape not in shapes:
            raise InvalidAction(f"Slide {slide} has no shape named {shape!r}.",
                                hint=f"Its shapes: {', '.join(shapes) or 'none'}.", code="no_shape")
        return slide, shape

    # ------------------------------------------------------------ function planners
    def _fn_add_slide(self, p: act.AddSlide) -> Plan:
        count = len(self.slide_ids())
        position = count if p.position is None else min(p.position - 1, count)
        self._predict(position, LAYOUT_SHAPES[p.layout])
        return [{"op": "add_slide", "position": position, "layout": p.layout, "title": p.title, "body": p.body}], []

    def _fn_delete_slide(self, p: act.SlideRef) -> Plan:
        self._slide(p.slide)
        if len(self.slide_ids()) == 1:
            raise InvalidAction("The last slide of a presentation cannot be deleted.", hint="Add another slide first.")
        if self._simulating:
            self._ids = [(s, shapes) for s, shapes in self.slide_ids() if s != p.slide]
        return [{"op": "delete_slide", "slide": p.slide}], [p.slide]

    def _fn_duplicate_slide(self, p: act.SlideRef) -> Plan:
        shapes = self._slide(p.slide)
        names = [s for s, _ in self.slide_ids()]
        self._predict(names.index(p.slide) + 1, shapes)
        return [{"op": "duplicate_slide", "slide": p.slide}], []

    def _fn_move_slide(self, p: act.MoveSlide) -> Plan:
        self._slide(p.slide)
        count = len(self.slide_ids())
        if p.position > count:
            raise InvalidAction(f"Position {p.position} is past the last slide ({count}).",
                                hint=f"Use a position from 1 to {count}.", code="bad_params")
        return [{"op": "move_slide", "slide": p.slide, "position": p.position - 1}], [p.slide]

    def _placeholder_text(self, p: act.SetText, role: str) -> Plan:
        self._slide(p.slide)
        return [{"op": "set_text", "slide": p.slide, "role": role, "text": p.text}], [p.slide]

    def _fn_set_title(self, p: act.SetText) -> Plan:
        return self._placeholder_text(p, "title")

    def _fn_set_body(self, p: act.SetText) -> Plan:
        return self._placeholder_text(p, "body")

    def _fn_set_shape_text(self, p: act.SetShapeText) -> Plan:
        self._shape(f"{p.slide}/{p.shape}")
        return [{"op": "set_shape_text", "slide": p.slide, "shape": p.shape, "text": p.text}], [f"{p.slide}/{p.shape}"]

    def _fn_set_geometry(self, p: act.SetGeometry) -> Plan:
        self._shape(f"{p.slide}/{p.shape}")
        geometry = {k: getattr(p, k) for k in ("x_mm", "y_mm", "width_mm", "height_mm") if getattr(p, k) is not None}
        if not geometry:
            raise InvalidAction("set_geometry needs at least one of x_mm, y_mm, width_mm, height_mm.",
                                hint='e.g. {"slide": "slide-2", "shape": "title", "y_mm": 15}.', code="bad_params")
        return [{"op": "set_geometry", "slide": p.slide, "shape": p.shape, "geometry": geometry}], [f"{p.slide}/{p.shape}"]

    def _fn_add_shape(self, p: act.AddShape) -> Plan:
        if p.name in self._slide(p.slide):
            raise InvalidAction(f"Slide {p.slide} already has a shape named {p.name!r}.", hint="Pick another name.")
        spec = p.model_dump(exclude={"slide"})
        if self._simulating:
            self._slide(p.slide).append(p.name)
        return [{"op": "add_shape", "slide": p.slide, "spec": spec}], [f"{p.slide}/{p.name}"]

    def _fn_delete_shape(self, p: act.ShapeRef) -> Plan:
        self._shape(f"{p.slide}/{p.shape}")
        return [{"op": "delete_shape", "slide": p.slide, "shape": p.shape}], [f"{p.slide}/{p.shape}"]

    def _fn_set_notes(self, p: act.SetNotes) -> Plan:
        self._slide(p.slide)
        return [{"op": "set_notes", "slide": p.slide, "text": p.text}], [p.slide]

    def _fn_set_transition(self, p: act.SetTransition) -> Plan:
        for slide in p.slides:
            self._slide(slide)
        return [{"op": "set_transition", "slides": p.slides, "effect": p.effect}], list(p.slides)

    def _fn_set_layout(self, p: act.SetLayout) -> Plan:
        self._slide(p.slide)
        return [{"op": "set_layout", "slide": p.slide, "layout": p.layout}], [p.slide]

    def _fn_export_pdf(self, p: act.ExportPdf) -> Plan:
        self.workspace.resolve(p.path)
        return [{"op": "export_pdf", "path": p.path}], []

    def _fn_save(self, p: NoParams) -> Plan:
        return [{"op": "save"}], []

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        create_presentation(workspace.resolve("sample.odp"), {"slides": [
            {"layout": "title_content", "title": "Roadmap", "body": ["Where we are", "Where we go"]},
        ]})
        return "sample.odp"


def create_presentation(path: Path, spec: dict[str, Any], office: Office | None = None) -> None:
    """Build an .odp with LibreOffice from ``{"slides": [...]}`` (atomic)."""
    create_with_engine(ENGINE, path, spec, office)


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
