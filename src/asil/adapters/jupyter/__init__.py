"""The Jupyter adapter (file pattern): .ipynb notebooks whose cells run in a sandboxed real kernel."""

from asil.plugins import DEVELOPER, packaged_app

PLUGIN = packaged_app(__name__, "JupyterAdapter", "file", region=DEVELOPER, extensions=(".ipynb",),
                     gui="asil.adapters.jupyter.gui:launch")
