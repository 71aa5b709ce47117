"""The draw.io adapter: ``.drawio`` mxGraph XML files, plain or compressed, seen as pages of cells."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="drawio",
    adapter="asil.adapters.drawio.adapter:DrawioAdapter",
    pattern="file",
    extensions=(".drawio", ".dio"),
    checkpoints=("asil.adapters.drawio.checkpoints",),
    validator="asil.adapters.drawio.validator:raw_judge",
    suite="suites/core/drawio",
    render=True,
)
