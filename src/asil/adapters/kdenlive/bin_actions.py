"""Parameters of the guide, clip marker, bin and title functions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from asil.adapters.kdenlive.actions import Frame, IdText
from asil.adapters.params import Params

Comment = Annotated[str, Field(max_length=200, pattern=r"^[^\x00-\x1f<>]*$")]
Category = Annotated[int, Field(ge=0, le=99, description="Marker category index (0 = Category 1; nine by default).")]
TitleText = Annotated[str, Field(min_length=1, max_length=500, pattern=r"^[^\x00-\x09\x0b-\x1f]*$")]
ClipRef = Annotated[str, Field(min_length=1, max_length=200, description="A bin clip (its id, name or source) or a "
                               "timeline clip id (its bin clip is meant).")]


class AddGuide(Params):
    frame: Frame = Field(description="Timeline frame of the new guide (one guide per frame).")
    comment: Comment = Field("", description="The guide's comment (shown on the ruler).")
    category: Category = 0


class SetGuide(Params):
    frame: Frame = Field(description="Frame of the guide to change.")
    comment: Comment | None = None
    category: Category | None = None
    new_frame: Frame | None = Field(None, description="Move the guide to this frame.")


class DeleteGuide(Params):
    frame: Frame = Field(description="Frame of the guide to delete.")


class AddClipMarker(Params):
    clip: ClipRef
    frame: Frame = Field(description="Source frame of the clip (0 = its first frame), one marker per frame.")
    comment: Comment = ""
    category: Category = 0


class SetClipMarker(Params):
    clip: ClipRef
    frame: Frame = Field(description="Source frame of the marker to change.")
    comment: Comment | None = None
    category: Category | None = None
    new_frame: Frame | None = Field(None, description="Move the marker to this source frame.")


class DeleteClipMarker(Params):
    clip: ClipRef
    frame: Frame = Field(description="Source frame of the marker to delete.")


class AddBinClip(Params):
    source: str = Field(min_length=1, max_length=500, description="Workspace media path or 'color:#rrggbb'.")
    name: Comment | None = Field(None, description="Name shown in the bin; the file name when omitted.")
    id: IdText | None = Field(None, description="Id of the bin clip; generated when omitted.")


class SetBinClip(Params):
    clip: ClipRef
    name: Comment = Field(description="New name shown in the bin ('' shows the source).")


class DeleteBinClip(Params):
    clip: ClipRef


class AddTitle(Params):
    text: TitleText = Field(description="The title's text (newlines allowed).")
    name: Comment | None = Field(None, description="Name shown in the bin; the text when omitted.")
    id: IdText | None = Field(None, description="Id of the title's bin clip; generated when omitted.")
    duration: Annotated[int, Field(ge=1, le=100_000)] = Field(125, description="Default length in frames "
                                                                "(the clip can be trimmed or placed longer).")
    size: Annotated[int, Field(ge=4, le=1000)] | None = Field(None, description="Font pixel size; a sixth of the "
                                                              "frame height when omitted.")
    colour: Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")] = Field("#ffffff", description="Text colour.")


class SetTitle(Params):
    clip: ClipRef
    text: TitleText
    item: Annotated[int, Field(ge=0, le=99)] = Field(0, description="Which text item of the title (0 = the first).")
