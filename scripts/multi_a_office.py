"""multi-a tasks read first in GIMP, Inkscape, Calc, Writer, Impress or Blender and written into an office app."""

from __future__ import annotations

from typing import Any

from multi_a_parts import DECK, SCENE_OBJECTS, Json, blend, call, cp, deck, document, image, look, para, sheet, svg, task

MEMO_HEAD = [para("Acme Robotics – launch memo", "Title"), para("Prepared by the studio team.")]


def poster_size_to_slide() -> Json:
    slides = DECK + [{"layout": "title_content", "title": "Assets", "body": ["Poster: ? x ? px"]}]
    return task("poster-size-to-slide", ["gimp", "impress"], "office",
                "The 'Assets' slide of deck.odp (app impress) has the bullet 'Poster: ? x ? px'. Replace the two "
                "question marks with the canvas width and height in pixels of poster.xcf (app gimp), e.g. "
                "'Poster: 300 x 200 px'.",
                [image("gimp/poster.xcf", 144, 90), deck(slides=slides)],
                [[cp("slide_text", "impress", "impress/deck.odp", "6", r"(?m)^Poster: 144 x 90 px$"),
                  cp("slide_count", "impress", "impress/deck.odp", None, 6)]],
                [look("gimp"), call("impress", "set_body", slide="slide-6", text=["Poster: 144 x 90 px"])])


def brand_colour_to_banner() -> Json:
    body = ('    <rect id="brand" x="20" y="20" width="80" height="80" style="fill:#2a9d8f"/>\n'
            '    <text id="brand-name" x="120" y="70" style="font-size:24px">Acme</text>')
    return task("brand-colour-to-banner", ["inkscape", "gimp"], "design",
                "Paint the top band of banner.png (app gimp) in the fill colour of the rectangle 'brand' in logo.svg "
                "(app inkscape): a new layer named 'Brand' filled with that colour, 120 pixels wide and 20 pixels high "
                "at the top-left corner (offset 0, 0), on top of the other layers. The rest stays white.",
                [svg("inkscape/logo.svg", body), image("gimp/banner.png", 120, 60, [])],
                [[cp("gimp_pixel_stats", "gimp", None, "mean@4,4,80,10", [42, 157, 143], tolerance=4),
                  cp("gimp_pixel_stats", "gimp", None, "mean@4,30,80,20", [255, 255, 255], tolerance=4)]],
                [look("inkscape"),
                 call("gimp", "add_layer", name="Brand", width=120, height=20, fill="color", color=[42, 157, 143])])


def layers_to_credits() -> Json:
    blocks = [*MEMO_HEAD, para("Poster credits", "Heading 1"),
              {"table": [["Layer", "Owner"], ["", "Design team"], ["", "Design team"], ["", "Brand team"]],
               "name": "Credits"}]
    layers = [{"name": "Meadow", "x": 0, "y": 40, "width": 144, "height": 50, "color": [90, 160, 70]},
              {"name": "Moon", "shape": "ellipse", "x": 90, "y": 6, "width": 20, "height": 20, "color": [230, 230, 200]},
              {"name": "Wordmark", "x": 8, "y": 60, "width": 40, "height": 14, "color": [20, 20, 20]}]
    rows: list[list[Any]] = [["Layer", "Owner"], ["Wordmark", "Design team"], ["Moon", "Design team"], ["Meadow", "Brand team"]]
    return task("layers-to-credits", ["gimp", "writer"], "office",
                "The Credits table of credits.odt (app writer) has an empty Layer column. Fill it with the names of "
                "the layers of poster.xcf (app gimp) that lie above its Background layer, one per row, from the top "
                "layer down; keep the Owner column.",
                [image("gimp/poster.xcf", 144, 90, layers), document("writer/credits.odt", blocks)],
                [[cp("table_rows", "writer", "writer/credits.odt", "Credits", rows)]],
                [look("gimp"), call("writer", "set_table_cells", table="Credits", cell="A2",
                                    values=[["Wordmark"], ["Moon"], ["Meadow"]])])


def sales_total_to_slide() -> Json:
    rows: list[list[Any]] = [["Quarter", "Revenue (EUR)"], ["Q1", 9850], ["Q2", 11200], ["Q3", 12475], ["Q4", 14725],
            ["Total", "=SUM(B2:B5)"]]
    return task("sales-total-to-slide", ["calc", "impress"], "office",
                "sales.ods (app calc), sheet Revenue, totals the year's revenue in B6. On the 'Traction' slide of "
                "deck.odp (app impress), add a third bullet 'Revenue 2024: N EUR' with that total as N (digits, "
                "with or without a thousands comma), keeping the two bullets already there.",
                [sheet("calc/sales.ods", "Revenue", rows), deck()],
                [[cp("slide_text", "impress", "impress/deck.odp", "4",
                     r"(?m)^Traction\n12 pilot customers\n3 signed contracts\nRevenue 2024: 48,?250 EUR$")]],
                [look("calc", "Revenue"), call("impress", "set_body", slide="slide-4", text=[
                    "12 pilot customers", "3 signed contracts", "Revenue 2024: 48,250 EUR"])])


