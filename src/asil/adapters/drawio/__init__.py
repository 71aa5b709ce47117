"""The draw.io adapter: ``.drawio`` mxGraph XML files, plain or compressed, seen as pages of cells."""

from asil.plugins import packaged_app

PLUGIN = packaged_app(__name__, "DrawioAdapter", "file", extensions=(".drawio", ".dio"))
