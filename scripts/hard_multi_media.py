"""Hard multi-app tasks around the creative apps: colours, sizes, names, times and exported files move between
GIMP, Blender, Kdenlive, Audacity, Inkscape and OBS and the office documents that plan or log them."""

from __future__ import annotations

from typing import Any

from hard_multi_parts import (
    BREAK_SOURCES,
    MAIN_SOURCES,
    Json,
    audio,
    batch,
    blend,
    call,
    clip,
    cp,
    document,
    image,
    labels,
    look,
    mail,
    message,
    obs,
    para,
    project,
    sheet,
    svg,
    task,
)

OBS_DOC = "obs/scenes.json"


def palette_to_poster() -> Json:
    swatches = {"sw-primary": "#2a9d8f", "sw-accent": "#e9c46a", "sw-dark": "#264653"}
    body = "\n".join(f'    <rect id="{k}" x="{20 + 60 * i}" y="20" width="40" height="40" style="fill:{v}"/>'
                     for i, (k, v) in enumerate(swatches.items()))
    body += '\n    <text id="used-in" x="20" y="100" style="font-size:12px">Used in: ?</text>'
    rgb = {k: [int(v[i:i + 2], 16) for i in (1, 3, 5)] for k, v in swatches.items()}
    png = "inkscape/poster.png"

    def colour(region: str, key: str) -> Json:
        return cp("gimp_pixel_stats", "gimp", png, f"mean@{region}", rgb[key], tolerance=3)
    return task("palette-to-poster", ["inkscape", "gimp"], "design",
                "Repaint gimp/poster.xcf (app gimp) with the brand palette of inkscape/palette.svg (app inkscape): fill "
                "the Sky layer with the primary swatch's colour, the Sun layer with the accent swatch's and the Logo "
                "layer with the dark swatch's, and rename the Logo layer to 'Brand'. Export the poster as PNG to "
                "inkscape/poster.png, then set the palette's 'Used in: ?' text to 'Used in: ' followed by the "
                "poster's layer names top first, comma-separated (e.g. 'Used in: A, B').",
                [svg("inkscape/palette.svg", body, 220, 120), image("gimp/poster.xcf", 144, 96)],
                [[colour("10,10,20,10", "sw-primary"), colour("108,14,8,8", "sw-accent"),
                  colour("12,64,10,8", "sw-dark"),
                  cp("gimp_layer_names", "gimp", None, None, ["Brand", "Sun", "Sky", "Background"]),
                  cp("gimp_image_size", "gimp", None, png, [144, 96]),
                  cp("svg_text", "inkscape", None, "#used-in", "Used in: Brand, Sun, Sky, Background")]],
                [look("inkscape"),
                 call("gimp", "fill", layer="Sky", color=rgb["sw-primary"]),
                 call("gimp", "fill", layer="Sun", color=rgb["sw-accent"]),
                 call("gimp", "fill", layer="Logo", color=rgb["sw-dark"]),
                 call("gimp", "rename_layer", layer="Logo", name="Brand"),
                 call("gimp", "export_image", path=png),
                 call("inkscape", "set_text", id="used-in", text="Used in: Brand, Sun, Sky, Background")])


# scene.blend's objects after the plan's renames, alphabetically, with their Blender types
INVENTORY = [["Camera", "CAMERA"], ["Crate", "MESH"], ["Ground", "MESH"], ["Key Light", "LIGHT"], ["Planet", "MESH"]]


