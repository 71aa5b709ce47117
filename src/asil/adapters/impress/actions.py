"""The Impress action vocabulary: parameter models, the functions with their planners, examples and tips.

A planner checks a function call against the presentation and turns it into engine steps and the
ids it changes (:data:`~asil.adapters.lo_document.Plan`); inside a batch it also records what the
steps will do to the slide list, so later members may address slides and shapes added earlier.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from asil.adapters.functions import FILE_ACTION_TYPES, MODIFY_FILE_TIP, FunctionTable, Vocabulary
from asil.adapters.lo_document import Plan, export_pdf_function, navigate_window, save_function
from asil.adapters.params import Params
from asil.protocol import InvalidAction

if TYPE_CHECKING:
    from asil.adapters.impress.adapter import ImpressAdapter

Layout = Literal["title_slide", "title_content", "title_two_content", "title_only", "blank", "centered_text"]
# The placeholders each layout creates, so a batch can address slides it adds itself.
LAYOUT_SHAPES = {"title_slide": ["title", "subtitle"], "title_content": ["title", "body"],
                 "title_two_content": ["title", "body"], "title_only": ["title"], "blank": [],
                 "centered_text": ["subtitle"]}
Effect = Literal["none", "fade", "push", "wipe", "cover"]
Body = Annotated[str, Field(max_length=20_000)] | Annotated[list[Annotated[str, Field(max_length=2000)]], Field(max_length=100)]
Position = Annotated[int, Field(ge=1)]
Mm = Annotated[float, Field(ge=-1000, le=3000)]
Name = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,40}$")]


class SetSlideText(Params):
    text: Body = Field(description="Text; a list of strings makes one paragraph (bullet) per item.")


class AddSlide(Params):
    position: Position | None = Field(None, description="1-based position of the new slide; last when omitted.")
    layout: Layout = "title_content"
    title: str | None = None
    body: Body | None = None


class SlideRef(Params):
    slide: str = Field(description="Slide id, e.g. slide-3.")


class MoveSlide(Params):
    slide: str
    position: Position = Field(description="The slide's new 1-based position.")


class SetText(Params):
    slide: str
    text: Body


class SetShapeText(Params):
    slide: str
    shape: str
    text: Body


class SetGeometry(Params):
    slide: str
    shape: str
    x_mm: Mm | None = None
    y_mm: Mm | None = None
    width_mm: Annotated[float, Field(gt=0, le=3000)] | None = None
    height_mm: Annotated[float, Field(gt=0, le=3000)] | None = None


class AddShape(Params):
    slide: str
    name: Name
    kind: Literal["rect", "ellipse", "text"] = "text"
    text: str | None = None
    x_mm: Mm
    y_mm: Mm
    width_mm: Annotated[float, Field(gt=0, le=3000)]
    height_mm: Annotated[float, Field(gt=0, le=3000)]


class ShapeRef(Params):
    slide: str
    shape: str


class SetNotes(Params):
    slide: str
    text: Annotated[str, Field(max_length=20_000)]


class SetTransition(Params):
    slides: Annotated[list[str], Field(min_length=1, max_length=1000)]
    effect: Effect


class SetLayout(Params):
    slide: str
    layout: Layout



class ExportPdf(Params):
    path: Annotated[str, Field(pattern=r"(?i)^[^\x00]+\.pdf$")]


Planner = Callable[["ImpressAdapter", Any], Plan]
FUNCTIONS: FunctionTable[Planner] = FunctionTable("impress")


@FUNCTIONS.function("add_slide", AddSlide, "Add a slide with a layout, title and body text.", acts_on="slides")
def add_slide(doc: ImpressAdapter, p: AddSlide) -> Plan:
    count = len(doc.slide_ids())
    position = count if p.position is None else min(p.position - 1, count)
    doc.predict_slide(position, LAYOUT_SHAPES[p.layout])
    return [{"op": "add_slide", "position": position, "layout": p.layout, "title": p.title, "body": p.body}], []


@FUNCTIONS.function("delete_slide", SlideRef, "Delete a slide.", destructive=True, acts_on="slides")
def delete_slide(doc: ImpressAdapter, p: SlideRef) -> Plan:
    doc.slide(p.slide)
    if len(doc.slide_ids()) == 1:
        raise InvalidAction("The last slide of a presentation cannot be deleted.", hint="Add another slide first.")
    doc.predict_removal(p.slide)
    return [{"op": "delete_slide", "slide": p.slide}], [p.slide]


@FUNCTIONS.function("duplicate_slide", SlideRef, "Copy a slide; the copy follows the original and gets a new id.",
                    acts_on="slides")
def duplicate_slide(doc: ImpressAdapter, p: SlideRef) -> Plan:
    shapes = doc.slide(p.slide)
    names = [s for s, _ in doc.slide_ids()]
    doc.predict_slide(names.index(p.slide) + 1, shapes)
    return [{"op": "duplicate_slide", "slide": p.slide}], []


@FUNCTIONS.function("move_slide", MoveSlide, "Move a slide to a new position.", acts_on="slides")
def move_slide(doc: ImpressAdapter, p: MoveSlide) -> Plan:
    doc.slide(p.slide)
    count = len(doc.slide_ids())
    if p.position > count:
        raise InvalidAction(f"Position {p.position} is past the last slide ({count}).",
                            hint=f"Use a position from 1 to {count}.", code="bad_params")
    return [{"op": "move_slide", "slide": p.slide, "position": p.position - 1}], [p.slide]


@FUNCTIONS.function("set_title", SetText, "Set the text of a slide's title placeholder.", acts_on="shapes")
def set_title(doc: ImpressAdapter, p: SetText) -> Plan:
    return _placeholder_text(doc, p, "title")


@FUNCTIONS.function("set_body", SetText,
                    "Set the text of a slide's body (or subtitle) placeholder; a list gives one bullet per item.",
                    acts_on="shapes")
def set_body(doc: ImpressAdapter, p: SetText) -> Plan:
    return _placeholder_text(doc, p, "body")


def _placeholder_text(doc: ImpressAdapter, p: SetText, role: str) -> Plan:
    doc.slide(p.slide)
    return [{"op": "set_text", "slide": p.slide, "role": role, "text": p.text}], [p.slide]


@FUNCTIONS.function("set_shape_text", SetShapeText, "Set the text of any shape that holds text.", acts_on="shapes")
def set_shape_text(doc: ImpressAdapter, p: SetShapeText) -> Plan:
    doc.shape(f"{p.slide}/{p.shape}")
    return [{"op": "set_shape_text", "slide": p.slide, "shape": p.shape, "text": p.text}], [f"{p.slide}/{p.shape}"]


@FUNCTIONS.function("set_geometry", SetGeometry,
                    "Move and/or resize a shape (millimetres from the slide's top-left corner).", acts_on="shapes")
def set_geometry(doc: ImpressAdapter, p: SetGeometry) -> Plan:
    doc.shape(f"{p.slide}/{p.shape}")
    geometry = {k: getattr(p, k) for k in ("x_mm", "y_mm", "width_mm", "height_mm") if getattr(p, k) is not None}
    if not geometry:
        raise InvalidAction("set_geometry needs at least one of x_mm, y_mm, width_mm, height_mm.",
                            hint='e.g. {"slide": "slide-2", "shape": "title", "y_mm": 15}.', code="bad_params")
    return [{"op": "set_geometry", "slide": p.slide, "shape": p.shape, "geometry": geometry}], [f"{p.slide}/{p.shape}"]


@FUNCTIONS.function("add_shape", AddShape, "Add a text box, rectangle or ellipse.", acts_on="shapes")
def add_shape(doc: ImpressAdapter, p: AddShape) -> Plan:
    if p.name in doc.slide(p.slide):
        raise InvalidAction(f"Slide {p.slide} already has a shape named {p.name!r}.", hint="Pick another name.")
    spec = p.model_dump(exclude={"slide"})
    doc.predict_shape(p.slide, p.name)
    return [{"op": "add_shape", "slide": p.slide, "spec": spec}], [f"{p.slide}/{p.name}"]


@FUNCTIONS.function("delete_shape", ShapeRef, "Delete a shape.", destructive=True, acts_on="shapes")
def delete_shape(doc: ImpressAdapter, p: ShapeRef) -> Plan:
    doc.shape(f"{p.slide}/{p.shape}")
    return [{"op": "delete_shape", "slide": p.slide, "shape": p.shape}], [f"{p.slide}/{p.shape}"]


@FUNCTIONS.function("set_notes", SetNotes, "Set a slide's speaker notes.", acts_on="slides")
def set_notes(doc: ImpressAdapter, p: SetNotes) -> Plan:
    doc.slide(p.slide)
    return [{"op": "set_notes", "slide": p.slide, "text": p.text}], [p.slide]


@FUNCTIONS.function("set_transition", SetTransition,
                    "Set the transition effect of slides (none, fade, push, wipe, cover).", acts_on="slides")
def set_transition(doc: ImpressAdapter, p: SetTransition) -> Plan:
    for slide in p.slides:
        doc.slide(slide)
    return [{"op": "set_transition", "slides": p.slides, "effect": p.effect}], list(p.slides)


@FUNCTIONS.function("set_layout", SetLayout, "Change a slide's layout (placeholders are added or removed).",
                    acts_on="slides")
def set_layout(doc: ImpressAdapter, p: SetLayout) -> Plan:
    doc.slide(p.slide)
    return [{"op": "set_layout", "slide": p.slide, "layout": p.layout}], [p.slide]


FUNCTIONS.add("export_pdf", export_pdf_function("presentation", ExportPdf))
FUNCTIONS.add("save", save_function("presentation"))


VOCABULARY = Vocabulary(
    app="impress",
    action_types=FILE_ACTION_TYPES,
    target_format="modify_file: the open document (or none); "
    "set_value: a shape id '<slide id>/<shape name>' (slide-2/title); invoke_function: a "
    "function name; navigate: a slide id",
    set_value_params=SetSlideText,
    navigate_params=navigate_window(20, "Index of the first slide to show.", "How many slides to show in detail."),
    batch_hint="Put only set_value and invoke_function editing actions in a batch.",
    examples=[
        {"action_type": "set_value", "target": "slide-1/title", "params": {"text": "Roadmap 2025"}},
        {"action_type": "invoke_function", "target": "add_slide",
         "params": {"layout": "title_content", "title": "Goals", "body": ["Grow revenue", "Hire two engineers"]}},
        {"action_type": "invoke_function", "target": "set_notes", "params": {"slide": "slide-1", "text": "Welcome everyone."}},
        {"action_type": "invoke_function", "target": "set_geometry",
         "params": {"slide": "slide-1", "shape": "title", "x_mm": 20, "y_mm": 10, "width_mm": 240}},
        {"action_type": "invoke_function", "target": "duplicate_slide", "params": {"slide": "slide-1"}},
        {"action_type": "invoke_function", "target": "move_slide", "params": {"slide": "slide-1", "position": 2}},
        {"action_type": "invoke_function", "target": "set_transition", "params": {"slides": ["slide-1"], "effect": "fade"}},
        {"action_type": "navigate", "target": "slide-1", "params": {"limit": 5}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "set_title", "params": {"slide": "slide-1", "text": "Agenda"}},
            {"action_type": "invoke_function", "target": "set_body",
             "params": {"slide": "slide-1", "text": ["Intro", "Plan"]}}]}},
        {"action_type": "modify_file", "params": {"operations": [
            {"op": "set_title", "params": {"slide": "slide-1", "text": "Plan"}},
            {"op": "set_notes", "params": {"slide": "slide-1", "text": "Keep it short."}}]}},
    ],
    tips=[
        "Slide ids (slide-3) stay with their slide when slides are added, moved or deleted; shape ids are "
        "'<slide id>/<shape name>', e.g. slide-3/title, slide-3/body.",
        "set_value on slide-3/title or any text shape id sets its text; a list of strings makes one bullet per item.",
        "Geometry is in millimetres from the slide's top-left corner; the slide size is in app_state.details.",
        "Large presentations show a window of slides in detail and all titles in navigation; navigate to page.",
        "A batch is atomic: if one action fails, none of it is applied.",
        MODIFY_FILE_TIP,
    ],
)
