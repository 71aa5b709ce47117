"""Rendering a page to PNG with mxGraph — the engine draw.io is built on — in headless chromium.

The page's mxGraphModel is decoded by mxGraph's own ``mxCodec`` inside a blank HTML page that
loads ``mxClient.min.js`` from the ``mxgraph`` npm package (installed by
``scripts/install-drawio-renderer.sh`` into ``~/.cache/asil/drawio-renderer``, never committed);
chromium takes the screenshot. Network access is cut off with a host-resolver rule, so labels
that point at remote images cannot reach out.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from asil.adapters.drawio.codec import to_xml
from asil.adapters.drawio.model import Page
from asil.apps.chromium import browser, run_headless
from asil.protocol import ActionFailed, AppUnavailable
from asil.workspace import atomic_write

MAX_SIDE = 1600
MIN_SIDE = 240
MARGIN = 20
TIMEOUT_S = 60
# draw.io's look (black on white, Helvetica) and the named styles of its default stylesheet
PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;background:#fff;overflow:hidden} #g{position:absolute;left:0;top:0;width:%(w)dpx;height:%(h)dpx}
</style><script>var mxBasePath=%(base)s, mxLoadResources=false, mxLoadStylesheets=false;</script>
<script src=%(client)s></script></head><body><div id="g"></div><script>
var graph = new mxGraph(document.getElementById('g'));
graph.setEnabled(false); graph.setHtmlLabels(true);
var sheet = graph.getStylesheet(), v = sheet.getDefaultVertexStyle(), e = sheet.getDefaultEdgeStyle();
[v, e].forEach(function (s) { s.fontColor = '#000000'; s.strokeColor = '#000000'; s.fontFamily = 'Helvetica';
  s.fontSize = 12; });
v.fillColor = '#ffffff'; e.labelBackgroundColor = '#ffffff'; e.endArrow = 'classic';
var named = {ellipse: {shape: 'ellipse', perimeter: mxPerimeter.EllipsePerimeter},
  rhombus: {shape: 'rhombus', perimeter: mxPerimeter.RhombusPerimeter},
  triangle: {shape: 'triangle', perimeter: mxPerimeter.TrianglePerimeter},
  text: {fillColor: 'none', strokeColor: 'none', gradientColor: 'none'}, group: {fillColor: 'none', strokeColor: 'none'},
  swimlane: {shape: 'swimlane', startSize: 23, fontStyle: 1}, line: {shape: 'line'}};
for (var name in named) { sheet.putCellStyle(name, named[name]); }
graph.isHtmlLabel = function (cell) { var s = this.getCellStyle(cell); return s && s.html == '1'; };
var xml = mxUtils.parseXml(%(xml)s);
new mxCodec(xml).decode(xml.documentElement, graph.getModel());
var b = graph.getGraphBounds();
if (b.width > 0 && b.height > 0) {
  var s = Math.min((%(w)d - 2 * %(m)d) / b.width, (%(h)d - 2 * %(m)d) / b.height, 1);
  graph.view.scaleAndTranslate(s, %(m)d / s - b.x / graph.view.scale, %(m)d / s - b.y / graph.view.scale);
}
document.title = 'asil-rendered';
</script></body></html>"""


def renderer_dir() -> Path:
    return Path(os.environ.get("ASIL_DRAWIO_RENDERER_DIR", Path.home() / ".cache" / "asil" / "drawio-renderer"))


def mx_client() -> Path:
    return renderer_dir() / "node_modules" / "mxgraph" / "javascript" / "mxClient.min.js"


def renderer_problem() -> str | None:
    """Why rendering cannot work here, or None when it can."""
    if browser() is None:
        return "chromium is not installed (apt-get install chromium)"
    if not mx_client().is_file():
        return f"the mxgraph npm package is not in {renderer_dir()} (run scripts/install-drawio-renderer.sh)"
    return None


def canvas_size(page: Page) -> tuple[int, int]:
    """A window with the drawing's aspect ratio, from the vertices' absolute boxes."""
    right = bottom = 0.0
    for cell in page.vertices():
        x0, y0 = page.origin(cell)
        right = max(right, x0 + cell.number("x") + cell.number("width"))
        bottom = max(bottom, y0 + cell.number("y") + cell.number("height"))
    width, height = right + 2 * MARGIN, bottom + 2 * MARGIN
    shrink = min(1.0, MAX_SIDE / max(width, height, 1.0))
    return max(MIN_SIDE, round(width * shrink)), max(MIN_SIDE, round(height * shrink))


def render_page(page: Page, target: Path) -> Path:
    """Write a PNG of ``page`` to ``target`` (atomically); raise AppUnavailable if no renderer is here."""
    problem = renderer_problem()
    if problem is not None:
        raise AppUnavailable(f"The draw.io renderer is unavailable: {problem}.")
    width, height = canvas_size(page)
    client = mx_client()
    with tempfile.TemporaryDirectory(prefix="asil-drawio-render-") as scratch:
        html = Path(scratch, "page.html")
        html.write_text(PAGE % {"w": width, "h": height, "m": MARGIN, "xml": json.dumps(to_xml(page.model)),
                                "base": json.dumps(client.parent.joinpath("src").as_uri()),
                                "client": json.dumps(client.as_uri())}, encoding="utf-8")
        shot = Path(scratch, "shot.png")
        _screenshot(html, shot, width, height, Path(scratch, "profile"))
        if not shot.is_file() or shot.stat().st_size == 0:
            raise ActionFailed("chromium did not write the screenshot of the diagram.")
        atomic_write(target, shot.read_bytes())
    return target


def _screenshot(html: Path, shot: Path, width: int, height: int, profile: Path) -> None:
    flags = ["--disable-extensions", f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
             f"--window-size={width},{height}", "--virtual-time-budget=3000", f"--screenshot={shot}", html.as_uri()]
    code, last = run_headless(str(browser()), flags, TIMEOUT_S,
                              f"chromium did not finish rendering the diagram within {TIMEOUT_S} s.")
    if code != 0:
        raise ActionFailed(f"chromium failed to render the diagram (exit {code}: {last}).")
