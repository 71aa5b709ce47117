"""``asil mcp serve``: check the options, build the served workspace, run a transport."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from asil.extras import require
from asil.mcp_server.documents import ServedWorkspace
from asil.mcp_server.policy import ServePolicy
from asil.protocol import AsilError

TOKEN_ENV = "ASIL_MCP_TOKEN"
DEFAULT_PORT = 8765


class ServeError(AsilError):
    code = "usage"


@dataclass
class ServeOptions:
    apps: list[str]
    workspace: Path
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = None
    read_only: bool = False
    allow_destructive: bool = False
    allowed_hosts: list[str] = field(default_factory=list)


def serve(options: ServeOptions) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (http)."""
    require("mcp", "mcp")
    run = _transport(options.transport)
    token = _token(options)
    _check_workspace(options.workspace)
    served = ServedWorkspace(options.workspace, options.apps,
                             ServePolicy(read_only=options.read_only, allow_destructive=options.allow_destructive))
    _stop_office_on_signals()
    try:
        run(served, options, token)
    finally:
        served.close()


def _run_stdio(served: ServedWorkspace, options: ServeOptions, token: str | None) -> None:
    from asil.mcp_server.tools import build_server

    build_server(served).run("stdio")


def _run_http(served: ServedWorkspace, options: ServeOptions, token: str | None) -> None:
    from asil.mcp_server.http import is_loopback, run_http, transport_security
    from asil.mcp_server.tools import build_server

    if not token and not is_loopback(options.host):
        raise ServeError(f"Serving on {options.host} would open the workspace to other machines without a token.",
                         hint=f"Give a token with --token or {TOKEN_ENV}, or keep the default --host 127.0.0.1.")
    server = build_server(served, transport_security(options.host, options.allowed_hosts))
    run_http(server, options.host, options.port, token)


TRANSPORTS: dict[str, Callable[[ServedWorkspace, ServeOptions, str | None], None]] = {"stdio": _run_stdio, "http": _run_http}


def _transport(name: str) -> Callable[[ServedWorkspace, ServeOptions, str | None], None]:
    if name not in TRANSPORTS:
        raise ServeError(f"Unknown transport {name!r}.", hint=f"Transports: {', '.join(TRANSPORTS)}.")
    return TRANSPORTS[name]


def _token(options: ServeOptions) -> str | None:
    if options.token is not None and options.transport != "http":
        raise ServeError("--token applies only to --transport http.", hint="Drop --token for stdio.")
    token = options.token if options.token is not None else os.environ.get(TOKEN_ENV)
    if token is not None and len(token.strip()) < 8:
        raise ServeError("The bearer token is shorter than 8 characters.", hint="Use a long random token, e.g. from "
                         "python -c 'import secrets; print(secrets.token_urlsafe(32))'.")
    return token.strip() if token else None


def _check_workspace(path: Path) -> None:
    if not path.is_dir():
        raise ServeError(f"The workspace {str(path)!r} is not an existing folder.",
                         hint="Give --workspace the folder whose documents should be served.")


def _stop_office_on_signals() -> None:
    """On SIGTERM/SIGINT/SIGHUP kill this process's LibreOffice and exit at once.

    Every successful action is already saved and every audit line fsynced, so nothing is lost;
    a slow graceful path could instead be cut short and leave LibreOffice running.
    """
    def stop(signum: int, frame: FrameType | None) -> None:
        from asil.apps.libreoffice import kill_shared_office

        kill_shared_office()
        sys.stderr.flush()
        os._exit(128 + signum)

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), stop)
