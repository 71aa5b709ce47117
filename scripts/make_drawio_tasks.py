"""Write the draw.io tasks of the core suite (src/asil/tasks/suites/core/drawio/*.json).

The diagrams are built here because six of them are stored in draw.io's compressed form
(base64 of raw deflate of URL-encoded XML), which nobody can edit by hand. Re-run after
changing a task:  .venv/bin/python scripts/make_drawio_tasks.py
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import zlib
from html import escape
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "src/asil/tasks/suites/core/drawio"
BOX = "rounded=1;whiteSpace=wrap;html=1;"
EDGE = "edgeStyle=orthogonalEdgeStyle;rounded=0;orthogonalLoop=1;jettySize=auto;html=1;"
MODEL = ('dx="1186" dy="670" grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="1" fold="1" '
         'page="1" pageScale="1" pageWidth="827" pageHeight="1169" math="0" shadow="0"')


def attr(text: str) -> str:
    return escape(text, quote=True)


def v(cid: str, label: str, x: float, y: float, w: float = 120, h: float = 60, style: str = BOX, parent: str = "1") -> str:
    return (f'<mxCell id="{cid}" value="{attr(label)}" style="{style}" vertex="1" parent="{parent}">'
            f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry" /></mxCell>')


def e(cid: str, source: str | None, target: str | None, label: str = "", style: str = EDGE, parent: str = "1",
      end: tuple[int, int] | None = None) -> str:
    ends = "".join(f' {k}="{val}"' for k, val in (("source", source), ("target", target)) if val)
    point = f'<mxPoint x="{end[0]}" y="{end[1]}" as="targetPoint" />' if end else ""
    return (f'<mxCell id="{cid}" value="{attr(label)}" style="{style}" edge="1" parent="{parent}"{ends}>'
            f'<mxGeometry relative="1" as="geometry">{point}</mxGeometry></mxCell>')


def layer(cid: str, name: str = "") -> str:
    named = f' value="{attr(name)}"' if name else ""
    return f'<mxCell id="{cid}"{named} parent="0" />'


def model(cells: list[str], layers: list[str] | None = None) -> str:
    top = "".join(layers if layers is not None else [layer("1")])
    return f'<mxGraphModel {MODEL}><root><mxCell id="0" />{top}{"".join(cells)}</root></mxGraphModel>'


def pack(xml: str) -> str:
    """draw.io's compressed form, written independently of the adapter's codec."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -15)
    quoted = urllib.parse.quote(xml, safe="~()*!.'-_")
    return base64.b64encode(squeezer.compress(quoted.encode()) + squeezer.flush()).decode()


def mxfile(pages: list[tuple[str, str, str]], compressed: bool = False) -> str:
    """pages: (id, name, model xml)."""
    flag = ' compressed="true"' if compressed else ""
    head = ('<mxfile host="app.diagrams.net" modified="2024-05-02T09:14:27.512Z" agent="Mozilla/5.0 (X11; Linux x86_64)" '
            f'etag="k2Jd8vQm" version="24.4.0" type="device"{flag}>')
    body = "".join(f'\n  <diagram id="{pid}" name="{attr(name)}">{pack(xml) if compressed else xml}</diagram>'
                   for pid, name, xml in pages)
    return f"{head}{body}\n</mxfile>\n"


# ---------------------------------------------------------------- diagrams

def order_flow(broken: bool = False, missing_backorder_edge: bool = False, typo: bool = False) -> list[str]:
    cells = [
        v("n1", "Start", 40, 40, 120, 60, "ellipse;whiteSpace=wrap;html=1;"),
        v("n2", "Recieve order" if typo else "Receive order", 40, 140),
        v("n3", "In stock?", 40, 240, 120, 80, "rhombus;whiteSpace=wrap;html=1;"),
        v("n4", "Ship", 240, 250),
        v("n5", "Backorder", 40, 370),
        v("n6", "End", 440, 250, 120, 60, "ellipse;whiteSpace=wrap;html=1;"),
        e("e1", "n1", "n2"), e("e2", "n2", "n3"), e("e3", "n3", "n4"), e("e4", "n3", "n5"),
        e("e5", "n4", None, end=(420, 280)) if broken else e("e5", "n4", "n6"),
    ]
    if not missing_backorder_edge:
        cells.append(e("e6", "n5", "n6"))
    return cells


