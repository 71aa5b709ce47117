"""Building blocks for the hard multi-app tasks (scripts/make_hard_multi_tasks.py): set-up files and checkpoints.

The document builders are the multi-a generator's (imported from multi_a_parts, so the hard tasks start from
documents agents already meet); this module adds mail, file-tree and notebook builders, a diagram with chosen
edges, and the ids, suite and budget of the hard suite.

Every set-up file lives under the folder of the one app that owns it (``gimp/poster.xcf``, ``obs/scenes.json``),
so no two apps share a workspace path; an artifact one app exports for another goes into the other's folder.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from multi_a_parts import (  # noqa: F401 (re-exported: the task modules import every builder from here)
    BREAK_SOURCES,
    DECK,
    FPS25,
    GENERIC,
    MAIN_SOURCES,
    OBS_INPUTS,
    OBS_SCENES,
    POSTER_LAYERS,
    SCENE_OBJECTS,
    SCENE_SETTINGS,
    Json,
    audio,
    blend,
    call,
    clip,
    cp,
    deck,
    document,
    image,
    labels,
    look,
    obs,
    para,
    project,
    sheet,
    svg,
)


def drawio(path: str, boxes: list[tuple[str, str]], chain: bool = True,
           edges: list[tuple[str, str]] | None = None) -> Json:
    """A one-page diagram of rounded boxes (id, label) in a row, each joined to the next when ``chain``, or joined
    by ``edges`` (source id, target id) when given (so the arrow order can differ from the left-to-right order)."""
    cells = ['<mxCell id="0" />', '<mxCell id="1" parent="0" />']
    for i, (cid, label) in enumerate(boxes):
        cells.append(f'<mxCell id="{cid}" value="{label}" style="rounded=1;whiteSpace=wrap;html=1;" vertex="1" '
                     f'parent="1"><mxGeometry x="{40 + 180 * i}" y="40" width="120" height="60" as="geometry" /></mxCell>')
    pairs = edges if edges is not None else (
        [(boxes[i][0], boxes[i + 1][0]) for i in range(len(boxes) - 1)] if chain else [])
    for i, (source, target) in enumerate(pairs):
        cells.append(f'<mxCell id="e{i}" value="" style="edgeStyle=orthogonalEdgeStyle;html=1;" edge="1" parent="1" '
                     f'source="{source}" target="{target}"><mxGeometry relative="1" as="geometry" /></mxCell>')
    text = ('<mxfile host="app.diagrams.net" version="24.4.0" type="device">\n  <diagram id="d1" name="Page-1">'
            '<mxGraphModel dx="1186" dy="670" grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="1" '
            'fold="1" page="1" pageScale="1" pageWidth="1169" pageHeight="827" math="0" shadow="0"><root>'
            + "".join(cells) + "</root></mxGraphModel></diagram>\n</mxfile>\n")
    return {"path": path, "kind": "text", "content": text}


DOCUMENT_KINDS = {"thunderbird": ("maildir",), "nautilus": ("file_tree",), "jupyter": ("text",),
                  "codeserver": ("text",), "gimp": ("image",), "audacity": ("audio",), "blender": ("blend",),
                  "kdenlive": ("mlt_project",), "obs": ("obs_collection",), "impress": ("presentation",),
                  "writer": ("document",), "calc": ("spreadsheet",), "drawio": ("text",), "inkscape": ("text",)}


def document_of(app: str, files: list[Json]) -> str:
    """The app's document: the first file of its own kind in its own folder (the workspace rule)."""
    if app == "nautilus":  # the file tree is the folder itself
        return "nautilus"
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
    out: Json = {"id": f"hard-multi-{id_}", "suite": "hard", "apps": apps, "domain": domain, "instruction": instruction,
                 "setup": {"files": files, "open": documents}, "budget": 15, "evaluator": {"paths": paths},
                 "reference": reference}
    if reference and reference[-1]["action_type"] == "infeasible":
        out["feasible"] = False
    return out


MAIL_FILLER: list[Json] = [
    {"subject": "Weekly newsletter", "from": "News <newsletter@example.org>", "read": True,
     "date": "2026-11-01T07:00:00Z", "body": "This week: ten tips for tidy inboxes.\n"},
    {"subject": "Lunch on Friday?", "from": "Bob Jones <bob@example.com>", "read": True,
     "date": "2026-11-02T12:10:00Z", "body": "Shall we have lunch on Friday at noon?\n"},
]


def mail(messages: list[Json], folders: list[str] | None = None) -> Json:
    """Thunderbird's mailbox: the two filler messages first (INBOX#1, INBOX#2), then ``messages`` (INBOX#3 ...)."""
    return {"path": "thunderbird/mail", "kind": "maildir",
            "content": {"folders": folders or ["Archive"], "messages": copy.deepcopy(MAIL_FILLER + messages)}}


def message(subject: str, sender: str, body: str, date: str = "2026-11-03T09:00:00Z", **extra: Any) -> Json:
    return {"subject": subject, "from": sender, "read": False, "date": date, "body": body, **extra}


def tree(entries: list[Json]) -> Json:
    """Nautilus's files: entries under the ``nautilus`` folder ({"path", "content"} or {"path", "folder": True})."""
    return {"path": "nautilus", "kind": "file_tree", "content": {"entries": copy.deepcopy(entries)}}


def notebook(path: str, cells: list[tuple[str, str, str]]) -> Json:
    """A Jupyter notebook of (id, cell type, source) cells, not yet run."""
    out = []
    for cid, kind, source in cells:
        cell: Json = {"cell_type": kind, "id": cid, "metadata": {}, "source": source}
        if kind == "code":
            cell.update({"execution_count": None, "outputs": []})
        out.append(cell)
    nb = {"cells": out, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                                     "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return {"path": path, "kind": "text", "content": json.dumps(nb, indent=1) + "\n"}


def text(path: str, content: str) -> Json:
    return {"path": path, "kind": "text", "content": content}


def infeasible(reason: str) -> Json:
    return {"action_type": "infeasible", "params": {"reason": reason}}


def batch(app: str, *calls: Json) -> Json:
    """Several calls on one app as one step (each member still counts as a meaningful action)."""
    return {"action_type": "batch", "app": app,
            "params": {"actions": [{k: v for k, v in c.items() if k != "app"} for c in calls]}}


def setv(app: str, target: str, value: Any) -> Json:
    return {"action_type": "set_value", "app": app, "target": target, "params": {"value": value}}