def render_plan_from_sheet() -> Json:
    plan: list[list[Any]] = [["Setting", "Value"], ["Width", 1280], ["Height", 720], ["Percentage", 100], ["FPS", 30],
                             ["Last frame", 120], ["Key light power (W)", 750]]
    renames: list[list[Any]] = [["Object", "New name"], ["Cube", "Crate"], ["Sphere", "Planet"], ["Floor", "Ground"]]
    inventory: list[list[Any]] = [["Object", "Type"]]
    content = [{"name": "Plan", "bold_rows": [0], "rows": plan}, {"name": "Renames", "bold_rows": [0], "rows": renames},
               {"name": "Inventory", "bold_rows": [0], "rows": inventory}]
    return task("render-plan-from-sheet", ["calc", "blender"], "3d",
                "calc/plan.ods (app calc) is the render plan for blender/scene.blend (app blender). Apply its Plan "
                "sheet to the scene (render size and percentage, frame rate, last frame, the Key Light's power) and "
                "rename the objects as its Renames sheet says. Then list the scene's objects in the Inventory sheet, "
                "from row 2, with their final names and Blender types (MESH, LIGHT, CAMERA), in alphabetical order of "
                "name.",
                [{"path": "calc/plan.ods", "kind": "spreadsheet", "content": content}, blend()],
                [[cp("blender_scene_value", "blender", None, "render.resolution_x", 1280),
                  cp("blender_scene_value", "blender", None, "render.resolution_y", 720),
                  cp("blender_scene_value", "blender", None, "fps", 30),
                  cp("blender_scene_value", "blender", None, "frame_end", 120),
                  cp("blender_object_value", "blender", None, "Key Light.light.energy", 750, tolerance=0.01),
                  cp("blender_object_exists", "blender", None, "Crate", True),
                  cp("blender_object_exists", "blender", None, "Planet", True),
                  cp("blender_object_exists", "blender", None, "Ground", True),
                  cp("range_values", "calc", None, "Inventory!A2:B6", INVENTORY)]],
                [look("calc", "Plan"),
                 call("blender", "set_render", resolution_x=1280, resolution_y=720, resolution_percentage=100),
                 call("blender", "set_frame_range", end=120, fps=30),
                 call("blender", "set_light", object="Key Light", energy=750),
                 call("blender", "rename_object", object="Cube", name="Crate"),
                 call("blender", "rename_object", object="Sphere", name="Planet"),
                 call("blender", "rename_object", object="Floor", name="Ground"),
                 call("calc", "set_range", range="Inventory!A2:B6", values=INVENTORY)])


def still_to_break_scene() -> Json:
    blocks = [para("Stream spec", "Title"), para("Filled in from the 3D scene."),
              {"table": [["Setting", "Value"], ["Resolution", ""], ["Frame rate", ""], ["Frames", ""]], "name": "Specs"}]
    return task("still-to-break-scene", ["blender", "obs", "writer"], "streaming",
                "Fill the Specs table of writer/spec.odt (app writer) from blender/scene.blend (app blender): its render "
                "resolution as 'WIDTHxHEIGHT', its frame rate (a number) and its frame range as 'FIRST-LAST'. Render a "
                "still of the scene 160x90 pixels to obs/still.png and add it to the Break scene of OBS (app obs) as an "
                "image source named 'Still' at position (240, 135); then hide the 'BRB Text' source of that scene and "
                "make Break the live (program) scene. Set OBS's output resolution to the size the scene's own renders "
                "come out at (its resolution scaled by its percentage).",
                [document("writer/spec.odt", blocks), blend(render={"samples": 8, "resolution_percentage": 50}), obs()],
                [[cp("table_rows", "writer", None, "Specs",
                     [["Setting", "Value"], ["Resolution", "1920x1080"], ["Frame rate", "24"], ["Frames", "1-250"]]),
                  cp("blender_image_size", "blender", None, "obs/still.png", [160, 90]),
                  cp("obs_input_value", "obs", OBS_DOC, "Still.settings.file", "obs/still.png"),
                  cp("obs_scene_sources", "obs", OBS_DOC, "Break", [*BREAK_SOURCES, "Still"]),
                  cp("obs_item_value", "obs", OBS_DOC, "Break/Still.position", [240, 135]),
                  cp("obs_item_value", "obs", OBS_DOC, "Break/BRB Text.visible", False),
                  cp("obs_program_scene", "obs", OBS_DOC, None, "Break"),
                  cp("obs_video", "obs", OBS_DOC, "output", [960, 540])]],
                [look("blender"),
                 call("writer", "set_table_cells", table="Specs", cell="B2", values=[["1920x1080"], ["24"], ["1-250"]]),
                 call("blender", "render_frame", path="obs/still.png", width=160, height=90),
                 call("obs", "add_input", scene="Break", name="Still", kind="image", file="obs/still.png",
                      position=[240, 135]),
                 call("obs", "set_visibility", scene="Break", source="BRB Text", visible=False),
                 call("obs", "switch_scene", scene="Break"),
                 call("obs", "set_video", output_width=960, output_height=540)])


