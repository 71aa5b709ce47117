"""multi-a tasks around Audacity and Kdenlive: label times, clip spans and exported frames crossing apps."""

from __future__ import annotations

from typing import Any

from multi_a_parts import Json, audio, call, clip, cp, deck, document, image, labels, look, para, project, sheet, task

RED = clip("kdenlive/red.mp4", "red", 2, 440)
BLUE = clip("kdenlive/blue.mp4", "blue", 2, 660)
GREEN = clip("kdenlive/green.mp4", "green", 3, 880)
TWO_CLIPS = [{"id": "V1", "name": "Video 1", "clips": [{"id": "red", "source": "red.mp4", "start": 0, "in": 0, "out": 49},
                                                       {"id": "blue", "source": "blue.mp4", "start": 50, "in": 0, "out": 49}]}]
LOG_HEAD = [para("Edit log", "Title"), para("Kept by the video team.")]


def title_card_to_timeline() -> Json:
    layers = [{"name": "Band", "x": 0, "y": 30, "width": 160, "height": 30, "color": [20, 40, 90]},
              {"name": "Accent", "x": 10, "y": 36, "width": 18, "height": 18, "color": [240, 180, 30]}]
    return task("title-card-to-timeline", ["gimp", "kdenlive"], "video",
                "Export title.xcf (app gimp) as a PNG into the video project's folder, kdenlive/title.png, at its "
                "full size. Then in edit.kdenlive (app kdenlive) put that image at the end of track V1, right after "
                "the blue clip, for exactly 2 seconds (the project runs at 25 fps).",
                [image("gimp/title.xcf", 160, 90, layers), RED, BLUE, project(TWO_CLIPS)],
                [[cp("gimp_image_size", "gimp", None, "kdenlive/title.png", [160, 90]),
                  cp("kdenlive_track_clips", "kdenlive", "kdenlive/edit.kdenlive", "V1",
                     [["red.mp4", 0, 50], ["blue.mp4", 50, 100], ["title.png", 100, 150]])]],
                [call("gimp", "export_image", path="kdenlive/title.png"),
                 call("kdenlive", "add_clip", track="V1", source="kdenlive/title.png", in_frame=0, out_frame=49)])


def labels_to_sheet() -> Json:
    marks = [[0.0, 0.0, "Intro"], [4.5, 4.5, "Question 1"], [11.25, 11.25, "Question 2"]]
    return task("labels-to-sheet", ["audacity", "calc"], "audio",
                "interview.wav (app audacity) has point labels marking its chapters. List them in chapters.ods (app "
                "calc), sheet Chapters, from row 2 down in time order: the label's time in seconds (a number) in "
                "column A and its text in column B.",
                [audio("audacity/interview.wav", 15), labels("audacity/interview.labels.txt", marks),
                 sheet("calc/chapters.ods", "Chapters", [["Start (s)", "Chapter"]])],
                [[cp("range_values", "calc", "calc/chapters.ods", "Chapters!A2:B4",
                     [[0, "Intro"], [4.5, "Question 1"], [11.25, "Question 2"]])]],
                [look("audacity"), call("calc", "set_range", range="Chapters!A2",
                                        values=[[0, "Intro"], [4.5, "Question 1"], [11.25, "Question 2"]])],
                open_={"audacity": "audacity/interview.wav"})


def label_splits_clip() -> Json:
    long_red = clip("kdenlive/red.mp4", "red", 5, 440)
    track = [{"id": "V1", "name": "Video 1", "clips": [{"id": "take", "source": "red.mp4", "start": 0, "in": 0, "out": 124}]}]
    return task("label-splits-clip", ["audacity", "kdenlive"], "video",
                "The editor marked where the take must be cut with the label 'Cut' in voice.wav (app audacity). In "
                "edit.kdenlive (app kdenlive, 25 fps), split the clip on track V1 at that time.",
                [audio("audacity/voice.wav", 5), labels("audacity/voice.labels.txt", [[2.4, 2.4, "Cut"]]), long_red,
                 project(track)],
                [[cp("kdenlive_track_clips", "kdenlive", "kdenlive/edit.kdenlive", "V1",
                     [["red.mp4", 0, 60], ["red.mp4", 60, 125]])]],
                [look("audacity"), call("kdenlive", "split_clip", clip="take", at=60)],
                open_={"audacity": "audacity/voice.wav"})


def jingle_length_to_memo() -> Json:
    blocks = [*LOG_HEAD, para("Media", "Heading 1"), {"table": [["Asset", "Seconds"], ["jingle.wav", ""]], "name": "Media"}]
    return task("jingle-length-to-report", ["audacity", "writer"], "audio",
                "In media.odt (app writer), fill the Seconds cell of the jingle.wav row of the Media table with the "
                "length of jingle.wav (app audacity) in seconds, written with two decimals (e.g. 3.50).",
                [audio("audacity/jingle.wav", 7.25), document("writer/media.odt", blocks)],
                [[cp("table_rows", "writer", "writer/media.odt", "Media", [["Asset", "Seconds"], ["jingle.wav", "7.25"]])]],
                [look("audacity"), call("writer", "set_table_cells", table="Media", cell="B2", values=[["7.25"]])])


