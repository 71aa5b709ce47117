"""Small .drawio documents for the draw.io tests, plain and compressed.

The compressed form is produced here with zlib and urllib directly (not the adapter's codec),
so the adapter is tested against an independent writer of draw.io's format.
"""

from __future__ import annotations

import base64
import urllib.parse
import zlib

BOX = "rounded=1;whiteSpace=wrap;html=1;"
MXFILE_ATTRS = 'host="app.diagrams.net" modified="2024-05-02T09:14:27.512Z" agent="test" etag="abc123" version="24.4.0"'


def compress(xml: str) -> str:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(packer.compress(urllib.parse.quote(xml, safe="~()*!.'").encode()) + packer.flush()).decode()


def decompress(text: str) -> str:
    return urllib.parse.unquote(zlib.decompress(base64.b64decode(text), -15).decode())


def vertex(cid: str, label: str, x: int = 0, y: int = 0, style: str = BOX, parent: str = "1", w: int = 120,
           h: int = 60) -> str:
    return (f'<mxCell id="{cid}" value="{label}" style="{style}" vertex="1" parent="{parent}">'
            f'<mxGeometry x="{x}" y="{y}" width="{w}" height="{h}" as="geometry"/></mxCell>')


def edge(cid: str, source: str, target: str, label: str = "", parent: str = "1") -> str:
    return (f'<mxCell id="{cid}" value="{label}" style="endArrow=classic;html=1;" edge="1" parent="{parent}" '
            f'source="{source}" target="{target}"><mxGeometry relative="1" as="geometry"/></mxCell>')


def model(cells: list[str], layers: str = '<mxCell id="1" parent="0"/>') -> str:
    return f'<mxGraphModel dx="800" dy="600" grid="1"><root><mxCell id="0"/>{layers}{"".join(cells)}</root></mxGraphModel>'


FLOW = [
    vertex("a", "Start", 40, 40, "ellipse;whiteSpace=wrap;html=1;"),
    vertex("b", "&lt;b&gt;Check&lt;/b&gt;&lt;br&gt;stock", 40, 140),
    vertex("c", "Ship", 240, 140, "rounded=0;whiteSpace=wrap;html=1;fillColor=#dae8fc;dashed=1;"),
    edge("e1", "a", "b"),
    edge("e2", "b", "c", "yes"),
]


def mxfile(pages: list[tuple[str, str, str]], compressed: bool = False) -> str:
    body = "".join(f'<diagram id="{pid}" name="{name}">{compress(xml) if compressed else xml}</diagram>'
                   for pid, name, xml in pages)
    return f'<mxfile {MXFILE_ATTRS}>{body}</mxfile>\n'


def flow_file(compressed: bool = False) -> str:
    return mxfile([("p1", "Flow", model(FLOW)), ("p2", "Notes", model([vertex("n", "Remember", 10, 10)]))], compressed)


def big_file(cells: int = 5000) -> str:
    """One page with ``cells`` cells: vertices in a grid, every other pair joined by an edge."""
    items = []
    vertices = cells * 2 // 3
    for i in range(vertices):
        items.append(vertex(f"v{i}", f"Server {i}", (i % 70) * 140, (i // 70) * 90))
    for i in range(cells - vertices):
        items.append(edge(f"e{i}", f"v{2 * i % vertices}", f"v{(2 * i + 1) % vertices}"))
    return mxfile([("big", "Datacenter", model(items))])
