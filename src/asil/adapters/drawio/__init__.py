"""The draw.io adapter: ``.drawio`` mxGraph XML files, plain or compressed, seen as pages of cells."""

from asil.plugins import OFFICE, packaged_app

PLUGIN = packaged_app(__name__, "DrawioAdapter", "file", region=OFFICE, extensions=(".drawio", ".dio"),
                      gui="asil.apps.drawio_gui:launch")