def sheet_trims_clip() -> Json:
    rows: list[list[Any]] = [["Clip", "Length (s)", "Cut (s)", "Keep (s)"], ["blue", 2, 0.8, "=B2-C2"]]
    return task("sheet-trims-clip", ["calc", "kdenlive"], "video",
                "cuts.ods (app calc), sheet Cuts, says how many seconds of the blue clip to keep (column D). In "
                "edit.kdenlive (app kdenlive, 25 fps), trim the blue clip on V1 to that length, keeping its start "
                "where it is.",
                [sheet("calc/cuts.ods", "Cuts", rows), RED, BLUE, project(TWO_CLIPS)],
                [[cp("kdenlive_track_clips", "kdenlive", "kdenlive/edit.kdenlive", "V1",
                     [["red.mp4", 0, 50], ["blue.mp4", 50, 80]])]],
                [look("calc", "Cuts"), call("kdenlive", "trim_clip", clip="blue", out_frame=29)])


def timeline_to_sheet() -> Json:
    track = [{"id": "V1", "name": "Video 1", "clips": [
        {"id": "red", "source": "red.mp4", "start": 0, "in": 0, "out": 49},
        {"id": "blue", "source": "blue.mp4", "start": 75, "in": 0, "out": 49},
        {"id": "green", "source": "green.mp4", "start": 150, "in": 0, "out": 74}]}]
    rows: list[list[Any]] = [["Clip", "Start (s)", "End (s)"], ["red.mp4"], ["blue.mp4"], ["green.mp4"]]
    return task("timeline-to-sheet", ["kdenlive", "calc"], "video",
                "clips.ods (app calc), sheet Timeline, lists the clips of track V1 of edit.kdenlive (app kdenlive, 25 "
                "fps). Fill in where each clip starts and ends on the timeline, in seconds, as numbers (the end is "
                "where the clip stops, e.g. a clip from frame 0 to 24 ends at 1).",
                [RED, BLUE, GREEN, project(track), sheet("calc/clips.ods", "Timeline", rows)],
                [[cp("range_values", "calc", "calc/clips.ods", "Timeline!B2:C4", [[0, 2], [3, 5], [6, 9]])]],
                [look("kdenlive"), call("calc", "set_range", range="Timeline!B2", values=[[0, 2], [3, 5], [6, 9]])])


def cut_label_split_log() -> Json:
    long_red = clip("kdenlive/red.mp4", "red", 6, 440)
    track = [{"id": "V1", "name": "Video 1", "clips": [{"id": "take", "source": "red.mp4", "start": 0, "in": 0, "out": 149}]}]
    blocks = [*LOG_HEAD, {"table": [["Event", "Frame"], ["Cut", ""]], "name": "Log"}]
    return task("cut-label-split-and-log", ["audacity", "kdenlive", "writer"], "video",
                "voice.wav (app audacity) has a label 'Cut'. Split the clip on track V1 of edit.kdenlive (app "
                "kdenlive, 25 fps) at that time, and write the timeline frame where you split into the Frame cell "
                "of the 'Cut' row of the Log table in log.odt (app writer).",
                [audio("audacity/voice.wav", 6), labels("audacity/voice.labels.txt", [[3.2, 3.2, "Cut"]]), long_red,
                 project(track), document("writer/log.odt", blocks)],
                [[cp("kdenlive_track_clips", "kdenlive", "kdenlive/edit.kdenlive", "V1",
                     [["red.mp4", 0, 80], ["red.mp4", 80, 150]]),
                  cp("table_rows", "writer", "writer/log.odt", "Log", [["Event", "Frame"], ["Cut", "80"]])]],
                [look("audacity"), call("kdenlive", "split_clip", clip="take", at=80),
                 call("writer", "set_table_cells", table="Log", cell="B2", values=[["80"]])],
                open_={"audacity": "audacity/voice.wav"})


def tone_from_sheet() -> Json:
    rows: list[list[Any]] = [["Setting", "Value"], ["Base (Hz)", 330], ["Multiplier", 2], ["Test tone (Hz)", "=B2*B3"]]
    quiet = [{"kind": "sine", "frequency": 220, "amplitude": 0.1, "start": 0.0, "end": 2}]
    return task("test-tone-from-sheet", ["calc", "audacity", "impress"], "audio",
                "sound.ods (app calc), sheet Check, computes the test-tone frequency in B4. Append a 1-second tone "
                "at that frequency (amplitude 0.5) right after the end of check.wav (app audacity), so it becomes "
                "3 seconds long, and add a last slide to deck.odp (app impress) titled 'Sound check' with the bullet "
                "'Test tone: F Hz' (F the frequency).",
                [sheet("calc/sound.ods", "Check", rows), audio("audacity/check.wav", 2, quiet), deck()],
                [[cp("audio_duration", "audacity", None, "audacity/check.wav", 3.0, tolerance=0.02),
                  cp("audio_frequency", "audacity", None, "audacity/check.wav@2.1-2.9", 660, tolerance=10),
                  cp("slide_text", "impress", "impress/deck.odp", "6", r"^Sound check\nTest tone: 660 Hz$")]],
                [look("calc", "Check"),
                 call("audacity", "generate_tone", start=2.0, duration=1.0, frequency=660, amplitude=0.5, name="Tone"),
                 call("impress", "add_slide", layout="title_content", title="Sound check", body=["Test tone: 660 Hz"])])


TASKS = [title_card_to_timeline(), labels_to_sheet(), label_splits_clip(), jingle_length_to_memo(), sheet_trims_clip(),
         timeline_to_sheet(), cut_label_split_log(), tone_from_sheet()]