def legend_to_scene() -> Json:
    body = ('    <text id="name-cube" x="20" y="30" style="font-size:14px">Cube: Crate</text>\n'
            '    <text id="name-sphere" x="20" y="50" style="font-size:14px">Sphere: Planet</text>\n'
            '    <text id="name-floor" x="20" y="70" style="font-size:14px">Floor: Ground</text>\n'
            '    <rect id="swatch" x="200" y="20" width="40" height="40" style="fill:#e63946"/>\n'
            '    <text id="swatch-label" x="200" y="80" style="font-size:10px">Crate material: Brand</text>\n'
            '    <text id="meshes" x="20" y="110" style="font-size:14px">Meshes: ?</text>\n'
            '    <text id="res" x="20" y="130" style="font-size:14px">Render: ?</text>')
    colour = [round(c / 255, 3) for c in (0xE6, 0x39, 0x46)] + [1.0]
    return task("legend-to-scene", ["inkscape", "blender"], "3d",
                "inkscape/legend.svg (app inkscape) is the naming legend for blender/scene.blend (app blender). Rename "
                "the scene's objects as it says and give the Crate a new material named 'Brand' whose base colour is "
                "the legend swatch's colour (RGBA, 0-1 per channel). Then complete the legend: 'Meshes: ?' becomes the "
                "number of mesh objects in the scene (e.g. 'Meshes: 7') and 'Render: ?' the scene's render size as "
                "'WIDTHxHEIGHT' (e.g. 'Render: 640x480').",
                [svg("inkscape/legend.svg", body, 300, 150), blend()],
                [[*(cp("blender_object_exists", "blender", None, n, True) for n in ("Crate", "Planet", "Ground")),
                  cp("blender_material_value", "blender", None, "Brand.base_color", colour, tolerance=0.01),
                  cp("svg_text", "inkscape", None, "#meshes", "Meshes: 3"),
                  cp("svg_text", "inkscape", None, "#res", "Render: 1920x1080")]],
                [look("inkscape"),
                 call("blender", "rename_object", object="Cube", name="Crate"),
                 call("blender", "rename_object", object="Sphere", name="Planet"),
                 call("blender", "rename_object", object="Floor", name="Ground"),
                 call("blender", "assign_material", object="Crate", material="Brand", base_color=colour, replace=True),
                 call("inkscape", "set_text", id="meshes", text="Meshes: 3"),
                 call("inkscape", "set_text", id="res", text="Render: 1920x1080")])


def logo_to_stream() -> Json:
    layers = [{"name": "ACME Bakery", "shape": "ellipse", "x": 16, "y": 16, "width": 96, "height": 96,
               "color": [230, 57, 70]}]
    return task("logo-to-stream", ["gimp", "obs"], "streaming",
                "Put the logo of gimp/logo.xcf (app gimp) on the stream: scale the image to 64x64, export it to "
                "obs/logo.png, and add that file to the Main scene of OBS (app obs) as an image source named 'Logo' at "
                "position (560, 16) with a color_correction filter named 'Fade' at opacity 0.8. The sponsor text "
                "must read 'Brought to you by ' followed by the name of the logo's layer. Show the same Logo source in the "
                "Break scene too.",
                [image("gimp/logo.xcf", 128, 128, layers), obs()],
                [[cp("gimp_image_size", "gimp", None, "obs/logo.png", [64, 64]),
                  cp("obs_input_value", "obs", OBS_DOC, "Logo.settings.file", "obs/logo.png"),
                  cp("obs_scene_sources", "obs", OBS_DOC, "Main", [*MAIN_SOURCES, "Logo"]),
                  cp("obs_scene_sources", "obs", OBS_DOC, "Break", [*BREAK_SOURCES, "Logo"]),
                  cp("obs_item_value", "obs", OBS_DOC, "Main/Logo.position", [560, 16]),
                  cp("obs_filter_value", "obs", OBS_DOC, "Logo/Fade.settings.opacity", 0.8, tolerance=0.01),
                  cp("obs_input_value", "obs", OBS_DOC, "Sponsor.settings.text", "Brought to you by ACME Bakery",
                     compare="normalized")]],
                [call("gimp", "scale_image", width=64, height=64),
                 call("gimp", "export_image", path="obs/logo.png"),
                 call("obs", "add_input", scene="Main", name="Logo", kind="image", file="obs/logo.png"),
                 call("obs", "set_transform", scene="Main", source="Logo", position=[560, 16]),
                 call("obs", "add_filter", source="Logo", name="Fade", kind="color_correction", settings={"opacity": 0.8}),
                 call("obs", "set_input_settings", input="Sponsor", settings={"text": "Brought to you by ACME Bakery"}),
                 call("obs", "add_to_scene", scene="Break", input="Logo")])


