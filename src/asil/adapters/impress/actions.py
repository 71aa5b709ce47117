"""The Impress action vocabulary: parameter models, the published schema, examples and tips."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.params import NoParams, Params, finish_tip, function_specs
from asil.protocol import Action, ActionSchema

MAX_BATCH = 200
Layout = Literal["title_slide", "title_content", "title_two_content", "title_only", "blank", "centered_text"]
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


class Navigate(Params):
    offset: Annotated[int, Field(ge=0)] | None = Field(None, description="Index of the first slide to show.")
    limit: Annotated[int, Field(ge=1, le=20)] | None = Field(None, description="How many slides to show in detail.")


class Batch(Params):
    actions: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=MAX_BATCH)]


FUNCTIONS: dict[str, tuple[type[Params], str, bool]] = {
    "add_slide": (AddSlide, "Add a slide with a layout, title and body text.", False),
    "delete_slide": (SlideRef, "Delete a slide.", True),
    "duplicate_slide": (SlideRef, "Copy a slide; the copy follows the original and gets a new id.", False),
    "move_slide": (MoveSlide, "Move a slide to a new position.", False),
    "set_title": (SetText, "Set the text of a slide's title placeholder.", False),
    "set_body": (SetText, "Set the text of a slide's body (or subtitle) placeholder; a list gives one bullet per item.", False),
    "set_shape_text": (SetShapeText, "Set the text of any shape that holds text.", False),
    "set_geometry": (SetGeometry, "Move and/or resize a shape (millimetres from the slide's top-left corner).", False),
    "add_shape": (AddShape, "Add a text box, rectangle or ellipse.", False),
    "delete_shape": (ShapeRef, "Delete a shape.", True),
    "set_notes": (SetNotes, "Set a slide's speaker notes.", False),
    "set_transition": (SetTransition, "Set the transition effect of slides (none, fade, push, wipe, cover).", False),
    "set_layout": (SetLayout, "Change a slide's layout (placeholders are added or removed).", False),
    "export_pdf": (ExportPdf, "Export the presentation as PDF through LibreOffice.", False),
    "save": (NoParams, "Write the presentation to disk now (it is also saved when the episode ends).", False),
}

EXAMPLES = [
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
        {"action_type": "invoke_function", "target": "set_body", "params": {"slide": "slide-1", "text": ["Intro", "Plan"]}}]}},
    {"action_type": "done", "params": {"answer": "optional text answer"}},
]

TIPS = [
    "Slide ids (slide-3) stay with their slide when slides are added, moved or deleted; shape ids are "
    "'<slide id>/<shape name>', e.g. slide-3/title, slide-3/body.",
    "set_value on slide-3/title or any text shape id sets its text; a list of strings makes one bullet per item.",
    "Geometry is in millimetres from the slide's top-left corner; the slide size is in app_state.details.",
    "Large presentations show a window of slides in detail and all titles in navigation; navigate to page.",
    "A batch is atomic: if one action fails, none of it is applied.",
    finish_tip(),
]


def build_schema() -> ActionSchema:
    return ActionSchema(
        app="impress",
        action_types=["set_value", "invoke_function", "navigate", "batch", "done", "infeasible"],
        target_format="set_value: a shape id '<slide id>/<shape name>' (slide-2/title); invoke_function: a "
        "function name; navigate: a slide id",
        functions=function_specs(FUNCTIONS),
        set_value_params=SetSlideText.model_json_schema(),
        navigate_params=Navigate.model_json_schema(),
        examples=[Action.model_validate(e) for e in EXAMPLES],
        tips=TIPS,
    )