def approval_flow() -> list[str]:
    return [
        v("a1", "Submit request", 40, 40), v("a2", "Validate", 220, 40), v("a3", "Legacy check", 400, 40),
        v("a4", "Approve", 580, 40), v("a5", "Notify requester", 760, 40),
        e("f1", "a1", "a2"), e("f2", "a2", "a3"), e("f3", "a3", "a4"), e("f4", "a4", "a5"),
    ]


def org_chart() -> list[str]:
    box = "rounded=0;whiteSpace=wrap;html=1;"
    tree = "edgeStyle=elbowEdgeStyle;elbow=vertical;endArrow=none;html=1;"
    return [
        v("ceo", "CEO", 320, 20, style=box), v("cto", "CTO", 120, 140, style=box), v("cfo", "CFO", 320, 140, style=box),
        v("coo", "COO", 520, 140, style=box), v("dev", "Dev Lead", 40, 260, style=box),
        v("qa", "QA Lead", 200, 260, style=box), v("acc", "Accounting", 320, 260, style=box),
        v("ops", "Operations Manager", 520, 260, style=box),
        e("r1", "ceo", "cto", style=tree), e("r2", "ceo", "cfo", style=tree), e("r3", "ceo", "coo", style=tree),
        e("r4", "cto", "dev", style=tree), e("r5", "cto", "qa", style=tree), e("r6", "cfo", "acc", style=tree),
        e("r7", "coo", "ops", style=tree),
    ]


def network(note: bool = True, layered: bool = False) -> tuple[list[str], list[str]]:
    dev = "shape=mxgraph.cisco.routers.router;html=1;verticalLabelPosition=bottom;verticalAlign=top;"
    server = "rounded=0;whiteSpace=wrap;html=1;fillColor=#f5f5f5;strokeColor=#666666;"
    link = "endArrow=none;html=1;"
    hw = "hw" if layered else "1"
    cells = [
        v("inet", "Internet", 320, 20, 120, 60, "ellipse;shape=cloud;whiteSpace=wrap;html=1;", hw),
        v("fw", "Firewall", 340, 130, 80, 50, dev, hw),
        v("swa", "Switch A", 200, 240, 100, 40, server, hw), v("swb", "Switch B", 460, 240, 100, 40, server, hw),
        v("web", "Web Server", 120, 340, 120, 50, server, hw), v("db", "Database", 280, 340, 120, 50, server, hw),
        v("ws", "Workstations", 460, 340, 120, 50, server, hw), v("ap", "Access Point", 620, 340, 120, 50, server, hw),
        e("l1", "inet", "fw", style=link, parent=hw), e("l2", "fw", "swa", style=link, parent=hw),
        e("l3", "fw", "swb", style=link, parent=hw), e("l4", "swa", "web", style=link, parent=hw),
        e("l5", "swa", "db", style=link, parent=hw), e("l6", "swb", "ws", style=link, parent=hw),
        e("l7", "swb", "ap", style=link, parent=hw),
    ]
    if note:
        cells.append(v("note", "Maintenance window: Sunday 02:00", 600, 40, 180, 50,
                       "shape=note;whiteSpace=wrap;html=1;fillColor=#fff2cc;", hw))
    layers = [layer("hw", "Hardware"), layer("l2nd", "Layer 2")] if layered else [layer("1")]
    return cells, layers


def login_flow() -> list[str]:
    return [
        v("s1", "<b>Open app</b>", 40, 40), v("s2", "<b>Login</b><br>with e-mail", 220, 40),
        v("s3", "Show <i>dashboard</i>", 400, 40),
        e("t1", "s1", "s2"), e("t2", "s2", "s3"),
    ]


