"""Building blocks for the multi-a tasks (scripts/make_multi_a_tasks.py): set-up files and checkpoints.

Every set-up file lives under the folder of the one app that owns it (``gimp/poster.xcf``, ``obs/scenes.json``),
so no two apps share a workspace path; an artifact one app exports for another goes into the other's folder.
"""

from __future__ import annotations

import copy
from typing import Any

Json = dict[str, Any]

# The impress core deck, the writer core memo, the blender core scene and the OBS core collection, so the
# multi tasks look like the documents agents already meet in the single-app suites.
DECK: list[Json] = [
    {"layout": "title_slide", "title": "Acme Robotics", "body": "Investor update 2024"},
    {"layout": "title_content", "title": "Problem", "body": ["Warehouses lose 20% of picks", "Labour is scarce"]},
    {"layout": "title_content", "title": "Solution", "body": ["Autonomous picking arms", "Works with existing shelves"]},
    {"layout": "title_content", "title": "Traction", "body": ["12 pilot customers", "3 signed contracts"]},
    {"layout": "title_content", "title": "Team", "body": ["Ana, CEO", "Raj, CTO"]},
]

SCENE_OBJECTS: list[Json] = [
    {"name": "Cube", "kind": "cube", "location": [0, 0, 1],
     "material": {"material": "Gray", "base_color": [0.5, 0.5, 0.5, 1.0], "metallic": 0.0, "roughness": 0.5}},
    {"name": "Sphere", "kind": "uv_sphere", "location": [3, 0, 1]},
    {"name": "Floor", "kind": "plane", "scale": [5, 5, 1]},
    {"name": "Key Light", "kind": "light", "light_type": "POINT", "location": [4, -4, 6], "light": {"energy": 1000.0}},
    {"name": "Camera", "kind": "camera", "location": [7, -7, 5], "rotation": [63, 0, 45], "lens": 50.0},
]
SCENE_SETTINGS: Json = {"frames": {"start": 1, "end": 250, "fps": 24},
                        "render": {"engine": "CYCLES", "resolution_x": 1920, "resolution_y": 1080,
                                   "resolution_percentage": 100, "samples": 64}, "camera": "Camera"}

OBS_INPUTS: list[Json] = [
    {"name": "Backdrop", "kind": "color", "settings": {"color": "#1E1E2E", "width": 640, "height": 360}},
    {"name": "Camera", "kind": "color", "settings": {"color": "#808080", "width": 640, "height": 360}},
    {"name": "Title", "kind": "text", "settings": {"text": "Weekly Show", "font": {"face": "Sans Serif", "size": 32}}},
    {"name": "Sponsor", "kind": "text", "settings": {"text": "Brought to you by ACME"}},
    {"name": "BRB Text", "kind": "text", "settings": {"text": "Be right back"}},
]
OBS_SCENES: list[Json] = [
    {"name": "Main", "items": [{"source": "Backdrop"}, {"source": "Camera", "position": [40, 40], "scale": [0.5, 0.5]},
                               {"source": "Title", "position": [40, 280]}, {"source": "Sponsor", "position": [480, 300]}]},
    {"name": "Break", "items": [{"source": "Backdrop"}, {"source": "BRB Text", "position": [200, 150]}]},
]
MAIN_SOURCES = ["Backdrop", "Camera", "Title", "Sponsor"]
BREAK_SOURCES = ["Backdrop", "BRB Text"]

POSTER_LAYERS: list[Json] = [
    {"name": "Sky", "x": 0, "y": 0, "width": 144, "height": 40, "color": [120, 180, 240]},
    {"name": "Sun", "shape": "ellipse", "x": 100, "y": 6, "width": 24, "height": 24, "color": [250, 210, 40]},
    {"name": "Logo", "x": 8, "y": 60, "width": 30, "height": 18, "color": [200, 30, 30]},
]

FPS25: Json = {"width": 160, "height": 90, "fps_num": 25, "fps_den": 1, "dar": [16, 9]}


def deck(path: str = "impress/deck.odp", slides: list[Json] | None = None) -> Json:
    return {"path": path, "kind": "presentation", "content": {"slides": copy.deepcopy(slides or DECK)}}


def document(path: str, blocks: list[Json]) -> Json:
    return {"path": path, "kind": "document", "content": {"blocks": blocks}}


def para(text: str, style: str = "Text body") -> Json:
    return {"text": text, "style": style}


def sheet(path: str, name: str, rows: list[list[Any]]) -> Json:
    return {"path": path, "kind": "spreadsheet", "content": [{"name": name, "bold_rows": [0], "rows": rows}]}


def blend(path: str = "blender/scene.blend", objects: list[Json] | None = None, render: Json | None = None) -> Json:
    settings = copy.deepcopy(SCENE_SETTINGS)
    settings["render"].update(render or {})
    return {"path": path, "kind": "blend", "content": {"objects": copy.deepcopy(objects or SCENE_OBJECTS),
                                                         "scene": settings}}


def obs(scenes: list[Json] | None = None, inputs: list[Json] | None = None) -> Json:
    return {"path": "obs/scenes.json", "kind": "obs_collection",
            "content": {"name": "Studio", "scenes": copy.deepcopy(scenes or OBS_SCENES),
                        "inputs": copy.deepcopy(inputs or OBS_INPUTS), "current_scene": (scenes or OBS_SCENES)[0]["name"]}}


