"""The Inkscape adapter: SVG documents through lxml, exports through the Inkscape CLI."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "InkscapeAdapter", "file", region=CREATIVE, extensions=(".svg",),
                      gui="asil.apps.inkscape_gui:launch")