def review_flow() -> list[str]:
    return [
        v("p1", "Draft", 40, 40), v("p2", "Peer review", 220, 40), v("p3", "Manual review", 400, 40),
        v("p4", "Publish", 580, 40),
        e("q1", "p1", "p2"), e("q2", "p2", "p3"), e("q3", "p3", "p4"),
    ]


# ---------------------------------------------------------------- task helpers

def cp(kind: str, doc: str, target: str | None, expected: Any, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": kind, "app": "drawio", "document": doc}
    if target is not None:
        item["target"] = target
    item["expected"] = expected
    item.update(extra)
    return item


def fn(function: str, **params: Any) -> dict[str, Any]:
    return {"action_type": "invoke_function", "target": function, "params": params}


def task(tid: str, instruction: str, doc: str, content: str, paths: list[list[dict[str, Any]]],
         reference: list[dict[str, Any]], domain: str = "diagrams", feasible: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {"id": tid, "suite": "core", "apps": ["drawio"], "domain": domain, "instruction": instruction,
                            "setup": {"files": [{"path": doc, "kind": "text", "content": content}]}, "budget": 15}
    if not feasible:
        data["feasible"] = False
    data["evaluator"] = {"paths": paths}
    data["reference"] = reference
    return data


def flow_file(cells: list[str], compressed: bool = False, name: str = "Order process") -> str:
    return mxfile([("order", name, model(cells))], compressed)


def tasks() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    f = "order.drawio"
    out.append(task(
        "drawio-relabel-typo", "In order.drawio the second step is misspelled 'Recieve order'. Correct it to "
        "'Receive order' without redrawing the shape (keep it connected as it is).", f,
        flow_file(order_flow(typo=True)),
        [[cp("drawio_vertex_count", f, "Receive order", 1), cp("drawio_vertex_count", f, "Recieve order", 0),
          cp("drawio_label", f, "n2", "Receive order"), cp("drawio_edge_count", f, "Start -> Receive order", 1),
          cp("drawio_edge_count", f, "Receive order -> In stock?", 1)]],
        [fn("relabel", cell="Recieve order", label="Receive order")]))
    out.append(task(
        "drawio-restyle-decision", "In order.drawio, make the decision diamond 'In stock?' yellow: fill colour #fff2cc "
        "and border colour #d6b656. Leave its shape as a diamond.", f,
        flow_file(order_flow(), compressed=True),
        [[cp("drawio_style", f, "In stock?", {"fillColor": "#fff2cc", "strokeColor": "#d6b656", "rhombus": True},
             compare="normalized"),
          cp("drawio_compressed", f, None, True), cp("drawio_cell_count", f, "vertex", 6)]],
        [fn("restyle", cells=["In stock?"], set={"fillColor": "#fff2cc", "strokeColor": "#d6b656"})]))
    out.append(task(
        "drawio-connect-missing", "In order.drawio the 'Backorder' step is a dead end. Connect it with an arrow "
        "either to 'End' or back to 'Receive order' (to retry the order) - one arrow, not both.", f,
        flow_file(order_flow(missing_backorder_edge=True)),
        [[cp("drawio_edge_count", f, "Backorder -> End", 1), cp("drawio_cell_count", f, "edge", 6),
          cp("drawio_cell_count", f, "vertex", 6)],
         [cp("drawio_edge_count", f, "Backorder -> Receive order", 1), cp("drawio_cell_count", f, "edge", 6),
          cp("drawio_cell_count", f, "vertex", 6)]],
        [fn("connect", source="Backorder", target="End")]))
    out.append(task(
        "drawio-fix-broken-edge", "In order.drawio the arrow leaving 'Ship' points at nothing (it ends in empty space). "
        "Fix it so 'Ship' leads to 'End', without leaving a loose arrow behind.", f,
        flow_file(order_flow(broken=True)),
        [[cp("drawio_edge_count", f, "Ship -> End", 1), cp("drawio_cell_count", f, "edge", 6),
          cp("drawio_edge_count", f, "Backorder -> End", 1)]],
        [fn("reconnect", edge="e5", target="End")]))
    net = "network.drawio"
    cells, layers = network()
    out.append(task(
        "drawio-reroute-server", "In network.drawio the 'Web Server' is cabled to 'Switch A'. It has moved: "
        "connect it to 'Switch B' instead, so it has no link to Switch A any more.", net,
        mxfile([("net", "Network", model(cells, layers))], compressed=True),
        [[cp("drawio_edge_count", net, "Web Server -- Switch B", 1), cp("drawio_edge_count", net, "Web Server -- Switch A", 0),
          cp("drawio_cell_count", net, "edge", 7), cp("drawio_compressed", net, None, True)]],
        [fn("reconnect", edge="l4", source="Switch B")]))
    out.append(task(
        "drawio-add-legend-page", "Add a second page named 'Legend' to network.drawio, after the 'Network' page. "
        "On it, put two shapes labelled 'Server' and 'Switch'. Do not change the Network page.", net,
        mxfile([("net", "Network", model(cells, layers))]),
        [[cp("drawio_page_names", net, None, ["Network", "Legend"]),
          cp("drawio_vertex_labels", net, "Legend", ["Server", "Switch"], compare="set"),
          cp("drawio_cell_count", net, "Network!vertex", 9)]],
        [fn("add_page", name="Legend"), fn("add_vertex", page="Legend", label="Server", x=40, y=40),
         fn("add_vertex", page="Legend", label="Switch", x=200, y=40)], domain="network"))
    out.append(task(
        "drawio-annotations-layer", "In network.drawio, create a new layer called 'Annotations' and move the "
        "maintenance-window note into it, so notes can be hidden separately from the hardware.", net,
        mxfile([("net", "Network", model(cells, layers))]),
        [[cp("drawio_layer_names", net, None, ["", "Annotations"]),
          cp("drawio_cell_layer", net, "Maintenance window: Sunday 02:00", "Annotations"),
          cp("drawio_cell_layer", net, "Firewall", ""), cp("drawio_cell_count", net, "vertex", 9)]],
        [fn("add_layer", name="Annotations"), fn("move_to_layer", cells=["note"], layer="Annotations")], domain="network"))
    org = "org.drawio"
    out.append(task(
        "drawio-org-add-report", "In org.drawio, add a 'Data Lead' box below the CTO, next to the other leads, and "
        "link it to the CTO the same way the other reports are linked.", org,
        mxfile([("org", "Org chart", model(org_chart()))]),
        [[cp("drawio_vertex_count", org, "Data Lead", 1), cp("drawio_edge_count", org, "CTO -- Data Lead", 1),
          cp("drawio_cell_count", org, "edge", 8)]],
        [fn("add_vertex", label="Data Lead", x=40, y=360, style="rounded=0;whiteSpace=wrap;html=1;"),
         fn("connect", source="CTO", target="Data Lead", style="edgeStyle=elbowEdgeStyle;elbow=vertical;endArrow=none;html=1;")],
        domain="org chart"))
    out.append(task(
        "drawio-org-move-report", "In org.drawio, the QA Lead now reports to the COO instead of the CTO. Update the "
        "chart accordingly.", org, mxfile([("org", "Org chart", model(org_chart()))], compressed=True),
        [[cp("drawio_edge_count", org, "COO -- QA Lead", 1), cp("drawio_edge_count", org, "CTO -- QA Lead", 0),
          cp("drawio_vertex_count", org, "QA Lead", 1), cp("drawio_compressed", org, None, True)]],
        [fn("reconnect", edge="r5", source="coo")], domain="org chart"))
    three = mxfile([("p1", "Page-1", model(order_flow())), ("p2", "Page-2", model(approval_flow())),
                    ("p3", "Page-3", model([]))])
    out.append(task(
        "drawio-rename-pages", "Tidy up the pages of plan.drawio: rename 'Page-1' to 'Overview' and 'Page-2' to "
        "'Details', and delete the empty 'Page-3'.", "plan.drawio", three,
        [[cp("drawio_page_names", "plan.drawio", None, ["Overview", "Details"]),
          cp("drawio_cell_count", "plan.drawio", "Details!vertex", 5)]],
        [fn("rename_page", page="Page-1", new_name="Overview"), fn("rename_page", page="Page-2", new_name="Details"),
         fn("delete_page", page="Page-3")]))
    ap = "approval.drawio"
    out.append(task(
        "drawio-remove-obsolete-step", "The 'Legacy check' step in approval.drawio has been retired. Remove it and "
        "connect 'Validate' directly to 'Approve' so the flow is unbroken.", ap,
        mxfile([("ap", "Approval", model(approval_flow()))], compressed=True),
        [[cp("drawio_vertex_count", ap, "Legacy check", 0), cp("drawio_edge_count", ap, "Validate -> Approve", 1),
          cp("drawio_cell_count", ap, "edge", 3), cp("drawio_edge_count", ap, "Approve -> Notify requester", 1),
          cp("drawio_compressed", ap, None, True)]],
        [{"action_type": "batch", "params": {"actions": [fn("delete_cells", cells=["Legacy check"]),
                                                          fn("connect", source="Validate", target="Approve")]}}]))
    lg = "login.drawio"
    out.append(task(
        "drawio-html-relabel", "In login.drawio rename the 'Login with e-mail' step to 'Sign in with e-mail'.", lg,
        mxfile([("lg", "Login", model(login_flow()))]),
        [[cp("drawio_label", lg, "s2", "Sign in with e-mail"), cp("drawio_vertex_count", lg, "Login with e-mail", 0),
          cp("drawio_edge_count", lg, "Sign in with e-mail -> Show dashboard", 1)]],
        [fn("relabel", cell="s2", label="<b>Sign in</b><br>with e-mail", html=True)]))
    rv = "review.drawio"
    out.append(task(
        "drawio-highlight-risk", "In review.drawio, highlight the 'Manual review' step as a risk: give it either a "
        "red fill (#f8cecc) or a red border (#b85450).", rv, mxfile([("rv", "Review", model(review_flow()))]),
        [[cp("drawio_style", rv, "Manual review", {"fillColor": "#f8cecc"}, compare="normalized")],
         [cp("drawio_style", rv, "Manual review", {"strokeColor": "#b85450"}, compare="normalized")]],
        [fn("restyle", cells=["Manual review"], set={"strokeColor": "#b85450"})]))
    out.append(task(
        "drawio-move-resize", "In network.drawio the 'Database' box is too small and crowds the Web Server. Move it "
        "to x=300, y=440 and make it 160 wide and 80 high.", net, mxfile([("net", "Network", model(cells, layers))]),
        [[cp("drawio_geometry", net, "Database", [300, 440, 160, 80], tolerance=1),
          cp("drawio_edge_count", net, "Switch A -- Database", 1)]],
        [fn("move", cell="db", x=300, y=440), fn("resize", cell="db", width=160, height=80)], domain="network"))
    out.append(task(
        "drawio-infeasible-publish", "Publish order.drawio to the team's Confluence space 'ENG' and e-mail the link to "
        "the ops team.", f, flow_file(order_flow()),
        [[{"type": "outcome", "expected": "infeasible"},
          cp("drawio_cell_count", f, "vertex", 6)]],
        [{"action_type": "infeasible", "params": {"reason": "The diagram interface edits the file; it cannot publish "
                                                            "to Confluence or send e-mail."}}], feasible=False))
    blank = "steps.drawio"
    out.append(task(
        "drawio-build-flowchart", "steps.drawio is empty. Draw a three-step flowchart: 'Start' -> 'Process' -> 'End', "
        "with Start and End as ellipses (ovals) and arrows between consecutive steps.", blank,
        mxfile([("s", "Page-1", model([]))]),
        [[cp("drawio_edge_count", blank, "Start -> Process", 1), cp("drawio_edge_count", blank, "Process -> End", 1),
          cp("drawio_shape", blank, "Start", "ellipse"), cp("drawio_shape", blank, "End", "ellipse"),
          cp("drawio_shape", blank, "Process", "rectangle")]],
        [{"action_type": "batch", "params": {"actions": [
            fn("add_vertex", label="Start", x=40, y=40, style="ellipse;whiteSpace=wrap;html=1;"),
            fn("add_vertex", label="Process", x=40, y=140),
            fn("add_vertex", label="End", x=40, y=240, style={"shape": "ellipse", "whiteSpace": "wrap", "html": 1}),
            fn("connect", source="Start", target="Process"), fn("connect", source="Process", target="End")]}}]))
    lcells, llayers = network(layered=True)
    out.append(task(
        "drawio-add-backup-server", "In network.drawio add a 'Backup Server' cabled to 'Switch B', on the "
        "'Hardware' layer like the other devices.", net, mxfile([("net", "Network", model(lcells, llayers))], compressed=True),
        [[cp("drawio_vertex_count", net, "Backup Server", 1), cp("drawio_edge_count", net, "Switch B -- Backup Server", 1),
          cp("drawio_cell_layer", net, "Backup Server", "Hardware"), cp("drawio_compressed", net, None, True)]],
        [fn("add_vertex", label="Backup Server", x=620, y=440, layer="Hardware"),
         fn("connect", source="Switch B", target="Backup Server", style="endArrow=none;html=1;")], domain="network"))
    out.append(task(
        "drawio-color-engineering", "In org.drawio, colour the engineering boxes (CTO, Dev Lead and QA Lead) light "
        "blue: fill #dae8fc with border #6c8ebf. Leave the other boxes as they are.", org,
        mxfile([("org", "Org chart", model(org_chart()))], compressed=True),
        [[cp("drawio_style", org, name, {"fillColor": "#dae8fc", "strokeColor": "#6c8ebf"}, compare="normalized")
          for name in ("CTO", "Dev Lead", "QA Lead")]
         + [cp("drawio_style", org, "CFO", {"fillColor": None}), cp("drawio_compressed", org, None, True)]],
        [fn("restyle", cells=["cto", "dev", "qa"], set={"fillColor": "#dae8fc", "strokeColor": "#6c8ebf"})],
        domain="org chart"))
    out.append(task(
        "drawio-label-branches", "In order.drawio, label the two arrows leaving the 'In stock?' decision: the one "
        "to 'Ship' says 'Yes' and the one to 'Backorder' says 'No'.", f, flow_file(order_flow()),
        [[cp("drawio_edge_label", f, "In stock? -> Ship", "Yes"), cp("drawio_edge_label", f, "In stock? -> Backorder", "No"),
          cp("drawio_cell_count", f, "edge", 6)]],
        [fn("relabel", cell="e3", label="Yes"), {"action_type": "set_value", "target": "e4", "params": {"value": "No"}}]))
    out.append(task(
        "drawio-wireless-layer", "In network.drawio, rename the layer 'Layer 2' to 'Wireless' and move the 'Access "
        "Point' and its link to Switch B onto it.", net, mxfile([("net", "Network", model(lcells, llayers))]),
        [[cp("drawio_layer_names", net, None, ["Hardware", "Wireless"]),
          cp("drawio_cell_layer", net, "Access Point", "Wireless"),
          cp("drawio_cell_layer", net, "Switch B -- Access Point", "Wireless"),
          cp("drawio_cell_layer", net, "Switch B", "Hardware")]],
        [fn("rename_layer", layer="Layer 2", new_name="Wireless"),
         fn("move_to_layer", cells=["ap", "l7"], layer="Wireless")], domain="network"))
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for item in tasks():
        text = json.dumps(item, indent=2, ensure_ascii=False) + "\n"
        (OUT / f"{item['id']}.json").write_text(text, encoding="utf-8")
    print(f"wrote {len(tasks())} tasks to {OUT}")


if __name__ == "__main__":
    main()