def banner_from_spec() -> Json:
    blocks = [para("Banner spec", "Title"), para("Status: DRAFT"),
              para("The banner is 120 x 40 pixels and carries the headline 'Spring Market' in its own text layer "
                   "named 'Headline'. The logo layer is called 'Emblem'."),
              {"table": [["Item", "Value"], ["Source size", ""], ["Export", ""]], "name": "Banner"}]
    layers = [{"name": "Sky", "x": 0, "y": 0, "width": 240, "height": 40, "color": [120, 180, 240]},
              {"name": "Logo", "x": 8, "y": 44, "width": 30, "height": 30, "color": [200, 30, 30]}]
    return task("banner-from-spec", ["writer", "gimp"], "design",
                "Make the banner that writer/spec.odt (app writer) describes from gimp/banner.xcf (app gimp): add the "
                "headline text layer, rename the logo layer, scale the image to the spec's size and export it as PNG "
                "to writer/banner.png. In the spec's Banner table write the image's size before scaling as 'W x H' "
                "(e.g. '10 x 20') and the export's path, then change 'Status: DRAFT' to 'Status: READY'.",
                [document("writer/spec.odt", blocks), image("gimp/banner.xcf", 240, 80, layers)],
                [[cp("gimp_image_size", "gimp", None, "writer/banner.png", [120, 40]),
                  cp("gimp_layer_names", "gimp", None, None, ["Headline", "Emblem", "Sky", "Background"]),
                  cp("table_rows", "writer", None, "Banner",
                     [["Item", "Value"], ["Source size", "240 x 80"], ["Export", "writer/banner.png"]]),
                  cp("document_text", "writer", None, None, r"(?m)^Status: READY$")]],
                [look("writer"),
                 call("gimp", "add_text_layer", text="Spring Market", x=4, y=4, size=12.0, name="Headline"),
                 call("gimp", "rename_layer", layer="Logo", name="Emblem"),
                 call("gimp", "scale_image", width=120, height=40),
                 call("gimp", "export_image", path="writer/banner.png"),
                 call("writer", "set_table_cells", table="Banner", cell="B2", values=[["240 x 80"], ["writer/banner.png"]]),
                 call("writer", "find_replace", find="Status: DRAFT", replace="Status: READY")])


def _three_clips() -> list[Json]:
    return [clip("kdenlive/red.mp4", "red", 2, 440), clip("kdenlive/blue.mp4", "blue", 3, 660),
            clip("kdenlive/green.mp4", "green", 3, 550)]


THREE_TRACK = [{"id": "V1", "name": "Video 1", "clips": [
    {"id": "red", "source": "red.mp4", "start": 0, "in": 0, "out": 49},
    {"id": "blue", "source": "blue.mp4", "start": 50, "in": 0, "out": 74},
    {"id": "green", "source": "green.mp4", "start": 125, "in": 0, "out": 74}]}]


