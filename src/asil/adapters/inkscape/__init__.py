"""The Inkscape adapter: SVG documents through lxml, exports through the Inkscape CLI."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="inkscape",
    adapter="asil.adapters.inkscape.adapter:InkscapeAdapter",
    pattern="file",
    extensions=(".svg",),
    checkpoints=("asil.adapters.inkscape.checkpoints",),
    validator="asil.adapters.inkscape.validator:raw_judge",
    suite="suites/core/inkscape",
    render=True,
)