def budget_table_to_slide() -> Json:
    blocks = [*MEMO_HEAD, para("Budget", "Heading 1"),
              {"table": [["Item", "Cost"], ["Servers", "12000"], ["Licenses", "4500"], ["Travel", "2300"]],
               "name": "Budget"}]
    return task("budget-table-to-slide", ["writer", "impress"], "office",
                "Add a slide titled 'Budget' at the end of deck.odp (app impress) whose bullets are the rows of the "
                "Budget table in memo.odt (app writer), one bullet per item written 'Item: Cost' (e.g. 'Rent: 900'), "
                "in the table's order.",
                [document("writer/memo.odt", blocks), deck()],
                [[cp("slide_count", "impress", "impress/deck.odp", None, 6),
                  cp("slide_text", "impress", "impress/deck.odp", "6",
                     r"^Budget\nServers: 12000\nLicenses: 4500\nTravel: 2300$")]],
                [look("writer"), call("impress", "add_slide", layout="title_content", title="Budget",
                                      body=["Servers: 12000", "Licenses: 4500", "Travel: 2300"])])


def pilots_to_memo() -> Json:
    slides = [dict(s) for s in DECK]
    slides[3] = {"layout": "title_content", "title": "Traction", "body": ["17 pilot customers", "5 signed contracts"]}
    blocks = [*MEMO_HEAD, para("Status", "Heading 1"), para("Pilot customers: ?"), para("Signed contracts: ?")]
    return task("traction-to-memo", ["impress", "writer"], "office",
                "memo.odt (app writer) has two lines with question marks, 'Pilot customers: ?' and 'Signed contracts: "
                "?'. Replace each question mark with the number the 'Traction' slide of deck.odp (app impress) gives.",
                [deck(slides=slides), document("writer/memo.odt", blocks)],
                [[cp("document_text", "writer", "writer/memo.odt", None,
                     r"(?s)^(?!.*: \?).*Pilot customers: 17\b.*Signed contracts: 5\b")]],
                [look("impress", "slide-4"),
                 call("writer", "find_replace", find="Pilot customers: ?", replace="Pilot customers: 17"),
                 call("writer", "find_replace", find="Signed contracts: ?", replace="Signed contracts: 5")])


def flyer_size_sheet_slide() -> Json:
    rows: list[list[Any]] = [["File", "Width (px)", "Height (px)"], ["flyer.png"]]
    slides = DECK + [{"layout": "title_content", "title": "Print assets", "body": ["Flyer: ? x ? px"]}]
    return task("flyer-size-sheet-and-slide", ["gimp", "calc", "impress"], "office",
                "Record the pixel size of flyer.png (app gimp) in two places: in assets.ods (app calc), sheet Assets, "
                "its width in B2 and its height in C2 as numbers; and on the 'Print assets' slide of deck.odp (app "
                "impress), as the bullet 'Flyer: W x H px' in place of 'Flyer: ? x ? px'.",
                [image("gimp/flyer.png", 132, 186, []), sheet("calc/assets.ods", "Assets", rows), deck(slides=slides)],
                [[cp("range_values", "calc", "calc/assets.ods", "Assets!B2:C2", [[132, 186]]),
                  cp("slide_text", "impress", "impress/deck.odp", "6", r"(?m)^Flyer: 132 x 186 px$")]],
                [look("gimp"), call("calc", "set_range", range="Assets!B2", values=[[132, 186]]),
                 call("impress", "set_body", slide="slide-6", text=["Flyer: 132 x 186 px"])])


def lights_to_sheet() -> Json:
    objects = [o for o in SCENE_OBJECTS if o["name"] != "Key Light"] + [
        {"name": "Key Light", "kind": "light", "light_type": "POINT", "location": [4, -4, 6], "light": {"energy": 850.0}},
        {"name": "Fill Light", "kind": "light", "light_type": "POINT", "location": [-4, -3, 4], "light": {"energy": 275.0}},
        {"name": "Rim Light", "kind": "light", "light_type": "SPOT", "location": [0, 5, 5], "light": {"energy": 1200.0}}]
    rows: list[list[Any]] = [["Light", "Power (W)"], ["Key Light"], ["Fill Light"], ["Rim Light"]]
    return task("light-power-to-sheet", ["blender", "calc"], "3d",
                "lights.ods (app calc), sheet Lights, lists the three lights of scene.blend (app blender). Fill column "
                "B with each light's power in watts as a number.",
                [blend(objects=objects), sheet("calc/lights.ods", "Lights", rows)],
                [[cp("range_values", "calc", "calc/lights.ods", "Lights!B2:B4", [[850], [275], [1200]])]],
                [look("blender", "Key Light"), call("calc", "set_range", range="Lights!B2", values=[[850], [275], [1200]])])


def lens_to_shot_list() -> Json:
    objects = [o for o in SCENE_OBJECTS if o["name"] != "Camera"] + [
        {"name": "Camera", "kind": "camera", "location": [7, -7, 5], "rotation": [63, 0, 45], "lens": 35.0}]
    blocks = [*MEMO_HEAD, para("Shot list", "Heading 1"),
              {"table": [["Setting", "Value"], ["Camera lens (mm)", ""], ["Frame end", ""]], "name": "Shots"}]
    return task("camera-to-shot-list", ["blender", "writer"], "3d",
                "Fill the Value column of the Shots table in shots.odt (app writer) from scene.blend (app blender): "
                "the focal length of the scene camera in millimetres and the scene's last frame, as whole numbers.",
                [blend(objects=objects, render={}), document("writer/shots.odt", blocks)],
                [[cp("table_rows", "writer", "writer/shots.odt", "Shots",
                     [["Setting", "Value"], ["Camera lens (mm)", "35"], ["Frame end", "250"]])]],
                [look("blender", "Camera"), call("writer", "set_table_cells", table="Shots", cell="B2",
                                                 values=[["35"], ["250"]])])


TASKS = [poster_size_to_slide(), brand_colour_to_banner(), layers_to_credits(), sales_total_to_slide(),
         budget_table_to_slide(), pilots_to_memo(), flyer_size_sheet_slide(), lights_to_sheet(), lens_to_shot_list()]