def edit_decision_list() -> Json:
    rows: list[list[Any]] = [["Clip", "Change", "Start frame", "End frame (excl.)"], ["red", "add greyscale filter"],
                             ["blue", "keep its first 40 frames"], ["green", "remove"],
                             ["black", "append a 25-frame black colour clip at the end"]]
    final = [["red.mp4", 0, 50], ["blue.mp4", 50, 90], ["color:black", 90, 115]]
    return task("edit-decision-list", ["calc", "kdenlive"], "video",
                "calc/edl.ods (app calc, sheet EDL) lists changes to track V1 of kdenlive/edit.kdenlive (app "
                "kdenlive). Make them (the blue clip keeps its start; nothing else moves; the black clip follows the "
                "last remaining clip). Then record each remaining clip's final timeline start frame and end frame "
                "(exclusive) in columns C and D of its row (red, blue, black; leave green's row empty).",
                [sheet("calc/edl.ods", "EDL", rows), *_three_clips(), project(THREE_TRACK)],
                [[cp("kdenlive_track_clips", "kdenlive", None, "V1", final, compare="normalized"),
                  cp("kdenlive_filter_services", "kdenlive", None, "V1:0", ["greyscale"]),
                  cp("range_values", "calc", None, "EDL!C2:D5", [[0, 50], [50, 90], [None, None], [90, 115]])]],
                [look("calc", "EDL"),
                 call("kdenlive", "add_filter", target="red", service="greyscale"),
                 call("kdenlive", "trim_clip", clip="blue", out_frame=39),
                 call("kdenlive", "delete_clip", clip="green"),
                 call("kdenlive", "add_clip", track="V1", source="color:black", in_frame=0, out_frame=24, position=90),
                 batch("calc", call("calc", "set_range", range="EDL!C2:D3", values=[[0, 50], [50, 90]]),
                       call("calc", "set_range", range="EDL!C5:D5", values=[[90, 115]]))])


def coughs_out_of_take() -> Json:
    take = [{"id": "V1", "name": "Video 1", "clips": [{"id": "take", "source": "red.mp4", "start": 0, "in": 0,
                                                       "out": 249}]}]
    coughs = [(2.0, 2.4), (4.4, 4.8), (7.2, 7.6)]  # seconds; at 25 fps frames 50-60, 110-120, 180-190
    reference: list[Json] = [look("audacity")]
    for n, (start, end) in reversed(list(enumerate(coughs, start=1))):  # right to left: earlier frames stay put
        reference += [call("kdenlive", "split_clip", clip="take", at=round(end * 25), new_id=f"after{n}"),
                      call("kdenlive", "split_clip", clip="take", at=round(start * 25), new_id=f"cough{n}"),
                      call("kdenlive", "delete_clip", clip=f"cough{n}", ripple=True)]
    reference += [call("audacity", "edit_label", label=i, text="Removed") for i in range(len(coughs))]
    return task("coughs-out-of-take", ["audacity", "kdenlive"], "video",
                "The sound editor labelled the coughs 'Cough' in take.wav (app audacity), the sound of the video on "
                "track V1 of kdenlive/edit.kdenlive (app kdenlive, 25 fps, the clip starts at 0). Cut every cough "
                "range out of the clip and close the gaps, so the rest plays back to back from frame 0. Then rename "
                "every cough label in Audacity to 'Removed'.",
                [audio("audacity/take.wav", 10), labels("audacity/take.labels.txt", [[a, b, "Cough"] for a, b in coughs]),
                 clip("kdenlive/red.mp4", "red", 10, 440), project(take)],
                [[cp("kdenlive_track_clips", "kdenlive", None, "V1",
                     [["red.mp4", 0, 50], ["red.mp4", 50, 100], ["red.mp4", 100, 160], ["red.mp4", 160, 220]]),
                  cp("kdenlive_clip_spans", "kdenlive", None, "V1", [[0, 49], [60, 109], [120, 179], [190, 249]]),
                  cp("audio_label_texts", "audacity", None, "audacity/take.labels.txt", ["Removed"] * 3)]],
                reference, open_={"audacity": "audacity/take.wav"})


