"""Kdenlive's functions, each declared once with its parameters and its edit.

The order here is the order of the published schema. An edit changes a draft of the project
(:mod:`asil.adapters.kdenlive.edits`, :mod:`asil.adapters.kdenlive.tracks`). The outputs (the two
renders and ``save``) have no edit: the adapter runs them on the current state, so a batch,
which runs on a draft and is all or nothing, cannot hold them.
"""

from __future__ import annotations

from asil.adapters.functions import AppFunction, FunctionTable
from asil.adapters.kdenlive import actions as act
from asil.adapters.kdenlive import bin_actions as bact
from asil.adapters.kdenlive import bin_edits, edits
from asil.adapters.kdenlive.edits import Edit
from asil.adapters.kdenlive.tracks import delete_track, set_track
from asil.adapters.params import NoParams

FUNCTIONS: FunctionTable[Edit] = FunctionTable("kdenlive", [
    AppFunction("add_clip", act.AddClip, "Place a media file or colour clip on a track.", acts_on="clip",
                handler=edits.add_clip),
    AppFunction("move_clip", act.MoveClip, "Move a clip to a free span on its own or another track.", acts_on="clip",
                handler=edits.move_clip),
    AppFunction("trim_clip", act.TrimClip, "Change a clip's source in/out points.", acts_on="clip",
                handler=edits.trim_clip),
    AppFunction("split_clip", act.SplitClip, "Cut a clip in two at a timeline frame (filters are copied).",
                acts_on="clip", handler=edits.split_clip),
    AppFunction("delete_clip", act.DeleteClip, "Remove a clip, leaving a gap or rippling later clips left.",
                destructive=True, acts_on="clip", handler=edits.delete_clip),
    AppFunction("add_track", act.AddTrack, "Add an empty track on top of the others.", acts_on="track",
                handler=edits.add_track),
    AppFunction("delete_track", act.DeleteTrack, "Delete a track and its clips (not the last video track, not one "
                "a transition uses).", destructive=True, acts_on="track", handler=delete_track),
    AppFunction("set_track", act.SetTrack, "Rename a track, or hide/show its video and mute/unmute its audio.",
                acts_on="track", handler=set_track),
    AppFunction("add_filter", act.AddFilter, "Attach an MLT filter to a clip, a track or the whole timeline.",
                acts_on="filter", handler=edits.add_filter),
    AppFunction("set_filter", act.SetFilter, "Change a filter's properties.", acts_on="filter",
                handler=edits.set_filter),
    AppFunction("add_transition", act.AddTransition, "Add a transition between two tracks over a frame range.",
                acts_on="transition", handler=edits.add_transition),
    AppFunction("remove_effect", act.RemoveEffect, "Remove a filter or a transition.", destructive=True,
                acts_on="effect", handler=edits.remove_effect),
    AppFunction("set_profile", act.SetProfile, "Change the video profile: size, frame rate (clips keep their times "
                "in seconds), display aspect.", acts_on="profile", handler=edits.set_profile),
    AppFunction("add_guide", bact.AddGuide, "Add a guide (timeline marker) with a comment and a category.",
                acts_on="guide", handler=bin_edits.add_guide),
    AppFunction("set_guide", bact.SetGuide, "Change a guide's comment or category, or move it.", acts_on="guide",
                handler=bin_edits.set_guide),
    AppFunction("delete_guide", bact.DeleteGuide, "Delete the guide at a frame.", destructive=True, acts_on="guide",
                handler=bin_edits.delete_guide),
    AppFunction("add_clip_marker", bact.AddClipMarker, "Add a marker to a clip (in its source frames; every use "
                "of the clip shows it).", acts_on="bin_clip", handler=bin_edits.add_clip_marker),
    AppFunction("set_clip_marker", bact.SetClipMarker, "Change a clip marker's comment or category, or move it.",
                acts_on="bin_clip", handler=bin_edits.set_clip_marker),
    AppFunction("delete_clip_marker", bact.DeleteClipMarker, "Delete a clip's marker at a source frame.",
                destructive=True, acts_on="bin_clip", handler=bin_edits.delete_clip_marker),
    AppFunction("add_bin_clip", bact.AddBinClip, "Add a media file or colour to the project bin without placing it "
                "on the timeline.", acts_on="bin_clip", handler=bin_edits.add_bin_clip),
    AppFunction("set_bin_clip", bact.SetBinClip, "Rename a bin clip.", acts_on="bin_clip",
                handler=bin_edits.set_bin_clip),
    AppFunction("delete_bin_clip", bact.DeleteBinClip, "Remove a clip the timeline does not use from the bin.",
                destructive=True, acts_on="bin_clip", handler=bin_edits.delete_bin_clip),
    AppFunction("add_title", bact.AddTitle, "Create a title clip (Kdenlive's kdenlivetitle) in the bin; place it with "
                "add_clip source 'bin:ID'.", acts_on="bin_clip", handler=bin_edits.add_title),
    AppFunction("set_title", bact.SetTitle, "Change the text of a title clip (every use of it shows the new text).",
                acts_on="bin_clip", handler=bin_edits.set_title),
    AppFunction("render_video", act.RenderVideo, "Render the timeline (or a range) to a video file with melt.",
                acts_on="file", batch=False),
    AppFunction("render_frame", act.RenderFrame, "Render one timeline frame to a PNG with melt.", acts_on="file",
                batch=False),
    AppFunction("save", NoParams, "Write the project file now.", acts_on="file", batch=False),
])

