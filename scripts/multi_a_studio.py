"""multi-a tasks that end in OBS: exported stills, clips and sounds shown as sources, names and sizes from other apps."""

from __future__ import annotations

from typing import Any

from multi_a_parts import (
    BREAK_SOURCES,
    DECK,
    MAIN_SOURCES,
    Json,
    audio,
    blend,
    call,
    clip,
    cp,
    deck,
    document,
    drawio,
    image,
    labels,
    look,
    obs,
    para,
    project,
    sheet,
    svg,
    task,
)

DOC = "obs/scenes.json"
BACKDROP_ONLY = [{"name": "Backdrop", "kind": "color", "settings": {"color": "#1E1E2E", "width": 640, "height": 360}}]
BRIEF_HEAD = [para("Episode 12 – production brief", "Title"), para("Recording on Thursday in studio B.")]


def logo_export_to_obs() -> Json:
    layers = [{"name": "Mark", "shape": "ellipse", "x": 8, "y": 8, "width": 48, "height": 48, "color": [230, 57, 70]}]
    paths = [[cp("gimp_file_format", "gimp", None, f"obs/logo.{ext}", fmt),
              cp("gimp_image_size", "gimp", None, f"obs/logo.{ext}", [64, 64]),
              cp("obs_input_value", "obs", DOC, "Logo.settings.file", f"obs/logo.{ext}"),
              cp("obs_scene_sources", "obs", DOC, "Main", [*MAIN_SOURCES, "Logo"])]
             for ext, fmt in (("png", "PNG"), ("jpg", "JPEG"))]
    return task("logo-export-to-obs", ["gimp", "obs"], "streaming",
                "Export logo.xcf (app gimp) at full size into OBS's folder as obs/logo.png or obs/logo.jpg, then show "
                "that file in the Main scene of OBS (app obs) as an image source named 'Logo'.",
                [image("gimp/logo.xcf", 64, 64, layers), obs()], paths,
                [call("gimp", "export_image", path="obs/logo.png"),
                 call("obs", "add_input", scene="Main", name="Logo", kind="image", file="obs/logo.png")])


def render_still_to_obs() -> Json:
    return task("render-still-to-obs", ["blender", "obs"], "streaming",
                "Render a still of scene.blend (app blender) 160 pixels wide, with the height that keeps the scene's "
                "own render aspect ratio, to obs/still.png. Then add it to the Break scene of OBS (app obs) as an "
                "image source named 'Still'.",
                [blend(), obs()],
                [[cp("blender_image_size", "blender", None, "obs/still.png", [160, 90]),
                  cp("obs_input_value", "obs", DOC, "Still.settings.file", "obs/still.png"),
                  cp("obs_scene_sources", "obs", DOC, "Break", [*BREAK_SOURCES, "Still"])]],
                [call("blender", "render_frame", path="obs/still.png", width=160, height=90),
                 call("obs", "add_input", scene="Break", name="Still", kind="image", file="obs/still.png")])


def canvas_from_blend() -> Json:
    def video(base: list[int]) -> list[Json]:
        return [cp("obs_video", "obs", DOC, "base", base), cp("obs_video", "obs", DOC, "output", [960, 540])]
    return task("canvas-from-blend", ["blender", "obs"], "streaming",
                "Make OBS (app obs) output video at the pixel size that scene.blend (app blender) renders come out at "
                "(its resolution scaled by its percentage). Set OBS's output resolution to that size; the canvas (base) "
                "may be either the same size or the scene's full resolution before the percentage.",
                [blend(render={"resolution_x": 1600, "resolution_y": 900, "resolution_percentage": 60}), obs()],
                [video([960, 540]), video([1600, 900])],
                [look("blender"), call("obs", "set_video", base_width=960, base_height=540, output_width=960,
                                       output_height=540)])