def intro_render_to_show() -> Json:
    blocks = [para("Show log", "Title"),
              {"table": [["Clip", "Frames"], ["red", ""], ["blue", ""]], "name": "Clips"}]
    track = [{"id": "V1", "name": "Video 1", "clips": THREE_TRACK[0]["clips"][:2]}]
    return task("intro-render-to-show", ["kdenlive", "obs", "writer"], "streaming",
                "Render only the red clip's part of kdenlive/edit.kdenlive (app kdenlive) to obs/intro.mp4. In OBS "
                "(app obs) create a scene 'Intro' holding a media source 'Intro Clip' playing that file with the "
                "existing 'Title' source above it, make it the live scene, and set the canvas (base) and output "
                "resolution to the edit's profile size. Log the timeline frames each clip covers as 'FIRST-LAST' "
                "(inclusive) in the Clips table of writer/log.odt "
                "(app writer).",
                [*_three_clips()[:2], project(track), obs(), document("writer/log.odt", blocks)],
                [[cp("kdenlive_video_duration", "kdenlive", None, "obs/intro.mp4", 2.0, tolerance=0.05),
                  cp("obs_scene_sources", "obs", OBS_DOC, "Intro", ["Intro Clip", "Title"]),
                  cp("obs_input_value", "obs", OBS_DOC, "Intro Clip.settings.local_file", "obs/intro.mp4"),
                  cp("obs_program_scene", "obs", OBS_DOC, None, "Intro"),
                  cp("obs_video", "obs", OBS_DOC, "base", [160, 90]), cp("obs_video", "obs", OBS_DOC, "output", [160, 90]),
                  cp("table_rows", "writer", None, "Clips", [["Clip", "Frames"], ["red", "0-49"], ["blue", "50-124"]])]],
                [call("kdenlive", "render_video", path="obs/intro.mp4", start=0, end=49),
                 call("obs", "create_scene", name="Intro"),
                 call("obs", "add_input", scene="Intro", name="Intro Clip", kind="media", file="obs/intro.mp4"),
                 call("obs", "add_to_scene", scene="Intro", input="Title"),
                 call("obs", "switch_scene", scene="Intro"),
                 call("obs", "set_video", base_width=160, base_height=90, output_width=160, output_height=90),
                 call("writer", "set_table_cells", table="Clips", cell="B2", values=[["0-49"], ["50-124"]])],
                open_={"kdenlive": "kdenlive/edit.kdenlive"})


def podcast_segments_to_sheet() -> Json:
    spans = [(0.0, 1.5, "Intro"), (1.5, 3.0, "Ad"), (3.0, 7.5, "Interview"), (7.5, 9.0, "Outro")]
    marks: list[list[Any]] = [list(span) for span in spans]
    rows: list[list[Any]] = [["Segment", "Start (s)", "End (s)", "Length (s)"]]
    rows += [[name, None, None, f"=C{i + 2}-B{i + 2}"] for i, (_, _, name) in enumerate(spans)]
    return task("podcast-segments-to-sheet", ["audacity", "calc"], "audio",
                "podcast.wav (app audacity) is labelled by segment. Enter each segment's start and end seconds in "
                "calc/segments.ods (app calc, sheet Segments, columns B and C), and make the row of the longest segment "
                "bold (A:D). In Audacity, lower the Ad segment by 6 dB, fade in the Intro, fade out the Outro, and "
                "export the Interview segment alone to calc/interview.wav. The Ad segment is a sponsor read: rename its "
                "label to 'Sponsor' and its name in the sheet likewise.",
                [audio("audacity/podcast.wav", 9.0), labels("audacity/podcast.labels.txt", marks),
                 sheet("calc/segments.ods", "Segments", rows)],
                [[cp("range_values", "calc", None, "Segments!B2:D5", [[a, b, b - a] for a, b, _ in spans]),
                  cp("cell_style", "calc", None, "Segments!A4", {"bold": True}),
                  cp("cell_style", "calc", None, "Segments!A3", {"bold": False}, note="guard: only the longest row"),
                  cp("audio_duration", "audacity", None, "calc/interview.wav", 4.5, tolerance=0.02),
                  cp("audio_label_texts", "audacity", None, "audacity/podcast.labels.txt",
                     ["Intro", "Sponsor", "Interview", "Outro"]),
                  cp("cell_value", "calc", None, "Segments!A3", "Sponsor")]],
                [look("audacity"),
                 call("calc", "set_range", range="Segments!B2:C5", values=[[a, b] for a, b, _ in spans]),
                 call("calc", "format_range", range="Segments!A4:D4", bold=True),
                 call("audacity", "amplify", start=1.5, end=3.0, gain_db=-6.0),
                 call("audacity", "fade_in", start=0.0, end=1.5),
                 call("audacity", "fade_out", start=7.5, end=9.0),
                 call("audacity", "export", path="calc/interview.wav", start=3.0, end=7.5),
                 call("audacity", "edit_label", label=1, text="Sponsor"),
                 {"action_type": "set_value", "app": "calc", "target": "Segments!A3", "params": {"value": "Sponsor"}}],
                open_={"audacity": "audacity/podcast.wav"})


