"""The draw.io adapter: ``.drawio`` mxGraph XML files, plain or compressed, seen as pages of cells."""
