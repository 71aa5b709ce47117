"""The Inkscape adapter: SVG documents through lxml, exports through the Inkscape CLI."""