def good_take_to_break() -> Json:
    takes = [[0.5, 2.5, "Take 1 - bad"], [3.0, 5.5, "Take 2 - good"]]
    return task("good-take-to-break", ["audacity", "obs"], "streaming",
                "take.wav (app audacity) holds two labelled voice-over takes. Normalize the good one to a -1 dB peak, "
                "export just that take to obs/voice.wav and rename its label to 'Used'. In the Break scene of OBS (app "
                "obs) replace the 'BRB Text' source with a media source 'Voice' playing that file at -6 dB.",
                [audio("audacity/take.wav", 6), labels("audacity/take.labels.txt", takes), obs()],
                [[cp("audio_duration", "audacity", None, "obs/voice.wav", 2.5, tolerance=0.02),
                  cp("audio_peak_db", "audacity", None, "obs/voice.wav", -1.0, tolerance=0.3),
                  cp("audio_label_texts", "audacity", None, "audacity/take.labels.txt", ["Take 1 - bad", "Used"]),
                  cp("obs_input_value", "obs", OBS_DOC, "Voice.settings.local_file", "obs/voice.wav"),
                  cp("obs_input_value", "obs", OBS_DOC, "Voice.volume_db", -6.0, tolerance=0.1),
                  cp("obs_scene_sources", "obs", OBS_DOC, "Break", ["Backdrop", "Voice"])]],
                [look("audacity"),
                 call("audacity", "normalize", start=3.0, end=5.5, peak_db=-1.0),
                 call("audacity", "export", path="obs/voice.wav", start=3.0, end=5.5),
                 call("audacity", "edit_label", label=1, text="Used"),
                 call("obs", "remove_from_scene", scene="Break", source="BRB Text"),
                 call("obs", "add_input", scene="Break", name="Voice", kind="media", file="obs/voice.wav"),
                 call("obs", "set_audio", input="Voice", volume_db=-6.0)],
                open_={"audacity": "audacity/take.wav"})


def thumbnail_three_apps() -> Json:
    rows: list[list[Any]] = [["Asset", "Width", "Height"], ["Banner"], ["Thumb", "=B2/2", "=C2/2"]]
    layers = [{"name": "Sky", "x": 0, "y": 0, "width": 240, "height": 50, "color": [120, 180, 240]}]
    body = ('    <rect id="frame" x="10" y="10" width="50" height="50" style="fill:none;stroke:#000000"/>\n'
            '    <text id="caption" x="10" y="130" style="font-size:12px">Thumb ?</text>')
    return task("thumbnail-three-apps", ["gimp", "calc", "inkscape"], "design",
                "Enter the pixel size of gimp/banner.xcf (app gimp) in the Banner row of calc/assets.ods (app calc, "
                "sheet Assets); the sheet then computes the Thumb size. Scale the image to that size, export it to "
                "inkscape/thumb.png, and in inkscape/layout.svg (app inkscape) make the rectangle 'frame' exactly that "
                "size and set the caption to 'Thumb WIDTHxHEIGHT' (e.g. 'Thumb 10x5'). Make the sheet's header row "
                "bold.",
                [image("gimp/banner.xcf", 240, 80, layers), sheet("calc/assets.ods", "Assets", rows),
                 svg("inkscape/layout.svg", body, 300, 150)],
                [[cp("range_values", "calc", None, "Assets!B2:C3", [[240, 80], [120, 40]]),
                  cp("gimp_image_size", "gimp", None, "inkscape/thumb.png", [120, 40]),
                  cp("svg_attribute", "inkscape", None, "#frame/@width", 120),
                  cp("svg_attribute", "inkscape", None, "#frame/@height", 40),
                  cp("svg_text", "inkscape", None, "#caption", "Thumb 120x40"),
                  cp("cell_style", "calc", None, "Assets!C1", {"bold": True})]],
                [look("gimp"),
                 call("calc", "set_range", range="Assets!B2:C2", values=[[240, 80]]),
                 call("calc", "format_range", range="Assets!A1:C1", bold=True),
                 call("gimp", "scale_image", width=120, height=40),
                 call("gimp", "export_image", path="inkscape/thumb.png"),
                 call("inkscape", "edit_element", id="frame", attributes={"width": 120, "height": 40}),
                 call("inkscape", "set_text", id="caption", text="Thumb 120x40")])


