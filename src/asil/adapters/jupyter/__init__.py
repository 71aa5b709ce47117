"""The jupyter app."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="jupyter",
    adapter="asil.adapters.jupyter.adapter:JupyterAdapter",
    pattern="file",
    extensions=(".ipynb",),
    checkpoints=("asil.adapters.jupyter.checkpoints",),
    validator="asil.adapters.jupyter.validator:raw_judge",
    suite="suites/core/jupyter",
    render=True,
)
