"""The Jupyter adapter (file pattern): .ipynb notebooks whose cells run in a sandboxed real kernel."""

from asil.plugins import packaged_app

PLUGIN = packaged_app(__name__, "JupyterAdapter", "file", extensions=(".ipynb",))
