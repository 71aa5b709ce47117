"""The MCP server: every adapter's documents in one workspace, for any MCP client (``asil mcp serve``).

Needs the ``mcp`` extra (``pip install 'asil[mcp]'``); importing ``asil`` never imports it.
"""

from asil.mcp_server.serve import ServeError, ServeOptions, serve

__all__ = ["ServeError", "ServeOptions", "serve"]
