"""The official draw.io MCP server (``@drawio/mcp`` from the npm registry), installed and reached confined.

``@drawio/mcp`` is jgraph's own MCP server for draw.io. It is installed on first use with npm into
``~/.cache/asil/drawio-mcp`` (``ASIL_DRAWIO_MCP_DIR`` moves it), pinned to :data:`VERSION`, with
``--ignore-scripts``: its only install script primes a CDN cache for edge routing, which the offline
tools never use. Every call starts the server under the bash channel's confinement
(``asil.apps.sandbox``: the workspace the only writable folder, the package read-only, no network, a
clean environment, a process cap) and speaks MCP to it over stdio through the ``mcp`` client SDK
(``ClientSession`` + ``stdio_client``), under a time limit. The server keeps no state between calls
(its page tools read and write the file itself), so a fresh process per call loses nothing and lets
the time limit end a hung call by ending the process.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from asil.apps import npm_package, reaper
from asil.apps.sandbox import clean_env, process_limit, sandbox_argv
from asil.protocol import AppUnavailable
from asil.workspace import cache_dir

PACKAGE = "@drawio/mcp"
VERSION = "1.6.1"
NODE = "/usr/bin/node"  # Debian's Node 20, inside the sandbox's read-only /usr
LIST_TIMEOUT_S = 30.0
INSTALL_HINT = "Install Node.js and npm (apt-get install nodejs npm); ASIL then installs @drawio/mcp itself."


def install_dir() -> Path:
    return Path(os.environ.get("ASIL_DRAWIO_MCP_DIR", cache_dir() / "drawio-mcp"))


def entry_point(root: Path | None = None) -> Path:
    return (root or install_dir()) / "node_modules" / "@drawio" / "mcp" / "src" / "index.js"


def installed_version(root: Path | None = None) -> str | None:
    return npm_package.installed_version(root or install_dir(), PACKAGE)


def ensure_installed() -> Path:
    """The server's entry script, installing the pinned package with npm first if it is not there yet."""
    if not Path(NODE).is_file():
        raise AppUnavailable("The draw.io MCP server needs Node.js and npm, which are not installed.", hint=INSTALL_HINT)
    npm_package.ensure_package(install_dir(), PACKAGE, VERSION, "The draw.io MCP server")
    return entry_point()


@dataclass
class ToolCall:
    """How one MCP tool call ended: ``text`` is the server's text content; ``error`` is None when it answered
    without ``isError``; ``failure`` is set when no answer came at all (start failure, time limit)."""

    text: str
    error: bool
    failure: str | None = None
    seconds: float = 0.0
    content_types: list[str] = field(default_factory=list)


def server_argv(workspace: Path, hidden: Sequence[Path] = ()) -> list[str]:
    """The confined command line of the server, with ``workspace`` as its only writable folder and cwd."""
    entry = ensure_installed()
    return sandbox_argv(workspace, [NODE, str(entry)], env=clean_env(str(workspace)), hidden=hidden,
                        read_only=[install_dir()], purpose="The draw.io MCP server")


async def _session_call(argv: list[str], tool: str | None, arguments: dict[str, Any], errlog: Any) -> Any:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:], env=reaper.tag(clean_env(tempfile.gettempdir())))
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        if tool is None:
            return (await session.list_tools()).tools
        return await session.call_tool(tool, arguments)


def require_sdk() -> None:
    """The MCP client SDK is the ``mcp`` extra; without it the channel says which package to install."""
    try:
        import anyio  # noqa: F401
        import jsonschema  # noqa: F401
        import mcp  # noqa: F401
    except ImportError:
        raise AppUnavailable("The draw.io MCP channel needs the MCP client SDK, which is not installed.",
                             hint="pip install 'asil[mcp]'") from None


def _run(argv: Sequence[str], tool: str | None, arguments: dict[str, Any], timeout_s: float) -> tuple[Any, str]:
    """Start the server, run one request, stop it; the reply and what the server wrote to stderr."""
    require_sdk()
    import anyio

    with process_limit(argv) as limited, tempfile.TemporaryFile("w+") as errlog:
        async def bounded() -> Any:
            with anyio.fail_after(timeout_s):
                return await _session_call(limited, tool, arguments, errlog)

        try:
            reply = anyio.run(bounded)
        finally:
            errlog.seek(0)
            stderr = errlog.read()
    return reply, stderr


def call_tool(workspace: Path, tool: str, arguments: dict[str, Any], timeout_s: float,
              hidden: Sequence[Path] = ()) -> ToolCall:
    """Call ``tool`` on a fresh confined server rooted at ``workspace``; never raises for the server's sake."""
    argv = server_argv(workspace, hidden)
    started = time.perf_counter()
    try:
        reply, _ = _run(argv, tool, arguments, timeout_s)
    except TimeoutError:
        return ToolCall("", True, f"The draw.io MCP server did not answer {tool} within {timeout_s:g} s and was "
                        "stopped", time.perf_counter() - started)
    except Exception as exc:  # noqa: BLE001 - a server that dies mid-session surfaces as many exception types
        return ToolCall("", True, f"The draw.io MCP server failed during {tool} ({_reason(exc)})",
                        time.perf_counter() - started)
    texts = [part.text for part in reply.content if getattr(part, "type", "") == "text"]
    return ToolCall("\n".join(texts), bool(reply.isError), None, time.perf_counter() - started,
                    [str(getattr(part, "type", "?")) for part in reply.content])


def _reason(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)  # anyio task groups wrap the real failure
    if inner:
        return _reason(inner[0])
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@cache
def server_tools() -> tuple[dict[str, Any], ...]:
    """The tools the server lists (name, description, inputSchema), from one confined run in an empty folder."""
    with tempfile.TemporaryDirectory(prefix="asil-drawio-mcp-") as empty:
        try:
            tools, stderr = _run(server_argv(Path(empty)), None, {}, LIST_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - see call_tool
            raise AppUnavailable(f"The draw.io MCP server did not list its tools ({_reason(exc)}).",
                                 hint="Run it by hand: node " + str(entry_point())) from None
    return tuple({"name": t.name, "description": t.description or "", "inputSchema": t.inputSchema} for t in tools)


def tool_names() -> list[str]:
    return [tool["name"] for tool in server_tools()]


__all__ = ["PACKAGE", "VERSION", "ToolCall", "call_tool", "ensure_installed", "install_dir", "server_tools",
           "tool_names"]