def scenes_to_run_of_show() -> Json:
    names = ["Opening", "Interview", "Demo", "Closing"]
    scenes = [{"name": n, "items": [{"source": "Backdrop"}]} for n in names]
    slides = DECK + [{"layout": "title_content", "title": "Run of show", "body": ["?"]}]
    return task("scenes-to-run-of-show", ["obs", "impress"], "streaming",
                "The 'Run of show' slide of deck.odp (app impress) has a single '?' bullet. Replace it with the names "
                "of the scenes of OBS (app obs), one bullet per scene, in OBS's scene order.",
                [obs(scenes, BACKDROP_ONLY), deck(slides=slides)],
                [[cp("slide_text", "impress", "impress/deck.odp", "6", r"^Run of show\nOpening\nInterview\nDemo\nClosing$")]],
                [look("obs"), call("impress", "set_body", slide="slide-6", text=names)])


def flow_to_scenes() -> Json:
    boxes = [("s1", "Intro"), ("s2", "Panel"), ("s3", "Q&amp;A"), ("s4", "Outro")]
    return task("flow-to-scenes", ["drawio", "obs"], "streaming",
                "show.drawio (app drawio) is the show's flow, one box per segment. Create one empty OBS scene (app "
                "obs) for each segment, named exactly like its box; keep the scenes already there.",
                [drawio("drawio/show.drawio", boxes), obs()],
                [[*(cp("obs_scene_exists", "obs", DOC, n, True) for n in ("Intro", "Panel", "Q&A", "Outro")),
                  cp("obs_scene_exists", "obs", DOC, "Main", True)]],
                [look("drawio"), *(call("obs", "create_scene", name=n) for n in ("Intro", "Panel", "Q&A", "Outro"))])


def deck_title_to_obs() -> Json:
    slides = [{"layout": "title_slide", "title": "Helio Drones", "body": "Series A update 2025"}, *DECK[1:]]
    return task("deck-title-to-obs", ["impress", "obs"], "streaming",
                "The stream presents deck.odp (app impress). In OBS (app obs), set the text of the 'Title' source to "
                "the title of the deck's first slide and the text of the 'Sponsor' source to that slide's subtitle.",
                [deck(slides=slides), obs()],
                [[cp("obs_input_value", "obs", DOC, "Title.settings.text", "Helio Drones"),
                  cp("obs_input_value", "obs", DOC, "Sponsor.settings.text", "Series A update 2025"),
                  cp("obs_input_value", "obs", DOC, "Title.settings.font.size", 32)]],
                [look("impress", "slide-1"),
                 call("obs", "set_input_settings", input="Title", settings={"text": "Helio Drones"}),
                 call("obs", "set_input_settings", input="Sponsor", settings={"text": "Series A update 2025"})])


def guest_to_lower_third() -> Json:
    blocks = [*BRIEF_HEAD, para("Guest", "Heading 1"),
              para("Our guest is Dr. Lena Ortiz, who studies coral reefs at the Bergen marine institute.")]
    return task("guest-to-lower-third", ["writer", "obs"], "streaming",
                "Add a text source named 'Lower Third' to the Main scene of OBS (app obs) that shows the guest's name "
                "as brief.odt (app writer) gives it, title included (e.g. 'Prof. Ada Lee').",
                [document("writer/brief.odt", blocks), obs()],
                [[cp("obs_input_value", "obs", DOC, "Lower Third.settings.text", "Dr. Lena Ortiz"),
                  cp("obs_scene_sources", "obs", DOC, "Main", [*MAIN_SOURCES, "Lower Third"])]],
                [look("writer"), call("obs", "add_input", scene="Main", name="Lower Third", kind="text",
                                      text="Dr. Lena Ortiz")])