def sting_for_producer() -> Json:
    ask = message("Opener for Friday", "Producer <producer@example.com>",
                  "Hi,\nplease trim the red opener on V1 to exactly the length of the 'Sting' region in sting.wav, "
                  "render the trimmed timeline and send it to me with the sting itself attached (both files), "
                  "subject 'Opener ready'.\n")
    track = [{"id": "V1", "name": "Video 1", "clips": [{"id": "red", "source": "red.mp4", "start": 0, "in": 0,
                                                        "out": 99}]}]
    return task("sting-for-producer", ["thunderbird", "audacity", "kdenlive"], "video",
                "Do what the producer asks in the mail 'Opener for Friday' (app thunderbird) with sting.wav (app "
                "audacity) and kdenlive/edit.kdenlive (app kdenlive, 25 fps): export the sting region to "
                "thunderbird/sting.wav and render the opener to thunderbird/opener.mp4, keeping the clip's start. "
                "After replying, move the producer's mail to the Archive folder and mark the reply in Audacity with a "
                "label 'Sent' at 0 seconds.",
                [mail([ask]), audio("audacity/sting.wav", 5), labels("audacity/sting.labels.txt", [[0.8, 2.0, "Sting"]]),
                 clip("kdenlive/red.mp4", "red", 4, 440), project(track)],
                [[cp("kdenlive_track_clips", "kdenlive", None, "V1", [["red.mp4", 0, 30]]),
                  cp("kdenlive_video_duration", "kdenlive", None, "thunderbird/opener.mp4", 1.2, tolerance=0.05),
                  cp("audio_duration", "audacity", None, "thunderbird/sting.wav", 1.2, tolerance=0.02),
                  cp("mail_sent_attachments", "thunderbird", None, "Opener ready", "opener.mp4"),
                  cp("mail_sent_attachments", "thunderbird", None, "Opener ready", "sting.wav"),
                  cp("mail_sent_text", "thunderbird", None, "Opener ready", r"To: .*producer@example\.com"),
                  cp("mail_subjects", "thunderbird", None, "Archive", "Opener for Friday"),
                  cp("audio_label_texts", "audacity", None, "audacity/sting.labels.txt", ["Sent", "Sting"])]],
                [look("thunderbird"),
                 call("audacity", "export", path="thunderbird/sting.wav", start=0.8, end=2.0),
                 call("kdenlive", "trim_clip", clip="red", out_frame=29),
                 call("kdenlive", "render_video", path="thunderbird/opener.mp4"),
                 call("thunderbird", "send_message", to=["producer@example.com"], subject="Opener ready",
                      body="Opener and sting attached.\n",
                      attachments=["thunderbird/opener.mp4", "thunderbird/sting.wav"]),
                 call("thunderbird", "move_messages", messages=["INBOX#3"], folder="Archive"),
                 call("audacity", "add_label", text="Sent", start=0.0)],
                open_={"audacity": "audacity/sting.wav"})


TASKS = [palette_to_poster(), render_plan_from_sheet(), still_to_break_scene(), legend_to_scene(), logo_to_stream(),
         banner_from_spec(), edit_decision_list(), coughs_out_of_take(), intro_render_to_show(),
         podcast_segments_to_sheet(), good_take_to_break(), thumbnail_three_apps(), sting_for_producer()]