def image(path: str, width: int, height: int, layers: list[Json] | None = None,
          background: tuple[int, int, int] = (255, 255, 255)) -> Json:
    return {"path": path, "kind": "image", "content": {"width": width, "height": height, "background": list(background),
                                                        "layers": copy.deepcopy(POSTER_LAYERS if layers is None else layers)}}


def audio(path: str, duration: float, parts: list[Json] | None = None) -> Json:
    parts = parts or [{"kind": "sine", "frequency": 440, "amplitude": 0.3, "start": 0.0, "end": duration}]
    return {"path": path, "kind": "audio", "content": {"rate": 22050, "channels": 1, "duration": duration, "parts": parts}}


def labels(path: str, items: list[list[Any]]) -> Json:
    return {"path": path, "kind": "labels", "content": items}


def clip(path: str, color: str, seconds: float, tone: int = 440) -> Json:
    return {"path": path, "kind": "media_clip", "content": {"color": color, "seconds": seconds, "tone": tone}}


def project(tracks: list[Json], path: str = "kdenlive/edit.kdenlive") -> Json:
    return {"path": path, "kind": "mlt_project", "content": {"profile": FPS25, "tracks": tracks}}


def drawio(path: str, boxes: list[tuple[str, str]], chain: bool = True) -> Json:
    """A one-page diagram of rounded boxes (id, label) in a row, each joined to the next when ``chain``."""
    cells = ['<mxCell id="0" />', '<mxCell id="1" parent="0" />']
    for i, (cid, label) in enumerate(boxes):
        cells.append(f'<mxCell id="{cid}" value="{label}" style="rounded=1;whiteSpace=wrap;html=1;" vertex="1" '
                     f'parent="1"><mxGeometry x="{40 + 180 * i}" y="40" width="120" height="60" as="geometry" /></mxCell>')
    if chain:
        for i in range(len(boxes) - 1):
            cells.append(f'<mxCell id="e{i}" value="" style="edgeStyle=orthogonalEdgeStyle;html=1;" edge="1" parent="1" '
                         f'source="{boxes[i][0]}" target="{boxes[i + 1][0]}"><mxGeometry relative="1" as="geometry" />'
                         '</mxCell>')
    text = ('<mxfile host="app.diagrams.net" version="24.4.0" type="device">\n  <diagram id="d1" name="Page-1">'
            '<mxGraphModel dx="1186" dy="670" grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="1" '
            'fold="1" page="1" pageScale="1" pageWidth="1169" pageHeight="827" math="0" shadow="0"><root>'
            + "".join(cells) + "</root></mxGraphModel></diagram>\n</mxfile>\n")
    return {"path": path, "kind": "text", "content": text}


def svg(path: str, body: str, width: int = 300, height: int = 120) -> Json:
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
            'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
            'xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">\n'
            '  <sodipodi:namedview id="namedview1" pagecolor="#ffffff" inkscape:document-units="px"/>\n'
            '  <g inkscape:groupmode="layer" id="layer1" inkscape:label="Layer 1">\n' + body + "\n  </g>\n</svg>\n")
    return {"path": path, "kind": "text", "content": text}


def cp(kind: str, app: str, document: str | None, target: str | None, expected: Any, **extra: Any) -> Json:
    out: Json = {"type": kind, "app": app}
    if document is not None:
        out["document"] = document
    if target is not None:
        out["target"] = target
    out["expected"] = expected
    out.update(extra)
    return out


def call(app: str, function: str, **params: Any) -> Json:
    return {"action_type": "invoke_function", "app": app, "target": function, "params": params}


def look(app: str, target: str | None = None) -> Json:
    """A navigate to the app the information is read from (the reference shows where it comes from)."""
    out: Json = {"action_type": "navigate", "app": app, "params": {}}
    if target is not None and app == "calc":  # a sheet; other apps page from the top with an empty navigate
        out["target"] = target
    return out


DOCUMENT_KINDS = {"gimp": ("image",), "audacity": ("audio",), "blender": ("blend",), "kdenlive": ("mlt_project",),
                  "obs": ("obs_collection",), "impress": ("presentation",), "writer": ("document",),
                  "calc": ("spreadsheet",), "drawio": ("text",), "inkscape": ("text",)}
GENERIC = ("outcome", "answer", "file_exists", "file_absent", "text_regex")


def document_of(app: str, files: list[Json]) -> str:
    """The app's document: the first file of its own kind in its own folder (the workspace rule)."""
    return next(str(f["path"]) for f in files if f["path"].startswith(f"{app}/") and f["kind"] in DOCUMENT_KINDS[app]
                and not f["path"].endswith(".txt"))


def task(id_: str, apps: list[str], domain: str, instruction: str, files: list[Json], paths: list[list[Json]],
         reference: list[Json], open_: dict[str, str] | None = None) -> Json:
    """A task whose every app opens its document explicitly, and whose checkpoints name that document (a
    checkpoint on an exported file still belongs to the app that reads it, e.g. gimp_image_size on obs/logo.png)."""
    documents = {app: (open_ or {}).get(app) or document_of(app, files) for app in apps}
    for path in paths:
        for checkpoint in path:
            if checkpoint["type"] not in GENERIC:
                checkpoint.setdefault("document", documents[checkpoint["app"]])
    out: Json = {"id": f"multi-a-{id_}", "suite": "multi", "apps": apps, "domain": domain, "instruction": instruction,
                 "setup": {"files": files, "open": documents}, "budget": 15, "evaluator": {"paths": paths},
                 "reference": reference}
    if reference and reference[-1]["action_type"] == "infeasible":
        out["feasible"] = False
    return out