def guest_missing() -> Json:
    blocks = [*BRIEF_HEAD, para("Guest", "Heading 1"), para("The guest is still to be confirmed by the producers.")]
    return task("infeasible-guest-unknown", ["writer", "obs"], "streaming",
                "Add a text source named 'Lower Third' to the Main scene of OBS (app obs) that shows the name of the "
                "guest given in brief.odt (app writer). If the brief names no guest, say that the task cannot be done.",
                [document("writer/brief.odt", blocks), obs()],
                [[{"type": "outcome", "expected": "infeasible"},
                  cp("obs_scene_sources", "obs", DOC, "Main", MAIN_SOURCES, note="guard: no made-up lower third")]],
                [look("obs", "Main"), look("writer"), {"action_type": "infeasible",
                                  "params": {"reason": "brief.odt names no guest: it is still to be confirmed."}}])


def intro_render_to_obs() -> Json:
    red, blue = clip("kdenlive/red.mp4", "red", 2, 440), clip("kdenlive/blue.mp4", "blue", 3, 660)
    track = [{"id": "V1", "name": "Video 1", "clips": [{"id": "red", "source": "red.mp4", "start": 0, "in": 0, "out": 39},
                                                       {"id": "blue", "source": "blue.mp4", "start": 40, "in": 0, "out": 74}]}]
    return task("opener-render-to-obs", ["kdenlive", "obs"], "streaming",
                "Render only the part of edit.kdenlive (app kdenlive) that the red clip covers to obs/opener.mp4, then "
                "add that file to the Main scene of OBS (app obs) as a media source named 'Opener'.",
                [red, blue, project(track), obs()],
                [[cp("kdenlive_video_duration", "kdenlive", None, "obs/opener.mp4", 1.6, tolerance=0.05),
                  cp("obs_input_value", "obs", DOC, "Opener.settings.local_file", "obs/opener.mp4"),
                  cp("obs_scene_sources", "obs", DOC, "Main", [*MAIN_SOURCES, "Opener"])]],
                [call("kdenlive", "render_video", path="obs/opener.mp4", start=0, end=39),
                 call("obs", "add_input", scene="Main", name="Opener", kind="media", file="obs/opener.mp4")])


def voiceover_to_obs() -> Json:
    paths = [[cp("audio_duration", "audacity", None, f"{folder}voiceover.wav", 2.5, tolerance=0.02),
              cp("obs_input_value", "obs", DOC, "Voiceover.settings.local_file", f"{folder}voiceover.wav"),
              cp("obs_scene_sources", "obs", DOC, "Break", [*BREAK_SOURCES, "Voiceover"])]
             for folder in ("obs/", "obs/audio/")]
    return task("voiceover-to-obs", ["audacity", "obs"], "streaming",
                "Export only the region labelled 'Keep' of take.wav (app audacity) as voiceover.wav into OBS's folder "
                "(obs/voiceover.wav or obs/audio/voiceover.wav), then add it to the Break scene of OBS (app obs) as a "
                "media source named 'Voiceover'.",
                [audio("audacity/take.wav", 6), labels("audacity/take.labels.txt", [[1.5, 4.0, "Keep"]]), obs()],
                paths,
                [call("audacity", "export", path="obs/voiceover.wav", start=1.5, end=4.0),
                 call("obs", "add_input", scene="Break", name="Voiceover", kind="media", file="obs/voiceover.wav")],
                open_={"audacity": "audacity/take.wav"})


def run_of_show_flow() -> Json:
    names = ["Welcome", "Keynote", "Panel", "Wrap-up"]
    boxes = [(f"b{i}", n) for i, n in enumerate(names)]
    blocks = [*BRIEF_HEAD, para("Schedule", "Heading 1"),
              {"table": [["Slot", "Segment"], ["1", ""], ["2", ""], ["3", ""], ["4", ""]], "name": "Schedule"}]
    return task("run-of-show-three-apps", ["drawio", "obs", "writer"], "streaming",
                "flow.drawio (app drawio) chains the show's segments with arrows. Create an empty OBS scene (app obs) "
                "for each segment, named like its box, and fill the Segment column of the Schedule table in "
                "brief.odt (app writer) with the segments in the order the arrows give.",
                [drawio("drawio/flow.drawio", boxes), obs(), document("writer/brief.odt", blocks)],
                [[*(cp("obs_scene_exists", "obs", DOC, n, True) for n in names),
                  cp("table_rows", "writer", "writer/brief.odt", "Schedule",
                     [["Slot", "Segment"], *([str(i + 1), n] for i, n in enumerate(names))])]],
                [look("drawio"), *(call("obs", "create_scene", name=n) for n in names),
                 call("writer", "set_table_cells", table="Schedule", cell="B2", values=[[n] for n in names])])


def stream_size_from_sheet() -> Json:
    rows: list[list[Any]] = [["Format", "Width", "Height"], ["Master", 1920, 1080], ["Stream", "=B2*2/3", "=C2*2/3"]]
    return task("stream-size-three-apps", ["calc", "blender", "obs"], "streaming",
                "formats.ods (app calc), sheet Formats, computes the Stream size. Make scene.blend (app blender) render "
                "at exactly that size (resolution at 100%) and set both OBS's canvas and output resolution (app obs) "
                "to it.",
                [sheet("calc/formats.ods", "Formats", rows), blend(), obs()],
                [[cp("blender_scene_value", "blender", "blender/scene.blend", "render.resolution_x", 1280),
                  cp("blender_scene_value", "blender", "blender/scene.blend", "render.resolution_y", 720),
                  cp("blender_scene_value", "blender", "blender/scene.blend", "render.resolution_percentage", 100),
                  cp("obs_video", "obs", DOC, "base", [1280, 720]), cp("obs_video", "obs", DOC, "output", [1280, 720])]],
                [look("calc", "Formats"),
                 call("blender", "set_render", resolution_x=1280, resolution_y=720, resolution_percentage=100),
                 call("obs", "set_video", base_width=1280, base_height=720, output_width=1280, output_height=720)])


def brand_colour_backdrop() -> Json:
    body = ('    <rect id="brand" x="20" y="20" width="80" height="80" style="fill:#e76f51"/>\n'
            '    <text id="brand-name" x="120" y="70" style="font-size:24px">Acme</text>')
    red = clip("kdenlive/red.mp4", "red", 2, 440)
    track = [{"id": "V1", "name": "Video 1", "clips": [{"id": "red", "source": "red.mp4", "start": 0, "in": 0, "out": 49}]}]
    return task("brand-colour-three-apps", ["inkscape", "obs", "kdenlive"], "streaming",
                "Use the fill colour of the rectangle 'brand' in logo.svg (app inkscape) twice: as the colour of the "
                "'Backdrop' colour source in OBS (app obs), and for a 1-second colour clip (25 frames) added at the end "
                "of track V1 of edit.kdenlive (app kdenlive), right after the red clip.",
                [svg("inkscape/logo.svg", body), obs(), red, project(track)],
                [[cp("obs_input_value", "obs", DOC, "Backdrop.settings.color", "#E76F51", compare="normalized"),
                  cp("kdenlive_track_clips", "kdenlive", "kdenlive/edit.kdenlive", "V1",
                     [["red.mp4", 0, 50], ["color:#e76f51", 50, 75]], compare="normalized")]],
                [look("inkscape"), call("obs", "set_input_settings", input="Backdrop", settings={"color": "#E76F51"}),
                 call("kdenlive", "add_clip", track="V1", source="color:#e76f51", in_frame=0, out_frame=24)])


TASKS = [logo_export_to_obs(), render_still_to_obs(), canvas_from_blend(), scenes_to_run_of_show(), flow_to_scenes(),
         deck_title_to_obs(), guest_to_lower_third(), guest_missing(), intro_render_to_obs(), voiceover_to_obs(),
         run_of_show_flow(), stream_size_from_sheet(), brand_colour_backdrop()]
